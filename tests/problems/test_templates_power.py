"""Power family: rack-power-servers, facility-power."""

import math

from tests.problems.template_harness import slips, solve, variant


def test_rack_dgx_h100_with_cap():
    # 40 / (10.2 x 0.9) = 4.36 -> 4 servers, 32 GPUs.
    parts = solve(
        "rack-power-servers",
        {"rack_kw": 40, "server_kw": 10.2, "power_cap_fraction": 0.9, "gpus_per_server": 8},
    )
    assert parts["servers"].value == 4 and parts["gpus"].value == 32


def test_rack_floor_is_exact_at_the_boundary():
    # In floats 0.3 / 0.1 is 2.9999999999999996; the decimals say exactly 3.
    parts = solve(
        "rack-power-servers",
        {"rack_kw": 0.3, "server_kw": 0.1, "power_cap_fraction": 1, "gpus_per_server": 4},
    )
    assert parts["servers"].value == 3 and parts["gpus"].value == 12


def test_rack_names_the_real_server_and_its_slips():
    # 40 / (14.3 x 0.8) = 3.50 -> 3; uncapped 40 / 14.3 = 2.80 -> 2; rounded up 4.
    params = {"rack_kw": 40, "server_kw": 14.3, "power_cap_fraction": 0.8, "gpus_per_server": 8}
    v = variant("rack-power-servers", params)
    assert "DGX B200" in v.statement_markdown()
    assert v.parts["servers"].value == 3
    named = slips("rack-power-servers", params)
    assert named[("rounded-up", "servers")] == 4 and named[("rounded-up", "gpus")] == 32
    assert named[("cap-ignored", "servers")] == 2 and named[("cap-ignored", "gpus")] == 16


def test_facility_round_numbers():
    parts = solve(
        "facility-power",
        {"n_servers": 100, "server_kw": 10, "pue": 1.2, "utilization": 0.5, "price_per_kwh": 0.1},
    )
    assert math.isclose(parts["facility_kw"].value, 600)
    assert math.isclose(parts["annual_mwh"].value, 5256)
    assert math.isclose(parts["annual_cost"].value, 525_600)
