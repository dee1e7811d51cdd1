"""Hand-checked answers and slips for expected-failures (templates-2.md)."""

from __future__ import annotations

import math

import pytest

from problems.engine.variants import Variant
from tests.problems.template_harness import slips, solve

SLUG = "expected-failures"


def test_a_llama3_sized_run_expects_dozens_and_none_is_no_chance():
    # 16,384 GPUs x 30 d x 24 h / 200,000 h = 58.9824 failures; e^-58.98 = 2.4e-26, so
    # 2.4e-24 %: any answer within 0.01 points of 0 is right; 200,000 / 16,384 = 12.207 h.
    params = {"n_gpus": 16384, "run_days": 30, "gpu_mtbf_h": 200000.0}
    parts = solve(SLUG, params)
    assert parts["expected"].value == pytest.approx(58.9824)
    assert parts["p_none"].value == pytest.approx(100 * math.exp(-58.9824))
    assert parts["mean_between"].value == pytest.approx(12.20703125)
    v = Variant.from_params(SLUG, params)
    assert v.grade("p_none", "0").correct and v.grade("p_none", "0.009 %").correct
    assert not v.grade("p_none", "0.02").correct
    named = slips(SLUG, params)
    assert named[("run-in-days", "expected")] == pytest.approx(16384 * 30 / 200000)
    assert named[("gpu-count-ignored", "expected")] == pytest.approx(720 / 200000)
    assert named[("chance-of-failure", "p_none")] == pytest.approx(100.0)
    assert named[("gpu-count-ignored", "mean_between")] == 200000.0
    assert named[("in-days", "mean_between")] == pytest.approx(12.20703125 / 24)
    # 1 - 58.98 floored at 0 and the fraction 2.4e-26 both read as the right 0.
    assert ("linear-chance", "p_none") not in named
    assert ("fraction-not-percent", "p_none") not in named
    # One GPU lasting 720 h of 200,000 (99.64 %) and a failure (100 %) are one answer.
    assert ("one-gpu-survives", "p_none") not in named


def test_a_small_job_has_a_real_chance_of_a_clean_run():
    # 256 GPUs x 14 d x 24 h / 150,000 h = 0.57344; e^-0.57344 = 0.56358 -> 56.358 %;
    # linear 1 - 0.57344 = 42.656 %; a failure 43.642 %; one GPU e^-(336/150000) = 99.776 %.
    params = {"n_gpus": 256, "run_days": 14, "gpu_mtbf_h": 150000.0}
    parts = solve(SLUG, params)
    assert parts["p_none"].value == pytest.approx(56.3583, rel=1e-5)
    named = slips(SLUG, params)
    assert named[("linear-chance", "p_none")] == pytest.approx(42.656)
    assert named[("chance-of-failure", "p_none")] == pytest.approx(43.6417, rel=1e-5)
    assert named[("one-gpu-survives", "p_none")] == pytest.approx(99.776, rel=1e-5)
    assert named[("fraction-not-percent", "p_none")] == pytest.approx(0.563583, rel=1e-5)
    v = Variant.from_params(SLUG, params)
    assert v.grade("p_none", "42.66").misconception == "linear-chance"
    assert v.grade("p_none", "0.5636").misconception == "fraction-not-percent"


def test_generated_runs_span_clean_chances_and_certain_failures():
    chances = [Variant.from_seed(SLUG, s).parts["p_none"].value for s in range(200)]
    assert sum(c >= 1 for c in chances) >= 40  # a real chance of none
    assert sum(c < 0.01 for c in chances) >= 40  # failures certain: plan around them


def test_two_slips_inside_the_floor_of_each_other_are_still_two_slips():
    # 512 x 14 x 24 / 25,000 = 6.88128; e^-6.88 = 0.10268 %: the linear estimate (0 %) and
    # the fraction (0.0010268) are 0.001 apart, inside the 0.01-point floor, but they are
    # different mistakes and the grader names each at its own value.
    params = {"n_gpus": 512, "run_days": 14, "gpu_mtbf_h": 25000.0}
    named = slips(SLUG, params)
    assert named[("linear-chance", "p_none")] == 0
    assert named[("fraction-not-percent", "p_none")] == pytest.approx(0.0010268, rel=1e-4)
    v = Variant.from_params(SLUG, params)
    assert v.grade("p_none", "0").misconception == "linear-chance"
    assert v.grade("p_none", "0.001027").misconception == "fraction-not-percent"
