"""Hand-checked answers and slips for the power2 templates (gpu-power-cap, cooling-load)."""

from __future__ import annotations

import pytest

from tests.problems.template_harness import slips, solve


def test_gpu_power_cap_dgx_a100():
    # DGX A100: 6.5 kW with 8 x 400 W; capped at 300 W: 6.5 - 8 x 0.1 = 5.7 kW;
    # 40 kW / 5.7 = 7.02 -> 7 servers (uncapped 40 / 6.5 = 6.15 -> 6).
    params = {
        "server_kw": 6.5,
        "gpus_per_server": 8,
        "gpu_tdp_w": 400,
        "gpu_cap_w": 300,
        "rack_kw": 40,
    }
    parts = solve("gpu-power-cap", params)
    assert parts["capped_server"].value == pytest.approx(5.7)
    assert parts["servers"].value == 7
    named = slips("gpu-power-cap", params)
    assert named[("cap-ignored", "servers")] == 6
    assert named[("rounded-up", "servers")] == 8
    assert named[("one-gpu-capped", "capped_server")] == pytest.approx(6.4)
    assert named[("gpus-only", "capped_server")] == pytest.approx(2.4)
    assert named[("whole-server-scaled", "capped_server")] == pytest.approx(6.5 * 0.75)


def test_gpu_power_cap_exact_floor():
    # 8.0 - 8 x 0.1 = 7.2 kW exactly; 72 kW holds exactly 10, never 9 from a float.
    parts = solve(
        "gpu-power-cap",
        {"server_kw": 8.0, "gpus_per_server": 8, "gpu_tdp_w": 400, "gpu_cap_w": 300, "rack_kw": 72},
    )
    assert parts["servers"].value == 10


def test_gpu_power_cap_refuses_cap_above_tdp():
    from problems.engine import registry

    with pytest.raises(ValueError):
        registry.get("gpu-power-cap").parse_params(
            {
                "server_kw": 6.5,
                "gpus_per_server": 8,
                "gpu_tdp_w": 400,
                "gpu_cap_w": 500,
                "rack_kw": 40,
            }
        )


def test_cooling_load_two_racks():
    # 2 x 120 kW = 240 kW -> 240,000 x 3600 / 1055.05585262 BTU/h;
    # flow: 240,000 x 0.8 / (4186 x 10) = 4.5867 kg/s = 275.20 L/min.
    params = {"it_kw": 240, "delta_t_c": 10, "liquid_fraction": 0.8}
    parts = solve("cooling-load", params)
    assert parts["heat"].value == pytest.approx(818913.99195, rel=1e-9)
    assert parts["heat"].unit == "BTU/h"
    assert parts["flow"].value == pytest.approx(240_000 * 0.8 / 41_860 * 60, rel=1e-12)
    assert parts["flow"].value == pytest.approx(275.2030578, rel=1e-8)
    named = slips("cooling-load", params)
    assert named[("liquid-share-only", "heat")] == pytest.approx(818913.99195 * 0.8)
    assert named[("all-heat-to-liquid", "flow")] == pytest.approx(344.0038222, rel=1e-8)
    assert named[("btu-factor-inverted", "heat")] == pytest.approx(240_000 / 3.41214163, rel=1e-8)


def test_cooling_load_immersion_names_no_share_slips():
    named = slips("cooling-load", {"it_kw": 120, "delta_t_c": 8, "liquid_fraction": 1.0})
    assert {code for code, _ in named} == {"btu-factor-inverted"}
