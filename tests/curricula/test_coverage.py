"""`manage.py curricula coverage`: every lesson tested by a template, or marked planned."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from curricula.coverage import MIN_TEMPLATES, coverage_report, rows_from_catalog
from curricula.schema import CORE_TEMPLATE_SLUGS, load_catalog
from curricula.selectors import lesson_coverage_rows
from curricula.services import curricula_load
from tests.curricula.conftest import LEARN, course_doc, find_lesson, lesson_doc, write_courses

ROOT = Path(__file__).resolve().parents[2]


def _coverage(*args: str) -> tuple[int, str]:
    """Run the command in-process: (exit status, stdout)."""
    from io import StringIO

    out = StringIO()
    try:
        call_command("curricula", "coverage", *args, stdout=out)
    except CommandError as exc:
        return exc.returncode, out.getvalue() + str(exc)
    return 0, out.getvalue()


def test_every_lesson_is_ready_and_tested_by_two_templates_or_more():
    report = coverage_report(rows_from_catalog(load_catalog()))
    assert report.gaps == () and report.planned_gaps == () and report.thin == ()
    assert all(r.status == "ready" for r in report.rows)
    assert min(len(r.templates) for r in report.rows) >= MIN_TEMPLATES == 2


def test_packaged_data_passes_with_no_planned_gap():
    status, out = _coverage()
    assert status == 0, out
    assert "Coverage OK" in out
    assert "    gpu-memory-math" in out
    assert "Planned gaps (0):" in out
    assert "THIN" not in out and "GAP" not in out


def test_a_lesson_with_one_template_fails_and_the_minimum_is_an_option(edit):
    def thin(doc):
        lesson = find_lesson(doc, "triton-kernels")
        lesson["templates"] = lesson["templates"][:1]

    data = str(edit(LEARN, thin))
    status, out = _coverage("--data-dir", data)
    assert status == 1
    assert "THIN" in out
    assert out.endswith(
        "1 lesson(s) with fewer than 2 templates: learn-ai-infrastructure/triton-kernels"
    )
    status, out = _coverage("--data-dir", data, "--min-templates", "1")
    assert status == 0, out
    status, out = _coverage("--min-templates", "0")
    assert status == 2


def test_a_ready_lesson_without_templates_fails(edit):
    def strip(doc):
        find_lesson(doc, "triton-kernels")["templates"] = []

    status, out = _coverage("--data-dir", str(edit(LEARN, strip)))
    assert status == 1
    assert "triton-kernels" in out and "GAP" in out
    assert out.endswith(
        "1 lesson(s) without templates and not marked planned: "
        "learn-ai-infrastructure/triton-kernels"
    )


def test_marking_it_planned_makes_the_gap_tolerated(edit):
    def plan(doc):
        lesson = find_lesson(doc, "triton-kernels")
        lesson["templates"], lesson["status"] = [], "planned"

    status, out = _coverage("--data-dir", str(edit(LEARN, plan)))
    assert status == 0, out
    assert "learn-ai-infrastructure/triton-kernels" in out


def test_a_core_template_no_lesson_uses_fails(tmp_path):
    all_but_one = [slug for slug in CORE_TEMPLATE_SLUGS if slug != "spec-decode"]
    doc = course_doc("Tiny Course", [lesson_doc("Everything", templates=all_but_one)])
    status, out = _coverage("--data-dir", str(write_courses(tmp_path, doc)))
    assert status == 1
    assert out.endswith("core template(s) used by no lesson: spec-decode")


def test_invalid_data_is_a_distinct_failure(edit):
    def typo(doc):
        find_lesson(doc, "gpu-memory-math")["templates"][0] = "weights-memroy"

    with pytest.raises(CommandError) as info:
        call_command("curricula", "coverage", "--data-dir", str(edit(LEARN, typo)))
    assert info.value.returncode == 2
    assert "unknown template 'weights-memroy'" in str(info.value)


@pytest.mark.django_db
def test_database_source_agrees_with_the_files():
    curricula_load()
    assert lesson_coverage_rows() == rows_from_catalog(load_catalog())
    status, out = _coverage("--source", "db")
    assert status == 0, out


@pytest.mark.django_db
def test_database_source_sees_a_gap(edit):
    def strip(doc):
        find_lesson(doc, "quantization")["templates"] = []

    curricula_load(data_dir=edit(LEARN, strip))
    status, out = _coverage("--source", "db")
    assert status == 1
    assert "learn-ai-infrastructure/quantization" in out


@pytest.mark.db_independent
def test_real_exit_codes(edit):
    """The process exit status, as CI sees it; the files source needs no database."""

    def strip(doc):
        find_lesson(doc, "triton-kernels")["templates"] = []

    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    command = [sys.executable, "manage.py", "curricula", "coverage"]
    run = dict(cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    ok = subprocess.run(command, **run)  # noqa: S603
    assert ok.returncode == 0, ok.stderr
    gap = subprocess.run([*command, "--data-dir", str(edit(LEARN, strip))], **run)  # noqa: S603
    assert gap.returncode == 1
    assert "learn-ai-infrastructure/triton-kernels" in gap.stderr
