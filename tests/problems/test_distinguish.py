"""The distinguishability report in `problems check`: what it counts and when it fails.

A synthetic template makes the counts knowable: one slip lands within the 1% tolerance
in some variants (so applies there but is not told apart), one never changes the answer,
one is always far away. Real templates are used only with fixed parameters.
"""

import io
import json
import random

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from problems.engine import registry
from problems.engine.check import check_all
from problems.engine.distinguish import (
    GENERIC,
    TEMPLATE,
    DistinguishReport,
    format_table,
    tally_variant,
    typed,
)
from problems.engine.template import FactorHints, Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact, RelAbs
from problems.engine.variants import Variant

SLUG = "synthetic-slips"


class _SlipParams(Params):
    x: float
    n: int


class _Slips(Template):
    """y = x GB, a count n, and a word; slips chosen so the report's counts are known."""

    slug = SLUG
    title = "Synthetic slips"
    family = "test"
    Params = _SlipParams

    def generate(self, rng):
        return _SlipParams(x=rng.choice([1.0, 2.0]), n=rng.choice([3, 5]))

    def solve(self, p):
        return {
            "y": Part("y", p.x, "GB"),
            "n": Part("n", p.n, "", kind=Kind.INTEGER, tolerance=Exact()),
            "w": Part("w", "memory", "", kind=Kind.CHOICE, choices=("memory", "compute")),
        }

    def statement(self, p):
        return f"Take $x = {p.x}$."

    def solution(self, p):
        return f"$y = {p.x}$."

    def misconceptions(self, p):
        # 0.5% off when x is 1 (inside the 1% tolerance), 50% off when x is 2.
        close = p.x * (1.005 if p.x == 1.0 else 1.5)
        return [
            Misconception("close-slip", "y", close, "close"),
            Misconception("no-op", "y", p.x, "changes nothing"),
            Misconception("far-slip", "y", p.x * 3, "far"),
            Misconception("off-by-two", "n", p.n + 2, "two more"),
            Misconception("reversed", "w", "compute", "the other roof"),
        ]


class _Colliding(_Slips):
    """Split over 8 GPUs: a bits-for-bytes slip (x8) is also the per-GPU-vs-total factor."""

    slug = "synthetic-colliding"

    def factor_hints(self, p):
        return FactorHints(parallelism=8)

    def misconceptions(self, p):
        return []


class _Renamed(_Slips):
    """Declares its own name for a x60 slip, which the generic time-unit factor also is."""

    slug = "synthetic-renamed"

    def misconceptions(self, p):
        return [Misconception("seconds-as-minutes", "y", p.x * 60, "60 s in a minute")]


@pytest.fixture
def synthetic(monkeypatch):
    monkeypatch.setitem(registry._REGISTRY, SLUG, _Slips())
    return SLUG


def _seeds_with_x1(n: int) -> int:
    return sum(_Slips().generate(random.Random(s)).x == 1.0 for s in range(n))


def _rows(report: DistinguishReport) -> dict[tuple[str, str, str], object]:
    return {(r.part, r.misconception, r.source): r for r in report.rows.values()}


def test_a_slip_inside_the_tolerance_applies_but_is_not_distinguishable(synthetic):
    report = check_all(20, [synthetic])
    assert report.ok, report.failures
    rows = _rows(report.distinguish)
    x1 = _seeds_with_x1(20)
    assert 0 < x1 < 20

    close = rows[("y", "close-slip", TEMPLATE)]
    assert (close.applies, close.distinguishable) == (20, 20 - x1)
    assert close.examples and close.examples[0]["graded_as"] == "correct"
    assert close.examples[0]["typed"] == "1.005"

    assert rows[("y", "no-op", TEMPLATE)].applies == 0
    assert rows[("y", "no-op", TEMPLATE)].share is None
    for code, part in (("far-slip", "y"), ("off-by-two", "n"), ("reversed", "w")):
        row = rows[(part, code, TEMPLATE)]
        assert (row.applies, row.distinguishable) == (20, 20), code


def test_generic_factor_slips_are_counted_on_numeric_parts_only(synthetic):
    rows = _rows(check_all(10, [synthetic]).distinguish)
    generic = {(part, code) for part, code, source in rows if source == GENERIC}
    assert ("y", "gb-vs-gib") in generic and ("y", "unit-scale") in generic
    assert ("y", "fraction-vs-percent") not in generic  # GB is not a plain number
    assert not any(part in ("n", "w") for part, _ in generic)
    assert all(rows[("y", code, GENERIC)].share == 1.0 for _, code in generic)


def test_generic_slip_named_as_another_factor_is_not_distinguishable():
    report = DistinguishReport()
    tally_variant(report, Variant(_Colliding(), _SlipParams(x=2.0, n=3)), seed=0)
    rows = _rows(report)
    bits = rows[("y", "bits-vs-bytes", GENERIC)]
    assert (bits.applies, bits.distinguishable) == (1, 0)
    assert bits.examples == [{"seed": 0, "typed": "16", "graded_as": "per-gpu-vs-total"}]
    per_gpu = rows[("y", "per-gpu-vs-total", GENERIC)]  # tried first, so it wins
    assert (per_gpu.applies, per_gpu.distinguishable) == (1, 1)


def test_generic_slip_named_by_the_templates_own_code_counts_as_told_apart():
    report = DistinguishReport()
    tally_variant(report, Variant(_Renamed(), _SlipParams(x=2.0, n=3)), seed=0)
    row = _rows(report)[("y", "time-unit", GENERIC)]
    assert (row.applies, row.distinguishable, row.named_by_template) == (1, 1, 1)


def test_young_for_daly_is_not_distinguishable_when_checkpoints_are_cheap():
    """Issue #11's example: δ = 120 s, M ≈ 98 h, Young 2.5516 h against Daly 2.5294 h."""
    cheap = {"checkpoint_s": 120, "node_mtbf_h": 50000, "n_nodes": 512, "unit": "h"}
    dear = {"checkpoint_s": 3600, "node_mtbf_h": 1000, "n_nodes": 1000, "unit": "h"}
    for params, expected in ((cheap, 0), (dear, 1)):
        report = DistinguishReport()
        tally_variant(report, Variant.from_params("checkpoint-daly", params), seed=0)
        row = _rows(report)[("interval", "young-not-daly", TEMPLATE)]
        assert (row.applies, row.distinguishable) == (1, expected), params


class _Vanishing(_Slips):
    """A chance in % graded within 1% or 0.01 points, and a slip that only rescales it."""

    slug = "synthetic-vanishing"

    def solve(self, p):
        chance = 1e-20 if p.x == 1.0 else 5.0
        return {"p": Part("p", chance, "%", tolerance=RelAbs(rel=0.01, abs=0.01))}

    def misconceptions(self, p):
        chance = self.solve(p)["p"].value
        return [
            Misconception("fraction-given", "p", chance / 100, "a fraction, not a percent"),
            Misconception("doubled", "p", chance * 2, "twice the chance"),
        ]


def test_a_slip_inside_the_absolute_floor_does_not_apply():
    report = DistinguishReport()
    for x in (1.0, 2.0):
        tally_variant(report, Variant(_Vanishing(), _SlipParams(x=x, n=3)), seed=int(x))
    rows = _rows(report)
    # 1e-22 against 1e-20 %: both read as 0, so only the 5 % variant counts.
    for code in ("fraction-given", "doubled"):
        row = rows[("p", code, TEMPLATE)]
        assert (row.applies, row.distinguishable) == (1, 1), code
    assert rows[("p", "gb-vs-gib", GENERIC)].applies == 1


def test_typed_as_a_learner_would():
    y = Part("y", 1.0, "GB")
    assert typed(y, 2.5516123) == "2.552"
    assert typed(y, 12.0) == "12"
    assert typed(y, 1.23456e-7) == "1.235e-07"
    assert typed(y, "compute") == "compute"


def test_table_lists_every_row_with_its_share(synthetic):
    lines = format_table(check_all(4, [synthetic]).distinguish.sorted_rows())
    assert lines[0].split() == [
        "template",
        "part",
        "misconception",
        "source",
        "applies",
        "disting.",
        "share",
    ]
    no_op = next(line for line in lines if "no-op" in line)
    assert no_op.split()[-3:] == ["0", "0", "—"]


APPLYING = " (of those applying in at least 5 variants)"


def _check(*args: str) -> str:
    out = io.StringIO()
    call_command("problems", "check", "--slug", SLUG, *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_check_prints_the_report_and_passes_with_the_gate_off(synthetic):
    out = _check("--variants", "20", "--min-distinguishable", "0")
    assert "close-slip" in out and "far-slip" in out
    assert out.strip().endswith(": 0 failures, 0 slips under 0% distinguishable" + APPLYING)


def test_the_gate_is_on_by_default_at_90_percent(synthetic):
    with pytest.raises(CommandError) as err:
        _check("--variants", "20")
    assert err.value.returncode == 1
    assert "1 slip under 90% distinguishable" in str(err.value)


def test_threshold_exits_1_when_violated_and_0_when_met(synthetic):
    share = (20 - _seeds_with_x1(20)) / 20
    assert 0.1 < share < 0.9
    with pytest.raises(CommandError) as err:
        _check("--variants", "20", "--min-distinguishable", "0.9")
    assert err.value.returncode == 1
    assert "1 slip under 90% distinguishable" in str(err.value)
    out = _check("--variants", "20", "--min-distinguishable", "0.1")
    assert "0 slips under 10% distinguishable" in out
    # A slip that applies in fewer variants than --min-applies is not held to the share.
    out = _check("--variants", "20", "--min-distinguishable", "0.9", "--min-applies", "21")
    assert "0 slips under 90%" in out


def test_check_json_is_one_document_with_the_rows(synthetic):
    with pytest.raises(CommandError):
        call_command(
            "problems",
            "check",
            "--slug",
            SLUG,
            "--variants",
            "6",
            "--json",
            "--min-distinguishable",
            "0.95",
            stdout=(out := io.StringIO()),
        )
    data = json.loads(out.getvalue())
    assert data["ok"] is False and data["variants"] == 6 and data["failures"] == []
    found = data["distinguishability"]
    assert found["min_distinguishable"] == 0.95 and found["min_applies"] == 5
    assert {"template", "part", "misconception", "source", "applies", "share"} <= set(
        found["rows"][0]
    )
    assert [r["misconception"] for r in found["below"]] == ["close-slip"]


def test_worst_limits_the_table_to_the_lowest_shares(synthetic):
    data = json.loads(
        _check("--variants", "20", "--worst", "1", "--json", "--min-distinguishable", "0")
    )
    rows = data["distinguishability"]["rows"]
    assert [r["misconception"] for r in rows] == ["close-slip"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--min-distinguishable", "1.5"], "share from 0 to 1"),
        (["--min-distinguishable", "most"], "share from 0 to 1"),
        (["--min-applies", "0"], "at least 1"),
        (["--worst", "x"], "--worst must be a whole number"),
    ],
)
def test_bad_check_options_exit_2(synthetic, args, needle):
    with pytest.raises(CommandError) as err:
        _check("--variants", "2", *args)
    assert err.value.returncode == 2
    assert needle in str(err.value)
