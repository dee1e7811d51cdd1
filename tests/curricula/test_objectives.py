"""Objectives as mappings that name what tests them, and `coverage --by-objective`."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from curricula.objective_coverage import objective_report
from curricula.objectives import ObjectiveRecord
from curricula.schema import CurriculumDataError, load_catalog
from tests.curricula.capstone_rubric import capstone_titles
from tests.curricula.conftest import course_doc, lesson_doc, write_courses

TEMPLATES = frozenset({"weights-memory", "gb-gib", "drill-gpu-off-bus"})
CAPSTONE = frozenset({"replicas", "failure-test"})


def _lesson(title: str, *objectives: dict, templates=("weights-memory",)) -> dict:
    doc = lesson_doc(title, templates=templates)
    doc["objectives"] = list(objectives)
    return doc


def _objective(text: str, *refs, terms=("weights",)) -> dict:
    return {"text": text, "terms": list(terms), "tested_by": list(refs)}


def _load(tmp_path: Path, *lessons: dict):
    return load_catalog(
        write_courses(tmp_path, course_doc("Tiny Course", list(lessons))),
        templates=TEMPLATES,
        capstone=CAPSTONE,
    )


def _by_objective(data_dir: Path, *extra: str) -> tuple[int, str]:
    out = StringIO()
    try:
        call_command(
            "curricula",
            "coverage",
            "--by-objective",
            "--data-dir",
            str(data_dir),
            *extra,
            stdout=out,
        )
    except CommandError as exc:
        return exc.returncode, out.getvalue() + str(exc)
    return 0, out.getvalue()


# --- the schema ------------------------------------------------------------------------


def test_an_objective_names_templates_drills_and_capstone_criteria(tmp_path):
    catalog = _load(
        tmp_path,
        _lesson(
            "Sizing",
            _objective("Size the weights.", "weights-memory", "drill-gpu-off-bus"),
            _objective("Cover the peak.", "capstone:replicas", terms=("replicas",)),
            _objective("Name the layers.", terms=()),
        ),
    )
    (_course, _module, lesson) = next(iter(catalog.lessons()))
    assert [o.refs for o in lesson.objectives] == [
        ("weights-memory", "drill-gpu-off-bus"),
        ("capstone:replicas",),
        (),
    ]


@pytest.mark.parametrize(
    ("objective", "message"),
    [
        ("Size the weights.", "not a plain string"),
        (_objective("Size it.", "no-such-template"), "tested_by names 'no-such-template'"),
        (_objective("Size it.", "drill-no-such"), "tested_by names 'drill-no-such'"),
        (_objective("Size it.", "capstone:no-such"), "tested_by names 'capstone:no-such'"),
        (_objective("Size it.", "weights-memory", terms=()), "terms: name the key terms"),
        (
            _objective("Size it.", "weights-memory", "weights-memory"),
            "names 'weights-memory' twice",
        ),
        (
            _objective("Size it.", {"ref": "gb-gib", "reason": "two\nlines"}, terms=()),
            "one non-blank line",
        ),
        (_objective("Size it.", terms=("GB", "gb")), "a term is listed twice"),
        ({"text": "Size it.", "tested_by": [], "extra": 1}, "unexpected field"),
    ],
)
def test_bad_objectives_are_refused_where_they_are(tmp_path, objective, message):
    with pytest.raises(CurriculumDataError) as caught:
        _load(tmp_path, _lesson("Sizing", objective))
    assert "lesson 'sizing'" in str(caught.value)
    assert message in str(caught.value)


def test_a_link_with_a_reason_needs_no_terms():
    objective = ObjectiveRecord.model_validate(
        {
            "text": "Size it.",
            "tested_by": [{"ref": "gb-gib", "reason": "the conversion is the skill"}],
        }
    )
    assert objective.terms == [] and objective.tested_by[0].reason == "the conversion is the skill"


def test_capstone_codes_are_the_rubrics_own(catalog):
    codes = set(capstone_titles())
    assert {"replicas", "measurement-plan", "failure-test", "monthly-cost"} <= codes
    assert len(codes) == 15
    named = {
        ref.removeprefix("capstone:")
        for _c, _m, lesson in catalog.lessons()
        for objective in lesson.objectives
        for ref in objective.refs
        if ref.startswith("capstone:")
    }
    assert named and named <= codes


# --- the report and the command --------------------------------------------------------


def test_the_report_counts_per_course_and_names_idle_templates(tmp_path):
    catalog = _load(
        tmp_path,
        _lesson(
            "Sizing",
            _objective("Size the weights.", "weights-memory"),
            _objective("Name the layers.", terms=()),
            templates=("weights-memory", "gb-gib"),
        ),
    )
    report = objective_report(catalog)
    assert report.counts == (2, 1, 1)
    assert [row.text for row in report.untested] == ["Name the layers."]
    assert report.courses[0].idle_templates == (("sizing", "gb-gib"),)
    assert not report.ok


def test_by_objective_fails_on_an_untested_objective_and_passes_when_all_are(tmp_path):
    untested = write_courses(
        tmp_path / "untested",
        course_doc(
            "Tiny Course",
            [
                _lesson(
                    "Sizing",
                    _objective("Size the weights.", "weights-memory"),
                    _objective("Name the layers.", terms=()),
                )
            ],
        ),
    )
    status, out = _by_objective(untested)
    assert status == 1
    assert "tiny-course: 2 objectives, 1 tested, 1 untested" in out
    assert "UNTESTED sizing: Name the layers." in out
    assert out.endswith("1 of 2 objective(s) tested by nothing")

    tested = write_courses(
        tmp_path / "tested",
        course_doc(
            "Tiny Course",
            [_lesson("Sizing", _objective("Size the weights.", "weights-memory", "gb-gib"))],
        ),
    )
    status, out = _by_objective(tested)
    assert status == 0, out
    assert "All courses: 1 objectives, 1 tested, 0 untested" in out
    assert "Objective coverage OK" in out


def test_by_objective_reads_files_only_and_reports_bad_files(tmp_path):
    status, out = _by_objective(tmp_path, "--source", "db")
    assert status == 2 and "reads the data files" in out
    status, out = _by_objective(tmp_path / "nothing-here")
    assert status == 2 and "no *.yaml course files found" in out


# --- the packaged data -----------------------------------------------------------------


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def test_every_template_or_drill_that_tests_an_objective_is_practised_in_its_lesson(catalog):
    # An objective tested by a template its lesson does not offer would be tested nowhere
    # a learner of that lesson meets it.
    strays = [
        (lesson.slug, ref)
        for _c, _m, lesson in catalog.lessons()
        for objective in lesson.objectives
        for ref in objective.refs
        if not ref.startswith("capstone:") and ref not in lesson.templates
    ]
    assert strays == []


def test_capstone_criteria_test_only_the_capstone_lesson(catalog):
    holders = {
        lesson.slug
        for _c, _m, lesson in catalog.lessons()
        for objective in lesson.objectives
        if any(ref.startswith("capstone:") for ref in objective.refs)
    }
    assert holders == {"capstone-capacity-memo"}


def test_the_packaged_report_adds_up(catalog):
    report = objective_report(catalog)
    total, tested, untested = report.counts
    assert total == sum(len(lesson.objectives) for _c, _m, lesson in catalog.lessons())
    assert tested + untested == total
    assert {row.course for row in report.untested} <= {c.slug for c in catalog.courses}
