"""The checks every template must pass, run for every registered slug.

CONTRACT below is each template's interface: its parameter names, its parts with their
units and kinds, and values its parameters must refuse. The family files
(test_templates_<family>.py) hold only what is specific to their templates.
"""

from __future__ import annotations

import random
from importlib import import_module
from pathlib import Path

import pytest

from problems.engine import registry
from problems.engine.template import Kind
from tests.problems.conftest import load_cases
from tests.problems.template_harness import (
    KEBAB,
    LESSONS,
    UNIT,
    Follows,
    assert_bad_params_refused,
    check_variant,
)

SLUGS = registry.slugs()
# The per-variant harness on seeds 0-99; test_check_sweep runs `problems check` (the
# grading, rendering and reproducibility checks, and the distinguishability gate) on 0-199.
SEEDS = range(100)
BLOCK = 30
NUMERIC, INTEGER, CHOICE = Kind.NUMERIC, Kind.INTEGER, Kind.CHOICE


INTERVAL = {"checkpoint_s", "node_mtbf_h", "n_nodes", "unit"}
KV_SHAPE = {"n_layers", "n_kv_heads", "head_dim", "kv_dtype"}

# slug -> (parameter names, {part: (unit, kind)}, [(parameter, value) to refuse]); a name
# that is not a parameter is refused as unknown.
CONTRACT = {
    # --- checkpointing
    "checkpoint-young": (
        INTERVAL,
        {"interval": (UNIT, NUMERIC), "system_mtbf": ("h", NUMERIC)},
        [("checkpoint_s", 0), ("n_nodes", 0), ("unit", "s"), ("gpus_per_node", 8)],
    ),
    "checkpoint-daly": (
        INTERVAL,
        {"interval": (UNIT, NUMERIC)},
        [("node_mtbf_h", -5), ("gpus_per_node", 8)],
    ),
    "checkpoint-write-time": (
        {"n_params", "state", "storage_bw_gbps"},
        {"size": ("GB", NUMERIC), "write_time": ("s", NUMERIC)},
        [("state", "optimizer"), ("storage_bw_gbps", 0), ("gpus_per_node", 8)],
    ),
    "failure-goodput": (
        {"interval_min", "checkpoint_min", "restart_min", "system_mtbf_h"},
        {"goodput": ("%", NUMERIC)},
        [("interval_min", 0), ("restart_min", -1), ("system_mtbf_h", 0), ("gpus_per_node", 8)],
    ),
    # --- collectives
    "allreduce-ring-time": (
        {"message_bytes", "n_gpus", "bus_bw_gbps", "latency_us", "unit"},
        {"time": (UNIT, NUMERIC)},
        [
            ("n_gpus", 0),
            ("message_bytes", 0),
            ("bus_bw_gbps", -1),
            ("latency_us", -1),
            ("unit", "min"),
            ("link", "nvlink-4"),
        ],
    ),
    "nccl-busbw": (
        {"collective", "n_gpus", "size_bytes", "time_us"},
        {"algbw": ("GB/s", NUMERIC), "busbw": ("GB/s", NUMERIC)},
        [
            ("collective", "allreduce"),
            ("collective", "all-reduce"),
            ("time_us", 0),
            ("size_bytes", -8),
            ("n_gpus", 0),
            ("link", "nvlink-4"),
        ],
    ),
    # --- kv_cache
    "kv-cache-per-token": (
        KV_SHAPE | {"unit"},
        {"per_token": (UNIT, NUMERIC)},
        [("n_layers", 0), ("kv_dtype", "fp64"), ("unit", "GB"), ("model", "llama")],
    ),
    "kv-cache-total": (
        KV_SHAPE | {"batch_size", "seq_len", "unit"},
        {"total": (UNIT, NUMERIC)},
        [("batch_size", 0), ("unit", "MiB"), ("model", "llama")],
    ),
    "kv-max-sequences": (
        KV_SHAPE | {"gpu_mem_gib", "n_gpus", "gpu_mem_util", "n_params", "weight_dtype", "seq_len"},
        {"max_seqs": ("", INTEGER)},
        [("gpu_mem_util", 1.5), ("gpu_mem_gib", -80), ("n_params", 0), ("model", "llama")],
    ),
    "tp-min-gpus": (
        {"n_params", "weight_dtype", "gpu_mem_gib", "reserve_fraction"},
        {"min_gpus": ("", INTEGER)},
        [("reserve_fraction", 1), ("weight_dtype", "fp6"), ("model", "llama")],
    ),
    # --- memory
    "weights-memory": (
        {"n_params", "precision", "unit"},
        {"weights": (UNIT, NUMERIC)},
        [("n_params", 0), ("precision", "fp6"), ("unit", "MB")],
    ),
    "training-memory-adam": (
        {"n_params", "n_gpus", "zero_stage", "unit"},
        {"per_gpu": (UNIT, NUMERIC)},
        [("n_params", -1), ("n_gpus", 0), ("zero_stage", 4), ("unit", "TB")],
    ),
    # --- power
    "rack-power-servers": (
        {"rack_kw", "server_kw", "power_cap_fraction", "gpus_per_server"},
        {"servers": ("", INTEGER), "gpus": ("", INTEGER)},
        [("rack_kw", 0), ("server_kw", -1), ("power_cap_fraction", 1.2), ("gpus_per_server", 0)],
    ),
    "facility-power": (
        {"n_servers", "server_kw", "pue", "utilization", "price_per_kwh"},
        {
            "facility_kw": ("kW", NUMERIC),
            "annual_mwh": ("MWh", NUMERIC),
            "annual_cost": ("USD", NUMERIC),
        },
        [("n_servers", 0), ("pue", 0.9), ("utilization", 1.5), ("price_per_kwh", -0.1)],
    ),
    # --- roofline
    "roofline-ridge": (
        {"peak_tflops", "mem_bw_tbps"},
        {"ridge": ("FLOP/B", NUMERIC)},
        [("peak_tflops", 0), ("mem_bw_tbps", -3.35)],
    ),
    "roofline-attainable": (
        {"peak_tflops", "mem_bw_tbps", "flops", "bytes"},
        {
            "intensity": ("FLOP/B", NUMERIC),
            "attainable": ("TFLOP/s", NUMERIC),
            "bound": ("", CHOICE),
        },
        [("peak_tflops", -1), ("mem_bw_tbps", 0), ("flops", 0), ("bytes", -1)],
    ),
    # --- serving
    "decode-tpot-floor": (
        {"n_params", "weight_dtype", "mem_bw_tbps", "n_gpus"},
        {"tpot": ("ms", NUMERIC), "tokens_per_s": ("tok/s", NUMERIC)},
        [("n_params", 0), ("weight_dtype", "fp7"), ("mem_bw_tbps", 0), ("n_gpus", 0)],
    ),
    "prefill-time": (
        {"n_params", "prompt_tokens", "peak_tflops", "n_gpus", "mfu"},
        {"ttft": ("ms", NUMERIC)},
        [("prompt_tokens", 0), ("peak_tflops", -1), ("n_gpus", 0), ("mfu", 1.5)],
    ),
    "spec-decode": (
        {"alpha", "gamma", "draft_cost"},
        {"tokens_per_step": ("", NUMERIC), "speedup": ("", NUMERIC)},
        [("alpha", 1.1), ("gamma", 0), ("draft_cost", -0.1)],
    ),
    "littles-law": (
        {"arrival_rps", "latency_s", "per_replica_concurrency"},
        {"concurrency": ("", NUMERIC), "replicas": ("", INTEGER)},
        [("arrival_rps", 0), ("latency_s", -1), ("per_replica_concurrency", 0)],
    ),
    # --- training
    "training-time": (
        {"n_params", "n_tokens", "n_gpus", "peak_tflops", "mfu"},
        {"days": ("d", NUMERIC), "gpu_hours": ("GPU-h", NUMERIC)},
        [("n_params", 0), ("n_tokens", -1), ("n_gpus", 0), ("peak_tflops", 0), ("mfu", 1.01)],
    ),
    # --- units
    "gb-gib": (
        {"value", "from_unit", "to_unit"},
        {"converted": (Follows("to_unit"), NUMERIC)},
        [("value", 0), ("from_unit", "Gb"), ("to_unit", "GiB/s")],
    ),
}
# The second set's contracts (templates-2.md), one module per family beside this file;
# contract_own_*.py hold templates of our own beyond both specs (scenario and concept
# questions), which have no reference cases: their family tests hold hand-worked ones.
OWN: set[str] = set()
for _module in sorted(Path(__file__).parent.glob("contract_*.py")):
    _contract = import_module(f"tests.problems.{_module.stem}").CONTRACT
    CONTRACT.update(_contract)
    if _module.stem.startswith("contract_own_"):
        OWN.update(_contract)
CASE_SLUGS = {c["slug"] for c in load_cases()} | {c["slug"] for c in load_cases(2)}


def test_every_template_has_a_contract():
    assert set(CONTRACT) == set(SLUGS)


@pytest.mark.parametrize("slug", SLUGS)
def test_params_and_parts_match_the_contract(slug):
    t = registry.get(slug)
    names, parts, _ = CONTRACT[slug]
    assert set(t.Params.model_fields) == names
    p = t.generate(random.Random(1))
    solved = t.solve(p)
    # The contract's parts, in its units; a template may offer more (templates.md).
    assert set(parts) <= set(solved)
    for name, (unit, kind) in parts.items():
        assert solved[name].unit == (getattr(p, unit.param) if isinstance(unit, Follows) else unit)
        assert solved[name].kind == kind
    assert t.lessons and set(t.lessons) <= LESSONS
    assert t.skills and all(KEBAB.match(s) for s in t.skills)
    # reference-cases*.jsonl have worked answers for it, or it is one of our own
    assert (slug in CASE_SLUGS) != (slug in OWN)


@pytest.mark.parametrize("slug", SLUGS)
def test_bad_params_are_refused(slug):
    assert_bad_params_refused(slug, CONTRACT[slug][2])


@pytest.mark.parametrize("first", range(SEEDS.start, SEEDS.stop, BLOCK))
@pytest.mark.parametrize("slug", SLUGS)
def test_generated_variants(slug, first):
    """Every seed through the per-variant harness (template_harness.check_variant).

    In blocks of BLOCK seeds so that parallel workers (-n 2) share the slow part evenly;
    every block names at least two slips."""
    codes: set[str] = set()
    for seed in range(first, min(first + BLOCK, SEEDS.stop)):
        codes |= check_variant(slug, seed)
    assert len(codes) >= 2
