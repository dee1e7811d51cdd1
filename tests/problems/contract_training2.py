"""Contracts of the second set's training templates (templates-2.md)."""

from __future__ import annotations

from problems.engine.template import Kind
from tests.problems.template_harness import UNIT

NUMERIC, INTEGER, CHOICE = Kind.NUMERIC, Kind.INTEGER, Kind.CHOICE

CONTRACT = {
    "mfu-from-throughput": (
        {"n_params", "tokens_per_s", "n_gpus", "peak_tflops"},
        {"achieved_tflops": ("TFLOP/s", NUMERIC), "mfu": ("%", NUMERIC)},
        [("n_params", 0), ("tokens_per_s", -1), ("n_gpus", 0), ("peak_tflops", 0)],
    ),
    "pipeline-bubble": (
        {"n_stages", "n_microbatches", "virtual_stages"},
        {"bubble": ("%", NUMERIC)},
        [("n_stages", 1), ("n_microbatches", 0), ("virtual_stages", 0)],
    ),
    "param-count-dense": (
        {
            "vocab",
            "hidden",
            "n_layers",
            "n_heads",
            "n_kv_heads",
            "head_dim",
            "intermediate",
            "tied",
        },
        {"params": ("", NUMERIC)},
        [("vocab", 0), ("hidden", 0), ("n_layers", 0), ("n_kv_heads", 0), ("tied", "maybe")],
    ),
    "activation-memory": (
        {"seq_len", "micro_batch", "hidden", "n_heads", "n_layers", "tp", "scheme", "unit"},
        {"per_gpu": (UNIT, NUMERIC)},
        [("seq_len", 0), ("tp", 0), ("scheme", "zero-3"), ("unit", "MB")],
    ),
}
