"""Memory family: weights-memory, training-memory-adam."""

import math

import pytest

from tests.problems.template_harness import slips, solve, variant

ZERO = {"n_params": 7.5e9, "n_gpus": 64, "unit": "GB"}


@pytest.mark.parametrize(
    ("stage", "gb"),
    # The ZeRO paper's Figure 1 example: 7.5B parameters on 64 GPUs.
    [(0, 120.0), (1, 31.40625), (2, 16.6406250), (3, 1.875)],
)
def test_zero_paper_example(stage, gb):
    value = solve("training-memory-adam", {**ZERO, "zero_stage": stage})["per_gpu"].value
    assert math.isclose(value, gb, rel_tol=1e-12)


def test_weights_gib_against_gb():
    # 70,553,706,496 x 2 bytes = 141.107 GB = 131.42 GiB.
    base = {"n_params": 70553706496, "precision": "bf16"}
    assert math.isclose(
        solve("weights-memory", {**base, "unit": "GB"})["weights"].value, 141.107412992
    )
    gib = solve("weights-memory", {**base, "unit": "GiB"})["weights"].value
    assert math.isclose(gib, 141.107412992e9 / 2**30)


def test_statements_name_the_real_model_when_the_count_is_one():
    named = variant("weights-memory", {"n_params": 70553706496, "precision": "fp8", "unit": "GB"})
    assert named.statement_markdown().startswith("Llama 3.1 70B has")
    anonymous = variant("weights-memory", {"n_params": 1.5e9, "precision": "fp8", "unit": "GB"})
    assert anonymous.statement_markdown().startswith("A model has")


def test_weights_slips():
    named = slips("weights-memory", {"n_params": 8e9, "precision": "fp8", "unit": "GiB"})
    assert math.isclose(named[("gb-vs-gib", "weights")], 8.0)
    assert math.isclose(named[("wrong-bytes-per-param", "weights")], 16e9 / 2**30)


def test_training_slips():
    named = slips("training-memory-adam", {**ZERO, "zero_stage": 1})
    assert math.isclose(named[("zero-not-applied", "per_gpu")], 120.0)
    assert math.isclose(named[("zero-stage-confused", "per_gpu")], 1.875)
    assert math.isclose(named[("weights-only", "per_gpu")], 15.0)


def test_a_slip_that_coincides_with_another_is_named_once():
    # 8 GPUs at stage 1: 16/8 = 2 bytes per parameter is also "weights only".
    named = slips("training-memory-adam", {**ZERO, "n_gpus": 8, "zero_stage": 1})
    assert ("zero-stage-confused", "per_gpu") in named
    assert ("weights-only", "per_gpu") not in named


def test_grading_names_zero_not_applied():
    v = variant("training-memory-adam", {**ZERO, "zero_stage": 3})
    result = v.grade("per_gpu", "120 GB")
    assert not result.correct and result.misconception == "zero-not-applied"
    assert v.grade("per_gpu", "1.875").correct
