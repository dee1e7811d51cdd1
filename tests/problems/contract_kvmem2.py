"""The second set's contracts (templates-2.md) for quantized-weights, model-load-time,
kv-transfer-time and paged-kv-blocks, merged into test_templates_sweep.CONTRACT."""

from __future__ import annotations

from problems.engine.template import Kind
from tests.problems.template_harness import UNIT

NUMERIC, INTEGER, CHOICE = Kind.NUMERIC, Kind.INTEGER, Kind.CHOICE
KV_SHAPE = {"n_layers", "n_kv_heads", "head_dim", "kv_dtype"}

CONTRACT = {
    "quantized-weights": (
        {"n_params", "bits", "group_size", "scale_bytes", "unit"},
        {
            "bytes_per_param": ("B", NUMERIC),
            "weights": (UNIT, NUMERIC),
            "speedup": ("", NUMERIC),
        },
        [("n_params", 0), ("bits", 3), ("group_size", 0), ("scale_bytes", 0), ("unit", "MB")],
    ),
    "model-load-time": (
        {"n_params", "weight_dtype", "storage_gbps", "n_replicas"},
        {"load": ("s", NUMERIC)},
        [("n_params", 0), ("weight_dtype", "fp6"), ("storage_gbps", 0), ("n_replicas", 0)],
    ),
    "kv-transfer-time": (
        {"n_layers", "n_kv_heads", "head_dim", "kv_dtype", "prompt_tokens", "link_gbps", "unit"},
        {"kv": ("MB", NUMERIC), "time": (UNIT, NUMERIC)},
        [("prompt_tokens", 0), ("link_gbps", 0), ("kv_dtype", "fp6"), ("unit", "min")],
    ),
    "paged-kv-blocks": (
        {"kv_budget_gib", "block_size", "seq_len"} | KV_SHAPE,
        {
            "block": ("KiB", NUMERIC),
            "total_blocks": ("", INTEGER),
            "max_seqs": ("", INTEGER),
        },
        [("kv_budget_gib", 0), ("block_size", 0), ("seq_len", 0), ("kv_dtype", "fp6")],
    ),
}
