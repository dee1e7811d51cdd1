"""Contracts of the numeric templates of issue 40 (build item 2) added to existing
families: arithmetic promises of the outlines beyond both specs, so they have no
reference cases; test_templates_numeric.py holds hand-worked ones."""

from problems.engine.template import Kind

CHOICE = Kind.CHOICE
INTEGER = Kind.INTEGER
NUMERIC = Kind.NUMERIC

CONTRACT = {
    "allreduce-backward-overlap": (
        {
            "accelerator",
            "grad_bytes",
            "n_gpus",
            "busbw_gbps",
            "bucket_mb",
            "forward_ms",
            "backward_ms",
        },
        {
            "step_no_overlap": ("ms", NUMERIC),
            "step_overlap": ("ms", NUMERIC),
            "efficiency": ("%", NUMERIC),
        },
        [
            ("accelerator", "tpu-v5e"),
            ("grad_bytes", 0),
            ("n_gpus", 1),
            ("busbw_gbps", 0),
            ("bucket_mb", 0),
            ("forward_ms", 0),
            ("backward_ms", -1),
        ],
    ),
}
CONTRACT["parallel-3d-plan"] = (
    {"model", "accelerator", "tp", "pp", "dp", "n_microbatches", "activations_gb"},
    {
        "memory": ("GB", NUMERIC),
        "bubble": ("%", NUMERIC),
        "tp_placement": ("", CHOICE),
    },
    [
        ("model", "llama-9000"),
        ("accelerator", "l40s"),
        ("tp", 0),
        ("pp", 0),
        ("dp", 0),
        ("n_microbatches", 0),
        ("activations_gb", -1),
    ],
)
CONTRACT["admission-limit"] = (
    {"arrival_rps", "service_s", "target_wait_s", "max_wait_s"},
    {"slots": ("", INTEGER), "queue_limit": ("", INTEGER)},
    [("arrival_rps", 0), ("service_s", 0), ("target_wait_s", 0), ("max_wait_s", -1)],
)
CONTRACT["max-tokens-concurrency"] = (
    {
        "model",
        "accelerator",
        "n_gpus",
        "weight_dtype",
        "kv_dtype",
        "gpu_mem_util",
        "prompt_tokens",
        "max_tokens_before",
        "max_tokens_after",
    },
    {"before": ("", INTEGER), "after": ("", INTEGER)},
    [
        ("model", "deepseek-v3"),
        ("accelerator", "tpu-v5e"),
        ("n_gpus", 0),
        ("weight_dtype", "int4"),
        ("kv_dtype", "fp4"),
        ("gpu_mem_util", 0),
        ("gpu_mem_util", 1.5),
        ("prompt_tokens", 0),
        ("max_tokens_before", 0),
        ("max_tokens_after", 0),
    ],
)
CONTRACT["accelerator-ranking"] = (
    {"provider", "model", "gpus", "tokens_per_s"},
    {
        "cheapest": ("", CHOICE),
        "cost": ("USD/Mtok", NUMERIC),
        "most_efficient": ("", CHOICE),
        "per_kw": ("tok/s/kW", NUMERIC),
    },
    [
        ("provider", "Azure"),
        ("model", "llama-3.1-405b"),
        ("gpus", ("b200", "b200", "h100-sxm")),
        ("gpus", ("h200", "h100-sxm", "a100-sxm-80gb")),  # Lambda lists no H200 price
        ("tokens_per_s", (0.0, 1.0, 1.0)),
    ],
)

CONTRACT["weight-offload"] = (
    {"model", "accelerator", "dtype", "offload_gib"},
    {"resident_ms": ("ms", NUMERIC), "offload_ms": ("ms", NUMERIC), "slowdown": ("", NUMERIC)},
    [("model", "gpt-3-175b"), ("accelerator", "tpu-v5e"), ("dtype", "int4"), ("offload_gib", 0)],
)
