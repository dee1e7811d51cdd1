"""burn-in-acceptance: a reader written here applies the statement's four criteria to
the summary table of 200 seeds (median by hand, none of the template's code) and must
reach the graded threshold and count; a batch worked by hand pins the slips."""

from __future__ import annotations

import re

import pytest

from problems.engine import registry
from problems.engine.variants import Variant
from tests.problems.template_harness import slips, solve

SLUG = "burn-in-acceptance"
_ROW = re.compile(r"^(gpu-\d{3})  (Pass|Fail) +(PASSED|FAILED) +(\d+\.\d) +mlx5_[0-7]  (\d+) Gb/s$")


def read(markdown: str) -> tuple[float, int, list[tuple]]:
    block = re.search(r"```text\n(.*?)\n```", markdown, re.S).group(1)
    rows = [_ROW.match(line).groups() for line in block.splitlines()[1:]]
    keep = int(re.search(r"at least (\d+)% of the median", markdown).group(1))
    line = int(re.search(r"90% of the (\d+) Gb/s line rate", markdown).group(1))
    speeds = sorted(float(r[3]) for r in rows)
    n = len(speeds)
    median = (speeds[n // 2 - 1] + speeds[n // 2]) / 2 if n % 2 == 0 else speeds[n // 2]
    bar = keep / 100 * median
    accepted = sum(
        1
        for _node, diag, residual, hpl, rail in rows
        if diag == "Pass" and residual == "PASSED" and float(hpl) >= bar
        and int(rail) >= 0.9 * line
    )  # fmt: skip
    return bar, accepted, rows


def test_reader_reaches_the_graded_threshold_and_count():
    for seed in range(200):
        v = Variant.from_seed(SLUG, seed)
        bar, accepted, rows = read(v.statement_markdown())
        assert len(rows) in (12, 16)
        assert bar == pytest.approx(v.parts["threshold"].value, rel=1e-9), seed
        assert accepted == v.parts["accepted"].value, seed


def test_healthy_nodes_sit_well_clear_of_the_bar_and_below_the_peak():
    # no node lands within 0.5% of the threshold: a pass or fail never hangs on rounding
    for seed in range(200):
        v = Variant.from_seed(SLUG, seed)
        bar, _, rows = read(v.statement_markdown())
        assert all(abs(float(r[3]) - bar) > 0.005 * bar for r in rows), seed


def test_h100_batch_by_hand():
    # 12 x HGX H100 (8 x 67 = 536 TFLOP/s FP64 peak per node), keep 95%, one slow node,
    # one failed diagnostic, one rail down. Threshold = 0.95 x median; the peak slip is
    # 0.95 x 536 = 509.2 TFLOP/s.
    params = {"accelerator": "h100-sxm", "nodes": 12, "keep_pct": 95, "slow": 1,
              "diag_fail": 1, "residual_fail": 0, "rail_fail": 1, "sample": 7}  # fmt: skip
    v = Variant.from_params(SLUG, params)
    bar, accepted, rows = read(v.statement_markdown())
    speeds = sorted(float(r[3]) for r in rows)
    assert v.parts["threshold"].value == pytest.approx(0.95 * (speeds[5] + speeds[6]) / 2)
    assert accepted == 9 and solve(SLUG, params)["accepted"].value == 9
    named = slips(SLUG, params)
    assert named[("threshold-from-peak", "threshold")] == pytest.approx(509.2)
    assert named[("hpl-passed-as-fast", "accepted")] == 10  # the slow node let through
    assert named[("speed-only-acceptance", "accepted")] == 11  # only the slow one refused
    assert ("rail-checks-ignored", "accepted") not in named  # also 10: named once
    assert v.grade("accepted", "11").misconception == "speed-only-acceptance"


def test_a100_nodes_have_hdr_rails():
    v = Variant.from_params(SLUG, {"accelerator": "a100-sxm-80gb", "nodes": 16, "keep_pct": 97,
                                   "slow": 0, "diag_fail": 0, "residual_fail": 0,
                                   "rail_fail": 0, "sample": 3})  # fmt: skip
    assert "eight 200 Gb/s InfiniBand rails" in v.statement_markdown()
    assert v.parts["accepted"].value == 16


@pytest.mark.parametrize(("field", "value"), [("nodes", 13), ("keep_pct", 96)])
def test_batches_and_criteria_off_the_menu_are_refused(field, value):
    params = {"accelerator": "h200", "nodes": 12, "keep_pct": 95, "slow": 0, "diag_fail": 0,
              "residual_fail": 0, "rail_fail": 0, "sample": 1, field: value}  # fmt: skip
    with pytest.raises(ValueError):
        registry.get(SLUG).parse_params(params)
