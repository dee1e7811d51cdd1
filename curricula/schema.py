"""Pydantic schemas for the curriculum data files, the slug rule, and the one reader.

The YAML files in curricula/data are edited by hand and are the source of truth; the
database copy exists for admin and the API. Both the loader and the file-based coverage
report go through `load_catalog`, so they can never disagree about what a valid file is.

Errors surface as ONE `CurriculumDataError` naming file, record and field, because the
person reading it has a YAML file open and needs to know exactly where to look.

The slug rule
-------------
Every slug is derived from its title by `slugify_title` and is written out in the file
anyway, so a URL never changes behind an editor's back when a title is reworded: the
loader refuses the file until the slug is updated deliberately.

    lower-case; apostrophes vanish ("model's" -> "models"); "&" and every other run of
    characters that is not a-z or 0-9 becomes one hyphen; no leading or trailing hyphen.

    "GPU Memory Math"                         -> gpu-memory-math
    "AI Networking: InfiniBand & RoCE"        -> ai-networking-infiniband-roce
    "Prefill, Decode and the Cost of a Token" -> prefill-decode-and-the-cost-of-a-token

Course and module slugs are exactly `slugify_title(title)` (module slugs are unique only
within their course). Lesson slugs are global, because /api/lessons/{slug}/ and the
templates' `lessons` tuples name a lesson without its course. So when two courses have a
lesson whose titles slugify alike, the lesson of the LATER course (higher `order`) is
prefixed with its course slug:

    "<course-slug>-<slugify_title(title)>"

The earliest course keeps the short slug, which means adding a course never renames a
lesson that already exists. Within one course, two lessons with the same slugified title
are an error: no prefix could tell them apart.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)

from curricula.objectives import ObjectiveRecord, capstone_shaped, known_refs

SCHEMA_VERSION = 1
DEFAULT_DATA_DIR = Path(__file__).resolve().parent / "data"

# The contract in spec/templates.md: these slugs exist and every one must be taught by at
# least one lesson. Kept here (not derived from the registry) so a template that vanishes
# from the registry is noticed instead of silently shrinking the requirement.
CORE_TEMPLATE_SLUGS: tuple[str, ...] = (
    "weights-memory",
    "training-memory-adam",
    "kv-cache-per-token",
    "kv-cache-total",
    "kv-max-sequences",
    "allreduce-ring-time",
    "nccl-busbw",
    "checkpoint-young",
    "checkpoint-daly",
    "checkpoint-write-time",
    "failure-goodput",
    "rack-power-servers",
    "facility-power",
    "roofline-ridge",
    "roofline-attainable",
    "decode-tpot-floor",
    "prefill-time",
    "training-time",
    "spec-decode",
    "littles-law",
    "tp-min-gpus",
    "gb-gib",
)

_KEBAB = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
Slug = Annotated[StrictStr, Field(pattern=_KEBAB, max_length=100)]
SkillName = Annotated[StrictStr, Field(pattern=_KEBAB, max_length=64)]
TemplateSlug = Annotated[StrictStr, Field(pattern=_KEBAB, max_length=64)]
Text = Annotated[StrictStr, Field(min_length=1)]
Title = Annotated[StrictStr, Field(min_length=1, max_length=200)]
LessonStatus = Literal["ready", "planned"]

# libyaml's loader when present: same safe subset, several times faster on every load.
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_APOSTROPHES = re.compile(r"['\u2019]")
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def slugify_title(title: str) -> str:
    """Apply the slug rule in the module docstring to one title."""
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    without_apostrophes = _APOSTROPHES.sub("", ascii_title.lower())
    return _NOT_ALNUM.sub("-", without_apostrophes).strip("-")


def prefixed_lesson_slug(course_slug: str, title: str) -> str:
    """The slug a lesson takes when an earlier course already has its title."""
    return f"{course_slug}-{slugify_title(title)}"


def known_template_slugs() -> frozenset[str]:
    """Slugs the problem registry serves, templates and incident drills: the only
    questions a lesson may name.

    Imported late so that reading this module never pulls in every template module.
    """
    from problems.drills import registry as drills
    from problems.engine import registry

    return frozenset(registry.slugs()) | frozenset(drills.slugs())


class FieldProblem(ValueError):
    """A model-level failure that belongs to one field, so the message can point at it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _check_title_slug(slug: str, title: str) -> None:
    expected = slugify_title(title)
    if slug != expected:
        raise FieldProblem(
            "slug", f"{slug!r} does not follow the slug rule for its title; expected {expected!r}"
        )


class LessonRecord(_Strict):
    slug: Slug
    title: Title
    # Null where the outline gives no duration: an invented number would look like a fact.
    minutes: Annotated[StrictInt, Field(gt=0, le=240)] | None
    status: LessonStatus
    # What the learner can do afterwards, each naming what tests it (curricula/objectives.py).
    objectives: Annotated[list[ObjectiveRecord], Field(min_length=1)]
    # Required: the page's "Key ideas" (Markdown with $LaTeX$), the two or three formulas
    # or facts the lesson's problems test. A lesson without them would open on a practice
    # box with nothing to read first, so the loader refuses it.
    key_ideas: Text
    skills: Annotated[list[SkillName], Field(min_length=1)]
    templates: list[TemplateSlug] = Field(default_factory=list)

    @field_validator("skills", "templates")
    @classmethod
    def _no_repeats(cls, value: list[str]) -> list[str]:
        seen: set[str] = set()
        for item in value:
            if item in seen:
                raise ValueError(f"{item!r} is listed twice")
            seen.add(item)
        return value

    @field_validator("key_ideas")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("is blank: write the lesson's key ideas")
        return value.strip()

    @model_validator(mode="after")
    def _slug_is_title_or_prefixed(self) -> LessonRecord:
        # The exact form (plain or course-prefixed) depends on other courses, so it is
        # settled in `validate_catalog`; here only the title part is checked.
        expected = slugify_title(self.title)
        if self.slug != expected and not self.slug.endswith(f"-{expected}"):
            raise FieldProblem(
                "slug", f"{self.slug!r} does not follow the slug rule; expected {expected!r}"
            )
        return self


class ModuleRecord(_Strict):
    slug: Slug
    title: Title
    summary: Text
    lessons: Annotated[list[LessonRecord], Field(min_length=1)]

    @model_validator(mode="after")
    def _slug_matches_title(self) -> ModuleRecord:
        _check_title_slug(self.slug, self.title)
        return self


class CourseRecord(_Strict):
    """One data file: a course, its modules and their lessons, in teaching order.

    Module and lesson order is their position in the file; only courses carry an explicit
    `order`, because they live in separate files.
    """

    schema_version: Literal[1]
    slug: Slug
    title: Title
    order: Annotated[StrictInt, Field(ge=0)]
    summary: Text
    modules: Annotated[list[ModuleRecord], Field(min_length=1)]

    @model_validator(mode="after")
    def _slug_matches_title(self) -> CourseRecord:
        _check_title_slug(self.slug, self.title)
        return self

    def lessons(self) -> Iterable[tuple[ModuleRecord, LessonRecord]]:
        for module in self.modules:
            for lesson in module.lessons:
                yield module, lesson


@dataclass(frozen=True)
class Catalog:
    """Every course, validated together, ordered by `order`."""

    courses: tuple[CourseRecord, ...]
    files: dict[str, str]  # course slug -> file name, for messages

    def course(self, slug: str) -> CourseRecord:
        for course in self.courses:
            if course.slug == slug:
                return course
        raise KeyError(slug)

    def lessons(self) -> Iterable[tuple[CourseRecord, ModuleRecord, LessonRecord]]:
        for course in self.courses:
            for module, lesson in course.lessons():
                yield course, module, lesson


class CurriculumDataError(ValueError):
    """One bad spot in one data file, phrased for the person editing that file."""

    def __init__(
        self, file: str, problem: str, *, record: str | None = None, field: str | None = None
    ) -> None:
        self.file = file
        self.record = record
        self.field = field
        self.problem = problem
        parts = [file]
        if record is not None:
            parts.append(record)
        if field is not None:
            parts.append(f"field '{field}'")
        parts.append(problem)
        super().__init__(": ".join(parts))


def _name(item: Any, index: int) -> str:
    slug = item.get("slug") if isinstance(item, dict) else None
    if isinstance(slug, str) and slug:
        return f"'{slug}'"
    return f"#{index + 1}"


def _locate(document: Any, loc: tuple[Any, ...]) -> tuple[str, str | None]:
    """Follow a pydantic error location into the raw document: (record label, field)."""
    record = "course"
    node = document
    i = 0
    while (
        i + 1 < len(loc)
        and loc[i] in ("modules", "lessons")
        and isinstance(loc[i + 1], int)
        and isinstance(node, dict)
        and isinstance(node.get(loc[i]), list)
        and loc[i + 1] < len(node[loc[i]])
    ):
        kind = "module" if loc[i] == "modules" else "lesson"
        node = node[loc[i]][loc[i + 1]]
        if kind == "module":
            record = f"module {_name(node, loc[i + 1])}"
        else:
            record = f"lesson {_name(node, loc[i + 1])}"
        i += 2
    rest = [str(part) for part in loc[i:]]
    return record, ".".join(rest) or None


def _describe(error: dict[str, Any]) -> tuple[str | None, str]:
    ctx_error = (error.get("ctx") or {}).get("error")
    if isinstance(ctx_error, FieldProblem):
        return ctx_error.field, ctx_error.message
    kind = error["type"]
    if kind == "missing":
        return None, "missing"
    if kind == "extra_forbidden":
        return None, "unexpected field (not in the schema; check the spelling)"
    if kind == "string_pattern_mismatch":
        return None, f"{error.get('input')!r} is not lower-case kebab-case"
    if isinstance(ctx_error, ValueError):
        return None, str(ctx_error)
    message = error["msg"]
    return None, message[0].lower() + message[1:] if message else kind


def load_course_file(
    path: Path, *, templates: Collection[str], capstone: Collection[str] | None = None
) -> CourseRecord:
    """Read and validate one course file; raise CurriculumDataError at the first problem.

    `capstone` is the set of rubric codes an objective may name as `capstone:CODE`; by
    default any well-formed code (the capstone, a layer above, owns the rubric: a test
    holds the data's codes to it).
    """
    name = path.name
    try:
        document = yaml.load(path.read_text(encoding="utf-8"), Loader=_SafeLoader)  # noqa: S506
    except FileNotFoundError:
        raise CurriculumDataError(name, f"file not found in {path.parent}") from None
    except yaml.YAMLError as exc:
        raise CurriculumDataError(name, f"not valid YAML: {exc}") from None
    if not isinstance(document, dict):
        raise CurriculumDataError(name, "expected a mapping with schema_version, slug, ...")
    try:
        course = CourseRecord.model_validate(document)
    except ValidationError as exc:
        error = exc.errors()[0]
        record, field = _locate(document, tuple(error["loc"]))
        extra_field, problem = _describe(error)
        if extra_field:
            field = f"{field}.{extra_field}" if field else extra_field
        raise CurriculumDataError(name, problem, record=record, field=field) from None

    if path.stem != course.slug:
        raise CurriculumDataError(
            name,
            f"a course file is named after its slug: expected {course.slug}.yaml",
            record="course",
            field="slug",
        )
    for _module, lesson in course.lessons():
        for slug in lesson.templates:
            if slug not in templates:
                raise CurriculumDataError(
                    name, f"unknown template '{slug}'", record=f"lesson '{lesson.slug}'"
                )
    refs = known_refs(templates, capstone or ())
    for _module, lesson in course.lessons():
        for index, objective in enumerate(lesson.objectives):
            for ref in objective.refs:
                if ref not in refs and not (capstone is None and capstone_shaped(ref)):
                    raise CurriculumDataError(
                        name,
                        f"tested_by names '{ref}', which is no template, drill or capstone "
                        "criterion",
                        record=f"lesson '{lesson.slug}'",
                        field=f"objectives.{index}.tested_by",
                    )
    return course


def validate_catalog(courses: list[CourseRecord], files: dict[str, str]) -> Catalog:
    """Checks that need every course at once: order, and the lesson slug prefix rule."""
    courses = sorted(courses, key=lambda c: (c.order, c.slug))
    orders: dict[int, str] = {}
    for course in courses:
        if course.order in orders:
            raise CurriculumDataError(
                files[course.slug],
                f"{course.order} is also the order of course '{orders[course.order]}'",
                record="course",
                field="order",
            )
        orders[course.order] = course.slug

    # plain slugified title -> (course slug, lesson title) of the first course that has it
    first_owner: dict[str, tuple[str, str]] = {}
    seen: dict[str, str] = {}  # final lesson slug -> course slug
    for course in courses:
        file = files[course.slug]
        in_this_course: dict[str, str] = {}
        for _module, lesson in course.lessons():
            plain = slugify_title(lesson.title)
            record = f"lesson '{lesson.slug}'"
            if plain in in_this_course:
                raise CurriculumDataError(
                    file,
                    f"title slugifies like lesson '{in_this_course[plain]}' of the same course",
                    record=record,
                    field="title",
                )
            in_this_course[plain] = lesson.slug
            owner = first_owner.get(plain)
            if owner is None:
                expected = plain
                why = ""
            else:
                expected = prefixed_lesson_slug(course.slug, lesson.title)
                why = f" (earlier course '{owner[0]}' has a lesson titled {owner[1]!r})"
            if lesson.slug != expected:
                raise CurriculumDataError(
                    file, f"expected {expected!r}{why}", record=record, field="slug"
                )
            if lesson.slug in seen:
                raise CurriculumDataError(
                    file,
                    f"slug already used by a lesson of course '{seen[lesson.slug]}'",
                    record=record,
                    field="slug",
                )
            seen[lesson.slug] = course.slug
        for plain, slug in in_this_course.items():
            first_owner.setdefault(plain, (course.slug, _title_of(course, slug)))
    return Catalog(courses=tuple(courses), files=files)


def _title_of(course: CourseRecord, lesson_slug: str) -> str:
    return next(lesson.title for _m, lesson in course.lessons() if lesson.slug == lesson_slug)


def load_catalog(
    data_dir: Path | str | None = None,
    *,
    templates: Collection[str] | None = None,
    capstone: Collection[str] | None = None,
) -> Catalog:
    """Validate every course file in `data_dir` (default: the packaged data).

    `templates` is the set of template slugs a lesson may name; by default the problem
    registry's, so a typo or a template that was renamed is caught before anything loads.
    `capstone` is the rubric codes objectives may name (default: any well-formed code).
    """
    directory = Path(data_dir) if data_dir is not None else DEFAULT_DATA_DIR
    known = known_template_slugs() if templates is None else frozenset(templates)
    paths = sorted(directory.glob("*.yaml"))
    if not paths:
        raise CurriculumDataError(str(directory), "no *.yaml course files found")
    courses = [load_course_file(path, templates=known, capstone=capstone) for path in paths]
    files = {course.slug: path.name for course, path in zip(courses, paths, strict=True)}
    return validate_catalog(courses, files)
