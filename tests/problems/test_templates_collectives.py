"""Collectives family: allreduce-ring-time, nccl-busbw."""

import math
import random

import pytest

from hardware_db import catalog
from problems.engine import registry
from tests.problems.template_harness import distinct_params, slips, solve

SLUGS = ["allreduce-ring-time", "nccl-busbw"]
SEEDS = range(300)


@pytest.mark.parametrize("slug", SLUGS)
def test_the_ring_size_is_the_ranks_hint(slug):
    t = registry.get(slug)
    p = t.generate(random.Random(1))
    assert t.factor_hints(p).ranks == p.n_gpus


@pytest.mark.parametrize("slug", SLUGS)
def test_generators_vary(slug):
    assert distinct_params(slug, SEEDS) > 250


def _links():
    return {li.slug: li for li in catalog.links()}


def test_ring_variants_are_realistic():
    """Issue #11: NCCL only on NVIDIA fabrics, RCCL with a stated model on MI300X, no TPU,
    and B a sourced figure of the named fabric."""
    links = _links()
    per_link_mi300x = links["infinity-fabric-mi300x"].bw_bytes_per_s_per_direction / 7 / 1e9
    t = registry.get("allreduce-ring-time")
    keys = set()
    for seed in range(200):
        p = t.generate(random.Random(seed))
        f = t._fabric(p)
        assert f is not None, seed  # every draw is one of the fabrics it names
        keys.add(f.key)
        text = t.statement(p)
        assert 0.05 <= t.solve(p)["time"].value < 1e5  # stated in a readable unit
        assert "TPU" not in text and "ICI" not in text
        if f.key.startswith("mi300x"):
            assert "RCCL" in text and "NCCL's ring" not in text
            assert ("seven rings" in text) == (f.key == "mi300x-seven-rings")
            assert ("single ring" in text) == (f.key == "mi300x-one-ring")
            seven = 7 if f.key == "mi300x-seven-rings" else 1
            assert math.isclose(p.bus_bw_gbps, seven * per_link_mi300x)
        else:
            assert "NCCL's ring algorithm" in text and "RCCL" not in text
            slugs = {"nvlink-3", "nvlink-4", "nvlink-5", "pcie-gen4-x16", "pcie-gen5-x16"}
            if f.key in slugs:
                bw = links[f.key].bw_bytes_per_s_per_direction / 1e9
            else:  # a NIC: InfiniBand or RoCE at the stated line rate
                gbit = int(f.key.split("-")[1])
                bw = gbit / 8
                assert any(
                    li.line_rate_bits_per_s == gbit * 1e9 and li.kind == "scale-out"
                    for li in links.values()
                )
                assert p.n_gpus >= 16 and p.n_gpus % 8 == 0
            assert math.isclose(p.bus_bw_gbps, bw, rel_tol=1e-3)
    assert len(keys) == 10  # every fabric is drawn


def test_mi300x_bandwidth_models():
    t = registry.get("allreduce-ring-time")
    params = {"message_bytes": 2**26, "n_gpus": 8, "latency_us": 2.0, "unit": "us"}
    one = t.Params(bus_bw_gbps=64.0, **params)
    seven = t.Params(bus_bw_gbps=448.0, **params)
    assert t._fabric(one).key == "mi300x-one-ring"
    assert t._fabric(seven).key == "mi300x-seven-rings"
    assert "seven rings" in t.statement(seven) and "single ring" in t.statement(one)
    # Seven rings carrying a seventh each over 64 GB/s take what one ring at 448 GB/s takes.
    assert math.isclose(
        t.solve(seven)["time"].value, 28 + 1.75 * 2**26 / 7 / 64e9 * 1e6, rel_tol=1e-12
    )
    slips_ = {m.code: m.value for m in t.misconceptions(seven)}
    assert math.isclose(slips_["one-ring-of-seven"], t.solve(one)["time"].value, rel_tol=1e-12)
    # Hand-given parameters name no fabric and no library.
    other = t.Params(bus_bw_gbps=200.0, **params)
    assert t._fabric(other) is None
    assert "NCCL" not in t.statement(other) and "RCCL" not in t.statement(other)


def test_ring_conventions_are_examined():
    """In at least a third of the variants the link is given as met in the wild (NVLink as
    a bidirectional total, a NIC in Gb/s, an Infinity Fabric link at 128 GB/s both ways)."""
    t = registry.get("allreduce-ring-time")
    wild = 0
    for seed in range(200):
        p = t.generate(random.Random(seed))
        text = t.statement(p)
        if not t._wild(p):
            assert "GB/s per direction" in text
            continue
        wild += 1
        f = t._fabric(p)
        assert f"$B = {p.bus_bw_gbps:g}$" not in text  # the learner converts
        slip = {m.code: m.value for m in t.misconceptions(p)}
        code, factor = f.wild_slip[:2]
        assert math.isclose(slip[code], t._value(p, bw_factor=factor), rel_tol=1e-12)
        if f.key.startswith("nic"):
            assert f"{round(p.bus_bw_gbps * 8)} Gb/s" in text
        elif f.key.startswith("nvlink"):
            assert "both directions added" in text
    assert wild >= 200 / 3, wild


def test_ring_slips_are_kept_apart():
    t = registry.get("allreduce-ring-time")
    for seed in range(200):
        assert t._separated(t.generate(random.Random(seed))), seed
    # The check can fail: 16 MiB over NVLink 4 on 8 GPUs with 2 µs steps takes 93.2 µs,
    # of which one step is 2.1%: latency-once grades wrong but lands on latency-ignored.
    near = t.Params(message_bytes=2**24, n_gpus=8, bus_bw_gbps=450.0, latency_us=2.0, unit="us")
    assert not t._separated(near)


def test_busbw_variants_are_realistic():
    """Issue #11 Show: over seeds 0-199 algbw differs from busbw by more than 1.5% for the
    (n-1)/n collectives in at least 95% of the variants (here in all of them)."""
    per_direction = {li.bw_bytes_per_s_per_direction / 1e9 for li in catalog.links()}
    t = registry.get("nccl-busbw")
    collectives, ring, apart, quoted = set(), 0, 0, 0
    for seed in range(200):
        p = t.generate(random.Random(seed))
        collectives.add(p.collective)
        parts = t.solve(p)
        algbw, busbw = parts["algbw"].value, parts["busbw"].value
        assert busbw < 0.95 * max(per_direction)  # below the fastest link's peak
        assert p.n_gpus in (4, 8, 16, 32, 64)
        assert p.time_us == _printed(p.time_us)  # as nccl-tests prints it
        if p.collective in ("all_gather", "reduce_scatter", "alltoall"):
            ring += 1
            apart += abs(algbw - busbw) > 0.015 * busbw
        text = t.statement(p)
        if "```" in text:
            quoted += 1
            assert f"{int(p.size_bytes):12d}  {int(p.size_bytes) // 4:12d}     float" in text
            named = {(m.code, m.part): m.value for m in t.misconceptions(p)}
            assert math.isclose(named[("count-for-size", "algbw")], algbw / 4)
    assert ring >= 50 and apart >= 0.95 * ring
    assert quoted >= 200 / 3
    assert collectives == {
        "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall"
    }  # fmt: skip
    # The check can fail: at 128 ranks (n-1)/n is within 1% of 1.
    algbw, busbw = bus("all_gather", 128)
    assert abs(algbw - busbw) < 0.01 * busbw


def _printed(us):
    if us >= 10_000:
        return float(round(us))
    return round(us, 1 if us >= 100 else 2)


# --- hand-checked values ---------------------------------------------------------------


def ring(**over):
    params = {
        "message_bytes": 2**30,
        "n_gpus": 8,
        "bus_bw_gbps": 450,
        "latency_us": 0,
        "unit": "ms",
    }
    params.update(over)
    return solve("allreduce-ring-time", params)["time"].value


def test_ring_spot_values():
    # 1 GiB over NVLink 4 on 8 GPUs: 2 x 7/8 x 2^30 B / 450e9 B/s = 4.1757 ms.
    assert math.isclose(ring(), 1.75 * 2**30 / 450e9 * 1e3, rel_tol=1e-12)
    assert math.isclose(ring(unit="us"), 1000 * ring(), rel_tol=1e-12)
    assert math.isclose(ring(unit="s"), ring() / 1000, rel_tol=1e-12)
    # Latency term alone: 2(n-1) steps of alpha.
    assert math.isclose(ring(message_bytes=1e-300, latency_us=5, unit="us"), 70, rel_tol=1e-9)
    # pub-021 by hand: 30 x 5 us + 1.875 x 256e6 / 200e9 s = 0.15 ms + 2.4 ms.
    assert math.isclose(
        ring(message_bytes=256e6, n_gpus=16, bus_bw_gbps=200, latency_us=5), 2.55, rel_tol=1e-12
    )
    assert ring(n_gpus=1, latency_us=3) == 0


def bus(collective, n, size=1e9, time_us=1e4):
    params = {"collective": collective, "n_gpus": n, "size_bytes": size, "time_us": time_us}
    parts = solve("nccl-busbw", params)
    return parts["algbw"].value, parts["busbw"].value


@pytest.mark.parametrize(
    ("collective", "n", "busbw"),
    [
        ("all_reduce", 8, 175.0),
        ("all_gather", 8, 87.5),
        ("reduce_scatter", 4, 75.0),
        ("alltoall", 16, 93.75),
        ("broadcast", 64, 100.0),
        ("reduce", 2, 100.0),
        ("all_reduce", 1, 0.0),
    ],
)
def test_busbw_factors_follow_nccl_tests(collective, n, busbw):
    algbw, got = bus(collective, n)  # 1e9 B in 10 ms = 100 GB/s
    assert math.isclose(algbw, 100.0, rel_tol=1e-12)
    assert math.isclose(got, busbw, rel_tol=1e-12, abs_tol=1e-12)


def test_named_misconceptions():
    named = slips(
        "nccl-busbw", {"collective": "all_reduce", "n_gpus": 8, "size_bytes": 1e9, "time_us": 1e4}
    )
    assert math.isclose(named[("allreduce-factor", "busbw")], 87.5)
    assert math.isclose(named[("busbw-factor-omitted", "busbw")], 100)
    assert math.isclose(named[("gb-vs-gib", "algbw")], 1e11 / 2**30)
    # 64 MiB over 64 GPUs on 400 Gb/s RoCE (the NIC given in Gb/s), alpha 8 µs:
    # 126 x 8 µs = 1008 µs of latency, 1.96875 x 2^26 B / 50e9 B/s = 2642.41 µs of bandwidth.
    params = {
        "message_bytes": 2**26,
        "n_gpus": 64,
        "bus_bw_gbps": 50.0,
        "latency_us": 8.0,
        "unit": "us",
    }
    named = slips("allreduce-ring-time", params)
    right = solve("allreduce-ring-time", params)["time"].value
    assert math.isclose(right, 1008 + 1.96875 * 2**26 / 50e9 * 1e6, rel_tol=1e-12)
    assert math.isclose(named[("allreduce-factor", "time")], 1008 + 2**26 / 50e9 * 1e6)
    assert math.isclose(named[("latency-ignored", "time")], right - 1008)
    assert math.isclose(named[("full-message-per-step", "time")], 1008 + 64 * (right - 1008))
    if ("bits-vs-bytes", "time") in named:  # when the statement gives the NIC in Gb/s
        assert math.isclose(named[("bits-vs-bytes", "time")], 1008 + (right - 1008) / 8)
