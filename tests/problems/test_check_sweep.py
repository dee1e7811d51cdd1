"""The QA sweep over every template, as `problems check --variants 200` runs it."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from problems.drills import registry as drill_registry
from problems.engine import registry
from problems.engine.check import check_all
from problems.engine.template import Misconception, Params, Part, Template


@pytest.mark.parametrize("slug", registry.slugs())
def test_every_template_passes_200_variants(slug):
    """`problems check --variants 200`, one template at a time (so parallel test workers
    share it): it also prints the distinguishability report and holds the template to
    the default gate: each slip that applies in 5 or more variants is told apart in 90%."""
    out = io.StringIO()
    call_command("problems", "check", "--variants", "200", "--slug", slug, stdout=out)
    text = out.getvalue()
    assert text.strip().endswith(
        "checked 200 variants: 0 failures, 0 slips under 90% distinguishable "
        "(of those applying in at least 5 variants)"
    )
    assert f"{slug} " in text  # its rows are in the report


@pytest.mark.parametrize("slug", drill_registry.slugs())
def test_every_drill_passes_200_seeds(slug):
    """`problems check --variants 200` for one drill: outputs, ids, the evidence reader."""
    out = io.StringIO()
    call_command("problems", "check", "--variants", "200", "--slug", slug, stdout=out)
    assert "checked 0 variants and 200 drills: 0 failures" in out.getvalue()


def test_the_report_names_the_slips_of_the_templates_it_checks():
    out = io.StringIO()
    call_command(
        "problems", "check", "--variants", "20", "--slug", "checkpoint-daly",
        "--slug", "nccl-busbw", stdout=out,
    )  # fmt: skip
    text = out.getvalue()
    assert "young-not-daly" in text and "busbw-factor-omitted" in text


class _BrokenParams(Params):
    x: float


class _Broken(Template):
    """A template whose misconception equals the right answer and whose grade is wrong."""

    slug = "broken-for-check"
    title = "Broken"
    family = "test"
    Params = _BrokenParams

    def generate(self, rng):
        return _BrokenParams(x=rng.choice([1.0, 2.0]))

    def solve(self, p):
        return {"y": Part("y", float("nan"), "GB")}

    def statement(self, p):
        return "$\\frac{1}{$"

    def solution(self, p):
        return "fine"

    def misconceptions(self, p):
        return [Misconception("same", "y", 1.0, "")]


def test_check_reports_failures_and_exits_1(monkeypatch):
    monkeypatch.setitem(registry._REGISTRY, "broken-for-check", _Broken())
    report = check_all(3, ["broken-for-check"])
    assert not report.ok
    assert any("no finite answer" in f or "solve raised" in f for f in report.failures)
    with pytest.raises(CommandError) as err:
        call_command("problems", "check", "--variants", "2", "--slug", "broken-for-check")
    assert err.value.returncode == 1
