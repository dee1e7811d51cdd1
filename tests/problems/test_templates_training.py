"""Training family: training-time."""

import math

from hardware_db import catalog
from tests.problems.template_harness import slips, solve, variant


def test_training_round_numbers():
    # 6 x 1e10 x 1e12 = 6e22 FLOP at 100 x 1e15 x 0.5 = 5e16 FLOP/s: 1.2e6 s.
    parts = solve(
        "training-time",
        {"n_params": 1e10, "n_tokens": 1e12, "n_gpus": 100, "peak_tflops": 1000, "mfu": 0.5},
    )
    assert math.isclose(parts["days"].value, 1.2e6 / 86400)
    assert math.isclose(parts["gpu_hours"].value, 1.2e6 / 3600 * 100)


def test_llama3_405b_scale():
    # Llama 3.1 405B: 15.6T tokens on 16,384 H100 at 41% MFU, about 70 days of pure compute.
    parts = solve(
        "training-time",
        {
            "n_params": 405853388800,
            "n_tokens": 15.6e12,
            "n_gpus": 16384,
            "peak_tflops": 989.4,
            "mfu": 0.41,
        },
    )
    assert 60 < parts["days"].value < 80
    assert math.isclose(parts["gpu_hours"].value, parts["days"].value * 24 * 16384, rel_tol=1e-12)


def test_moe_uses_active_parameters_and_names_the_slip():
    mixtral = catalog.model("mixtral-8x7b")
    v = variant(
        "training-time",
        {
            "n_params": float(mixtral.active_params),
            "n_tokens": 2e12,
            "n_gpus": 1024,
            "peak_tflops": 989.4,
            "mfu": 0.4,
        },
    )
    assert "mixture-of-experts" in v.statement_markdown()
    days = v.parts["days"].value
    slip = next(m for m in v.misconceptions if m.code == "moe-total-params" and m.part == "days")
    assert math.isclose(slip.value / days, mixtral.total_params / mixtral.active_params)
    assert v.template.factor_hints(v.params).parallelism == 1024


# --- realism and conventions over seeds 0-199 (issue #11) ---------------------------------

from problems.engine.variants import Variant  # noqa: E402
from problems.templates.serving._family import device_noun  # noqa: E402
from problems.templates.training.pretraining_time import (  # noqa: E402
    training_hits,
    training_part,
)

_SEEDS = range(200)


def _training_variants():
    return [Variant.from_seed("training-time", seed) for seed in _SEEDS]


def test_training_part_rule_rejects_inference_parts():
    assert not training_part(catalog.accelerator("inferentia2"))
    for slug in ("h100-pcie", "h100-nvl", "l40s"):
        assert not training_part(catalog.accelerator(slug))
    for slug in ("h100-sxm", "b200", "mi300x", "gaudi3", "tpu-v5p", "tpu-v5e", "trainium2"):
        assert training_part(catalog.accelerator(slug))


def test_training_runs_only_on_training_parts_and_calls_only_gpus_gpus():
    parts_seen = set()
    for v in _training_variants():
        hits = training_hits(v.params.peak_tflops)
        assert hits, v.params
        parts_seen |= {a.slug for a, _ in hits}
        text = v.statement_markdown()
        assert "Inferentia" not in text and "PCIe" not in text and "L40S" not in text
        gpus = all(a.vendor in ("NVIDIA", "AMD") and "GCD" not in a.form_factor for a, _ in hits)
        assert ("GPU" in text.replace("GPU-h", "")) == gpus, text
        assert v.params.n_gpus not in (1000, 1024) and v.params.n_gpus % 256 == 0
    assert {"tpu-v5p", "trainium2"} & parts_seen  # non-GPU parts do appear


def test_training_quotes_the_sparse_headline_in_a_third():
    quoted = 0
    for v in _training_variants():
        text = v.statement_markdown()
        if "2:4 structured-sparsity figure" in text:
            quoted += 1
            # The dense peak is not handed over; the learner halves the headline.
            assert "dense BF16 peak of" not in text and "dense FP8 peak" not in text
            assert "half of it" in v.solution_markdown()
    assert quoted >= 200 / 3, quoted


def test_training_names_forgetting_the_device_count():
    v = variant(
        "training-time",
        {"n_params": 7e10, "n_tokens": 2e12, "n_gpus": 2048, "peak_tflops": 459, "mfu": 0.4},
    )
    text = v.statement_markdown()
    assert (
        "TPU v5p" in text and "2,048 TPU chips" in text and "GPU" not in text.replace("GPU-h", "")
    )
    got = slips("training-time", v.params.model_dump())
    assert math.isclose(got[("per-gpu-vs-total", "days")], v.parts["days"].value * 2048)


def test_device_noun_checks_can_fail():
    assert device_noun([catalog.accelerator("h100-sxm")], 8) == "GPUs"
    assert device_noun([catalog.accelerator("tpu-v5e")], 8) == "TPU chips"
    assert device_noun([catalog.accelerator("trainium2")]) == "chip"
    assert device_noun([catalog.accelerator("gaudi3")], 4) == "accelerators"
    mixed = [catalog.accelerator("h100-sxm"), catalog.accelerator("gaudi3")]
    assert device_noun(mixed, 2) == "accelerators"
    assert device_noun([catalog.accelerator("mi250x")], 2) == "accelerators"


def test_training_runs_are_sized_to_the_model():
    """5 to 120 days on at most 128 devices per billion parameters (or 256): no 7B model
    spread over thousands of devices for a day."""
    for seed in range(200):
        v = Variant.from_seed("training-time", seed)
        p = v.params
        assert p.n_gpus <= max(256, 128 * p.n_params / 1e9), seed
        assert 5 <= v.parts["days"].value <= 120, seed
