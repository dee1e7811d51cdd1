"""Power family: rack-power-servers, facility-power."""

import math
import random

from problems.engine import registry
from problems.templates.power import servers_per_rack as rack
from problems.templates.power.facility_power import price_per_mwh
from problems.templates.power.servers_per_rack import RackParams
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


# --- realism (issue #11): rack space is stated and never exceeded


def _rack(seed):
    return registry.get("rack-power-servers").generate(random.Random(seed))


def test_rack_space_is_stated_and_the_answer_fits_it_over_seeds_0_199():
    heights = set()
    for seed in range(200):
        p = _rack(seed)
        v = variant("rack-power-servers", p.model_dump())
        units, height = rack.server_units(p), rack.rack_height(p)
        assert units is not None and height in (42, 48), seed  # a sourced height, stated
        n = v.parts["servers"].value
        assert n >= 1 and n * units <= height - rack.SWITCH_U, seed  # was 13 x 8U
        assert f"The rack is {height}U tall" in v.statement_markdown(), seed
        assert "Azure" not in v.statement_markdown(), seed  # no height, never drawn
        heights.add(height)
    assert heights == {42, 48}


def test_rack_space_check_can_fail():
    # 120 kW of DGX H100 capped at 80%: 14 servers x 8U = 112U, more than any rack.
    params = {"rack_kw": 120, "server_kw": 10.2, "power_cap_fraction": 0.8, "gpus_per_server": 8}
    p = RackParams(**params)
    assert rack.server_units(p) == 8 and rack.rack_height(p) is None
    assert (
        "rack space is not part of this question"
        in variant("rack-power-servers", params).statement_markdown()
    )
    # The Azure VM has no published height: never a rack server.
    assert all(s.rack_units for s in rack.rack_servers())
    assert "azure-nd-mi300x-v5" not in {s.slug for s in rack.rack_servers()}


def test_rack_space_slip_is_named():
    # 20 kW of DGX A100 (6.5 kW, 6U): power allows 3; the rack's 40U or 46U free hold 6 or 7.
    params = {"rack_kw": 20, "server_kw": 6.5, "power_cap_fraction": 1.0, "gpus_per_server": 8}
    v = variant("rack-power-servers", params)
    assert v.parts["servers"].value == 3
    named = slips("rack-power-servers", params)
    space = 7 if "48U tall" in v.statement_markdown() else 6
    assert named[("space-not-power", "servers")] == space
    assert named[("space-not-power", "gpus")] == 8 * space
    assert v.grade("servers", str(space)).misconception == "space-not-power"


# --- conventions: the price quoted per MWh in at least a third of the variants


def test_facility_price_per_mwh_in_a_third_of_variants():
    t = registry.get("facility-power")
    quoted = 0
    for seed in range(200):
        p = t.generate(random.Random(seed))
        text = t.statement(p)
        if price_per_mwh(p):
            quoted += 1
            assert "USD per MWh" in text and "USD per kWh" not in text, seed
        else:
            assert "USD per kWh" in text, seed
    assert quoted >= 200 / 3


def test_facility_price_per_mwh_slip():
    # 100 x 10 kW x 0.5 x 1.2 = 600 kW; 5,256,000 kWh at 90 USD/MWh = 473,040 USD.
    params = {"n_servers": 100, "server_kw": 10, "pue": 1.2, "utilization": 0.5}
    params["price_per_kwh"] = 0.09
    v = variant("facility-power", params)
    assert "90 USD per MWh" in v.statement_markdown()
    assert math.isclose(v.parts["annual_cost"].value, 473_040)
    assert math.isclose(
        slips("facility-power", params)[("price-per-mwh", "annual_cost")], 473_040_000
    )
    # Quoted per kWh (0.08 hashes that way), the slip is not offered.
    assert ("price-per-mwh", "annual_cost") not in slips(
        "facility-power", {**params, "price_per_kwh": 0.08}
    )
