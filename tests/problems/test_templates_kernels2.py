"""tp-allreduce-layer (collectives) and cuda-occupancy (kernels): hand-checked values."""

import math
import random

import pydantic
import pytest

from hardware_db import catalog
from problems.engine import registry
from tests.problems.template_harness import distinct_params, slips, solve

SEEDS = range(300)

TP = {
    "tokens": 4096,
    "hidden": 8192,
    "act_dtype": "bf16",
    "n_layers": 80,
    "tp": 4,
    "bus_bw_gbps": 450,
    "mode": "training",
}


def test_tp_by_hand():
    # 4096 x 8192 x 2 bytes = 67,108,864 bytes; 4 x 80 = 320 all-reduces in training;
    # 320 x 1.5 x 67.108864e6 / 450e9 s = 71.582788... ms
    parts = solve("tp-allreduce-layer", TP)
    assert math.isclose(parts["message"].value, 67.108864)
    assert parts["allreduces"].value == 320
    assert math.isclose(parts["time"].value, 320 * 1.5 * 67.108864e6 / 450e9 * 1000)
    forward = solve("tp-allreduce-layer", TP | {"mode": "forward"})
    assert forward["allreduces"].value == 160
    assert math.isclose(forward["time"].value, parts["time"].value / 2)


def test_tp_slips():
    s = slips("tp-allreduce-layer", TP)
    assert s[("forward-only", "allreduces")] == 160
    assert s[("elements-not-bytes", "message")] == 67.108864 / 2
    assert math.isclose(s[("activations-sharded", "message")], 67.108864 / 4)
    t = solve("tp-allreduce-layer", TP)["time"].value
    assert math.isclose(s[("allreduce-factor", "time")], t / 1.5)
    # at t = 2 the ring factor is 1: the slip changes nothing and is not named
    s2 = slips("tp-allreduce-layer", TP | {"tp": 2})
    assert ("allreduce-factor", "time") not in s2
    fwd = slips("tp-allreduce-layer", TP | {"mode": "forward"})
    assert fwd[("backward-counted", "allreduces")] == 320
    assert fwd[("one-per-layer", "allreduces")] == 80


def test_tp_variants_are_realistic():
    t = registry.get("tp-allreduce-layer")
    wild = 0
    dense: dict[tuple[int, int], list[str]] = {}
    for m in catalog.models():
        if m.n_experts is None:
            dense.setdefault((m.hidden_size, m.n_layers), []).append(m.name)
    for seed in range(200):
        p = t.generate(random.Random(seed))
        text = t.statement(p)
        assert any(name in text for name in dense[(p.hidden, p.n_layers)]), seed
        assert p.tp in (2, 4, 8) and p.bus_bw_gbps in (300.0, 450.0, 900.0)
        assert p.act_dtype in ("bf16", "fp16")
        assert "without sequence parallelism" in text
        wild += "both directions added" in text
        assert ("both directions added" in text) != ("GB/s per direction;" in text)
    assert wild >= 200 / 3  # issue #11: NVLink given as NVIDIA's bidirectional total


def test_tp_generator_varies():
    assert distinct_params("tp-allreduce-layer", SEEDS) > 150


OCC = {
    "threads_per_block": 256,
    "regs_per_thread": 64,
    "smem_per_block_kib": 48,
    "n_sms": 132,
    "total_blocks": 20000,
    "max_threads_per_sm": 2048,
    "max_blocks_per_sm": 32,
    "regs_per_sm": 65536,
    "smem_per_sm_kib": 228,
}


def test_occupancy_by_hand():
    # threads: 2048 // 256 = 8; registers: 65536 // (64 x 256) = 4; smem: 228 // 48 = 4
    # -> 4 blocks, 1024 of 2048 threads = 50%; waves: ceil(20000 / 528) = 38
    parts = solve("cuda-occupancy", OCC)
    assert parts["blocks_per_sm"].value == 4
    assert parts["occupancy"].value == 50.0
    assert parts["waves"].value == 38
    # fewer registers: shared memory binds, floor(228 / 100) = 2 blocks = 25%
    low = solve("cuda-occupancy", OCC | {"regs_per_thread": 32, "smem_per_block_kib": 100})
    assert low["blocks_per_sm"].value == 2 and low["occupancy"].value == 25.0
    # exact floor with fractional KiB: 164 / 41 = 4 exactly
    exact = solve("cuda-occupancy", OCC | {"regs_per_thread": 16, "smem_per_block_kib": 41,
                                           "smem_per_sm_kib": 164})  # fmt: skip
    assert exact["blocks_per_sm"].value == 4


def test_occupancy_slips():
    s = slips("cuda-occupancy", OCC | {"smem_per_block_kib": 0})
    # registers bind at 4; ignoring them gives the thread limit, 8 blocks = 100%
    assert s[("registers-ignored", "blocks_per_sm")] == 8
    assert s[("registers-ignored", "occupancy")] == 100.0
    assert s[("occupancy-as-block-slots", "occupancy")] == 12.5
    assert s[("one-block-per-sm", "waves")] == 152  # ceil(20000 / 132)
    assert s[("waves-floor", "waves")] == 37
    smem = slips("cuda-occupancy", OCC | {"regs_per_thread": 32, "smem_per_block_kib": 100})
    assert smem[("smem-ignored", "blocks_per_sm")] == 8


def test_a_block_that_cannot_fit_is_refused():
    with pytest.raises(pydantic.ValidationError):
        registry.get("cuda-occupancy").parse_params(
            OCC | {"regs_per_thread": 255, "threads_per_block": 1024}
        )
    with pytest.raises(pydantic.ValidationError):
        registry.get("cuda-occupancy").parse_params(OCC | {"smem_per_block_kib": 229})


def test_occupancy_variants_are_realistic():
    from problems.templates.kernels._family import GPUS

    t = registry.get("cuda-occupancy")
    for seed in range(200):
        p = t.generate(random.Random(seed))
        gpu = next(
            g for g in GPUS if g.n_sms == p.n_sms and g.limits.smem_per_sm_kib == p.smem_per_sm_kib
        )
        assert gpu.name in t.statement(p)
        assert p.threads_per_block % 32 == 0
        assert p.regs_per_thread * p.threads_per_block <= p.regs_per_sm
        assert p.smem_per_block_kib <= gpu.limits.max_smem_per_block_kib
        # every generated GPU is a catalog part
        assert gpu.slug in {a.slug for a in catalog.accelerators()}


def test_occupancy_generator_varies():
    assert distinct_params("cuda-occupancy", SEEDS) > 150
