"""curricula_load and `manage.py load_curricula`: the tables end up equal to the files."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from django.db.models import ProtectedError

from curricula.models import Course, Lesson, LessonTemplate, Module
from curricula.schema import CurriculumDataError, load_catalog
from curricula.services import curricula_load
from tests.curricula.conftest import LEARN, find_lesson

pytestmark = pytest.mark.django_db


def _counts(report) -> dict[str, tuple[int, int, int]]:
    return {kind: (c.created, c.updated, c.deleted) for kind, c in report.kinds.items()}


def _snapshot() -> dict:
    return {
        "courses": list(Course.objects.values_list("slug", "title", "summary", "order")),
        "modules": list(Module.objects.values_list("course__slug", "slug", "title", "order")),
        "lessons": list(
            Lesson.objects.values_list(
                "module__slug",
                "slug",
                "title",
                "order",
                "minutes",
                "objectives",
                "key_ideas",
                "skills",
                "status",
            ).order_by("slug")
        ),
        "links": list(
            LessonTemplate.objects.values_list("lesson__slug", "template_slug", "order").order_by(
                "lesson__slug", "order"
            )
        ),
    }


def test_first_load_creates_everything():
    catalog = load_catalog()
    n_links = sum(len(lesson.templates) for _c, _m, lesson in catalog.lessons())
    report = curricula_load()
    assert _counts(report) == {
        "courses": (4, 0, 0),
        "modules": (11, 0, 0),
        "lessons": (64, 0, 0),
        "template links": (n_links, 0, 0),
    }
    assert LessonTemplate.objects.count() == n_links


def test_four_courses_load_with_learn_ai_in_three_modules():
    curricula_load()
    assert list(Course.objects.values_list("slug", flat=True)) == [
        "learn-ai-infrastructure",
        "foundations-of-ai-infrastructure",
        "ai-infrastructure-llm-d-vllm-and-gpus",
        "ai-infrastructure-from-scratch",
    ]
    learn = Module.objects.filter(course__slug="learn-ai-infrastructure").order_by("order")
    assert [(m.slug, m.lessons.count()) for m in learn] == [
        ("basic", 7),
        ("intermediate", 13),
        ("advanced", 10),
    ]
    lesson = Lesson.objects.get(slug="gpu-memory-math")
    assert (lesson.module.slug, lesson.order, lesson.minutes, lesson.status) == (
        "basic",
        6,
        30,
        "ready",
    )
    assert list(lesson.template_links.order_by("order").values_list("template_slug", flat=True))[
        :2
    ] == ["weights-memory", "gb-gib"]


def test_loading_twice_changes_nothing():
    curricula_load()
    before = _snapshot()
    report = curricula_load()
    assert (report.created, report.updated, report.deleted) == (0, 0, 0)
    assert report.summary() == "0 created, 0 updated, 0 deleted"
    assert _snapshot() == before


def test_edits_are_applied_and_vanished_rows_deleted(data_dir, edit):
    curricula_load(data_dir=data_dir)
    moved_pk = Lesson.objects.get(slug="inside-a-gpu").pk

    def change(doc):
        basic, intermediate = doc["modules"][0], doc["modules"][1]
        # drop a lesson (and with it its links)
        basic["lessons"] = [x for x in basic["lessons"] if x["slug"] != "what-ai-workloads-need"]
        # move a lesson to another module
        gpu = find_lesson(doc, "inside-a-gpu")
        basic["lessons"].remove(gpu)
        intermediate["lessons"].append(gpu)
        # drop one template from a lesson and reorder the rest
        kv = find_lesson(doc, "the-kv-cache")
        kv["templates"] = ["kv-max-sequences", "kv-cache-per-token"]
        doc["summary"] = "A shorter summary."

    report = curricula_load(data_dir=edit(LEARN, change))

    assert _counts(report) == {
        "courses": (0, 1, 0),
        # basic loses two lessons, so every later basic lesson moves up; intermediate gains one
        "modules": (0, 0, 0),
        "lessons": (0, 5 + 1, 1),
        # what-ai-workloads-need's 4 links go, and the-kv-cache keeps 2 of its 8
        "template links": (0, 2, 4 + 6),
    }
    assert not Lesson.objects.filter(slug="what-ai-workloads-need").exists()
    moved = Lesson.objects.get(slug="inside-a-gpu")
    assert (moved.pk, moved.module.slug, moved.order) == (moved_pk, "intermediate", 14)
    assert list(
        LessonTemplate.objects.filter(lesson__slug="the-kv-cache")
        .order_by("order")
        .values_list("template_slug", flat=True)
    ) == ["kv-max-sequences", "kv-cache-per-token"]
    assert curricula_load(data_dir=data_dir).summary() == "0 created, 0 updated, 0 deleted"


def test_a_course_whose_file_is_gone_is_deleted(data_dir):
    curricula_load(data_dir=data_dir)
    (data_dir / "ai-infrastructure-from-scratch.yaml").unlink()
    report = curricula_load(data_dir=data_dir)
    assert report.kinds["courses"].deleted == 1
    assert report.kinds["modules"].deleted == 1
    assert report.kinds["lessons"].deleted == 6
    assert Course.objects.count() == 3


def test_a_bad_file_changes_nothing(data_dir, edit):
    curricula_load(data_dir=data_dir)
    before = _snapshot()

    def typo(doc):
        doc["summary"] = "This change must not land."
        find_lesson(doc, "gpu-memory-math")["templates"].append("weights-memroy")

    with pytest.raises(CurriculumDataError, match="unknown template 'weights-memroy'"):
        curricula_load(data_dir=edit(LEARN, typo))
    assert _snapshot() == before


def test_command_reports_counts(capsys):
    call_command("load_curricula")
    call_command("load_curricula")
    out = capsys.readouterr().out
    assert "lessons: 64 created, 0 updated, 0 deleted" in out
    assert out.rstrip().endswith("0 created, 0 updated, 0 deleted")


def test_command_turns_a_data_error_into_a_command_error(edit):
    def typo(doc):
        find_lesson(doc, "gpu-memory-math")["templates"][0] = "weights-memroy"

    with pytest.raises(CommandError) as info:
        call_command("load_curricula", "--data-dir", str(edit(LEARN, typo)))
    assert str(info.value) == (
        "learn-ai-infrastructure.yaml: lesson 'gpu-memory-math': unknown template 'weights-memroy'"
    )
    assert Course.objects.count() == 0


def test_rows_other_apps_protect_stop_the_load_with_a_clear_message(data_dir, monkeypatch):
    curricula_load(data_dir=data_dir)
    (data_dir / "ai-infrastructure-from-scratch.yaml").unlink()
    course = Course.objects.get(slug="ai-infrastructure-from-scratch")
    real_delete = type(Course.objects.all()).delete

    def protected(queryset):
        # Stand-in for a quiz whose course FK is on_delete=PROTECT.
        if queryset.model is Course:
            raise ProtectedError("protected", {course})
        return real_delete(queryset)

    monkeypatch.setattr(type(Course.objects.all()), "delete", protected)
    with pytest.raises(CurriculumDataError) as info:
        curricula_load(data_dir=data_dir)
    assert str(info.value) == (
        "data: courses ai-infrastructure-from-scratch are no longer in the files but 1 row(s) "
        "of curricula.Course still refer to them; restore them in the files or remove those "
        "rows first"
    )
    # the lessons deleted before the refusal are rolled back with it
    assert Lesson.objects.filter(module__course=course).count() == 6


def test_key_ideas_are_stored_and_an_edit_updates_only_that_lesson(data_dir, edit):
    curricula_load(data_dir=data_dir)
    record = next(
        lesson
        for _c, _m, lesson in load_catalog(data_dir).lessons()
        if lesson.slug == "the-kv-cache"
    )
    stored = Lesson.objects.get(slug="the-kv-cache")
    assert stored.key_ideas == record.key_ideas
    assert "M_{\\mathrm{token}} = 2 L H_{\\mathrm{kv}} d_h b" in stored.key_ideas
    assert Lesson.objects.filter(key_ideas="").count() == 0

    def reword(doc):
        find_lesson(doc, "the-kv-cache")["key_ideas"] = "- Keys and values: $2 L H d b$ bytes."

    report = curricula_load(data_dir=edit(LEARN, reword))
    assert report.summary() == "0 created, 1 updated, 0 deleted"
    assert Lesson.objects.get(slug="the-kv-cache").key_ideas == (
        "- Keys and values: $2 L H d b$ bytes."
    )
