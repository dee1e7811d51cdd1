"""CONTRACT entries for cost-per-mtok, storage-feed-rate and leaf-spine-switches
(merged into test_templates_sweep.CONTRACT)."""

from __future__ import annotations

from problems.engine.template import Kind
from tests.problems.template_harness import UNIT, Follows  # noqa: F401

NUMERIC, INTEGER, CHOICE = Kind.NUMERIC, Kind.INTEGER, Kind.CHOICE

CONTRACT = {
    "cost-per-mtok": (
        {"gpu_hour_usd", "n_gpus", "tokens_per_s"},
        {"usd_per_mtok": ("USD", NUMERIC)},
        [("gpu_hour_usd", 0), ("n_gpus", 0), ("tokens_per_s", -1), ("gpu", "h100-sxm")],
    ),
}
CONTRACT["storage-feed-rate"] = (
    {"n_gpus", "samples_per_s_per_gpu", "sample_kb", "unit"},
    {"read": (UNIT, NUMERIC), "daily": ("TB", NUMERIC)},
    [("n_gpus", 0), ("sample_kb", 0), ("unit", "TB/s"), ("samples_per_s", 10)],
)
CONTRACT["leaf-spine-switches"] = (
    {"n_endpoints", "radix"},
    {"leaves": ("", INTEGER), "spines": ("", INTEGER), "max_endpoints": ("", INTEGER)},
    [("n_endpoints", 0), ("n_endpoints", 10**6), ("radix", 63), ("radix", 0), ("tiers", 3)],
)
