"""Training family: training-time."""

import math

from hardware_db import catalog
from tests.problems.template_harness import solve, variant


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
