"""Writes to the curriculum tables: one load that makes the database match the files."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import models, transaction
from django.db.models import ProtectedError, RestrictedError

from curricula.models import Course, Lesson, LessonTemplate, Module
from curricula.schema import (
    DEFAULT_DATA_DIR,
    Catalog,
    CourseRecord,
    CurriculumDataError,
    LessonRecord,
    load_catalog,
)

KINDS = ("courses", "modules", "lessons", "template links")


@dataclass
class KindCounts:
    created: int = 0
    updated: int = 0
    deleted: int = 0


@dataclass
class LoadReport:
    data_dir: Path
    kinds: dict[str, KindCounts] = field(default_factory=lambda: {k: KindCounts() for k in KINDS})

    @property
    def created(self) -> int:
        return sum(k.created for k in self.kinds.values())

    @property
    def updated(self) -> int:
        return sum(k.updated for k in self.kinds.values())

    @property
    def deleted(self) -> int:
        return sum(k.deleted for k in self.kinds.values())

    def summary(self) -> str:
        return f"{self.created} created, {self.updated} updated, {self.deleted} deleted"


def sync_fields(obj: models.Model, values: dict[str, Any]) -> bool:
    """Set changed fields only and save just those, so an unchanged row is not touched."""
    changed = [name for name, value in values.items() if getattr(obj, name) != value]
    for name in changed:
        setattr(obj, name, values[name])
    if changed:
        obj.save(update_fields=changed)
    return bool(changed)


def _upsert(model, existing, lookup: dict[str, Any], values: dict[str, Any], counts: KindCounts):
    if existing is None:
        counts.created += 1
        return model.objects.create(**lookup, **values)
    if sync_fields(existing, values):
        counts.updated += 1
    return existing


@dataclass
class _Tables:
    """The rows already stored, indexed the way the files identify them."""

    courses: dict[str, Course]
    modules: dict[tuple[int, str], Module]
    lessons: dict[str, Lesson]
    links: dict[tuple[int, str], LessonTemplate]
    kept_modules: set[int] = field(default_factory=set)
    kept_links: set[int] = field(default_factory=set)
    new_links: list[LessonTemplate] = field(default_factory=list)

    @classmethod
    def read(cls) -> _Tables:
        return cls(
            courses={c.slug: c for c in Course.objects.all()},
            modules={(m.course_id, m.slug): m for m in Module.objects.all()},
            lessons={lesson.slug: lesson for lesson in Lesson.objects.all()},
            links={(t.lesson_id, t.template_slug): t for t in LessonTemplate.objects.all()},
        )


def curricula_load(*, data_dir: Path | str | None = None) -> LoadReport:
    """Make the curriculum tables equal to the data files, in one transaction.

    Everything is validated before the first write, so a bad file leaves the database as
    it was. Rows are matched by slug (modules by course and slug); rows the files no
    longer mention are deleted after the upserts, so a lesson that moved to another
    module keeps its row (and whatever other apps attached to it).
    """
    catalog = load_catalog(data_dir)
    report = LoadReport(data_dir=Path(data_dir) if data_dir is not None else DEFAULT_DATA_DIR)
    with transaction.atomic():
        tables = _Tables.read()
        for course_rec in catalog.courses:
            _load_course(course_rec, tables, report.kinds)
        LessonTemplate.objects.bulk_create(tables.new_links)
        report.kinds["template links"].created += len(tables.new_links)
        _delete_vanished(catalog, tables, report)
    return report


def _load_course(rec: CourseRecord, tables: _Tables, counts: dict[str, KindCounts]) -> None:
    course = _upsert(
        Course,
        tables.courses.get(rec.slug),
        {"slug": rec.slug},
        {"title": rec.title, "summary": rec.summary, "order": rec.order},
        counts["courses"],
    )
    for m_order, module_rec in enumerate(rec.modules, start=1):
        module = _upsert(
            Module,
            tables.modules.get((course.pk, module_rec.slug)),
            {"course": course, "slug": module_rec.slug},
            {"title": module_rec.title, "summary": module_rec.summary, "order": m_order},
            counts["modules"],
        )
        tables.kept_modules.add(module.pk)
        for l_order, lesson_rec in enumerate(module_rec.lessons, start=1):
            lesson = _upsert(
                Lesson,
                tables.lessons.get(lesson_rec.slug),
                {"slug": lesson_rec.slug},
                {
                    "module_id": module.pk,
                    "title": lesson_rec.title,
                    "order": l_order,
                    "minutes": lesson_rec.minutes,
                    "objectives": [objective.text for objective in lesson_rec.objectives],
                    "key_ideas": lesson_rec.key_ideas,
                    "skills": list(lesson_rec.skills),
                    "status": lesson_rec.status,
                },
                counts["lessons"],
            )
            _load_links(lesson, lesson_rec, tables, counts["template links"])


def _load_links(lesson: Lesson, rec: LessonRecord, tables: _Tables, counts: KindCounts) -> None:
    for t_order, template_slug in enumerate(rec.templates, start=1):
        link = tables.links.get((lesson.pk, template_slug))
        if link is None:
            tables.new_links.append(
                LessonTemplate(lesson=lesson, template_slug=template_slug, order=t_order)
            )
            continue
        tables.kept_links.add(link.pk)
        if sync_fields(link, {"order": t_order}):
            counts.updated += 1


def _delete_vanished(catalog: Catalog, tables: _Tables, report: LoadReport) -> None:
    # Children before parents, so each row is counted under its own kind, not cascaded.
    counts, where = report.kinds, report.data_dir
    stale_links = [link.pk for link in tables.links.values() if link.pk not in tables.kept_links]
    wanted_lessons = [lesson.slug for _c, _m, lesson in catalog.lessons()]
    wanted_courses = [course.slug for course in catalog.courses]
    counts["template links"].deleted += _delete(
        LessonTemplate.objects.filter(pk__in=stale_links), data_dir=where
    )
    counts["lessons"].deleted += _delete(
        Lesson.objects.exclude(slug__in=wanted_lessons), data_dir=where
    )
    counts["modules"].deleted += _delete(
        Module.objects.exclude(pk__in=tables.kept_modules), data_dir=where
    )
    counts["courses"].deleted += _delete(
        Course.objects.exclude(slug__in=wanted_courses), data_dir=where
    )


def _delete(queryset: models.QuerySet, *, data_dir: Path) -> int:
    """Delete and count rows of one kind, refusing clearly when other apps still need them.

    Quizzes PROTECT the course they belong to; without this the loader would die with a
    bare ProtectedError that names neither the course nor what to do about it.
    """
    try:
        _total, per_model = queryset.delete()
    except (ProtectedError, RestrictedError) as exc:
        blockers = getattr(exc, "protected_objects", None) or getattr(exc, "restricted_objects", ())
        labels = ", ".join(sorted({obj._meta.label for obj in blockers}))
        doomed = sorted(str(getattr(obj, "slug", obj)) for obj in queryset)
        kind = queryset.model._meta.verbose_name_plural
        raise CurriculumDataError(
            data_dir.name,
            f"{kind} {', '.join(doomed)} are no longer in the files but {len(blockers)} "
            f"row(s) of {labels} still refer to them; restore them in the files or remove "
            "those rows first",
        ) from None
    return per_model.get(queryset.model._meta.label, 0)
