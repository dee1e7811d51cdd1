"""Contracts of the capacity-judgement family (issue 40): from users to demand, and
plans against measurements. Our own, beyond both specs, so no reference cases;
test_templates_capacity_judgement.py holds hand-worked ones."""

from problems.engine.template import Kind

NUMERIC = Kind.NUMERIC
INTEGER = Kind.INTEGER
CHOICE = Kind.CHOICE

CONTRACT = {
    "prefix-routing-hits": (
        {"replicas", "system_tokens", "turns", "message_tokens", "answer_tokens"},
        {
            "round_robin_hit": ("%", NUMERIC),
            "prefix_aware_hit": ("%", NUMERIC),
            "prefill_ratio": ("", NUMERIC),
        },
        [("replicas", 1), ("turns", 1), ("message_tokens", 0), ("answer_tokens", 0)],
    ),
    "generation-stop": (
        {
            "model",
            "scene",
            "reason",
            "stop",
            "prompt_tokens",
            "max_tokens",
            "completion_tokens",
            "request",
        },
        {"reason": ("", CHOICE), "output_tokens": ("", INTEGER)},
        [
            ("model", "gpt-5"),
            ("scene", 99),
            ("reason", "timeout"),
            ("completion_tokens", 9000),  # over max_tokens
            ("max_tokens", 16),  # under the tokens written
        ],
    ),
    "sessions-to-requests": (
        {"product", "signed_in", "active_pct", "messages_per_hour", "request_seconds"},
        {"arrival_rate": ("request/s", NUMERIC), "in_flight": ("", NUMERIC)},
        [
            ("product", 99),
            ("signed_in", 0),
            ("active_pct", 0),
            ("active_pct", 120),
            ("messages_per_hour", 0),
            ("request_seconds", 0),
        ],
    ),
}

CONTRACT["number-formats"] = (
    {"accelerator", "tensor", "wide", "narrow"},
    {"size": ("GB", NUMERIC), "speedup": ("", NUMERIC)},
    [
        ("accelerator", "tpu-v5e"),
        ("tensor", 99),
        ("narrow", "tf32"),  # not narrower than any wide format
        ("wide", "fp64"),
    ],
)

CONTRACT["fusion-traffic"] = (
    {"accelerator", "model", "tokens", "ops", "residual", "launch_us"},
    {"unfused": ("GB", NUMERIC), "fused": ("GB", NUMERIC), "saved": ("us", NUMERIC)},
    [("accelerator", "tpu-v5e"), ("model", "gpt-5"), ("tokens", 0), ("ops", 1), ("launch_us", 0)],
)

CHOICE_KIND = Kind.CHOICE
CONTRACT["loader-starvation"] = (
    {"gpus", "per_gpu", "image_kb", "storage_gbps", "workers", "decode_per_worker"},
    {
        "demand": ("image/s", NUMERIC),
        "supply": ("image/s", NUMERIC),
        "busy": ("%", NUMERIC),
        "limit": ("", CHOICE_KIND),
    },
    [("gpus", 0), ("per_gpu", 0), ("image_kb", 0), ("storage_gbps", 0), ("workers", 0)],
)

CONTRACT["power-cap-efficiency"] = (
    {"accelerator", "model", "default_watts", "cap_watts", "default_tps", "capped_tps"},
    {
        "power_saved": ("%", NUMERIC),
        "speed_lost": ("%", NUMERIC),
        "efficiency_gain": ("%", NUMERIC),
    },
    [
        ("accelerator", "tpu-v5e"),
        ("cap_watts", 5000),  # above the draw
        ("capped_tps", 1e9),  # faster when capped
        ("default_watts", 5000),  # above the TDP
    ],
)

CONTRACT["spec-decode-metrics"] = (
    {"target", "draft_dtype", "k", "drafts_before", "accepted_before", "drafts", "accepted"},
    {
        "acceptance_rate": ("%", NUMERIC),
        "acceptance_length": ("", NUMERIC),
        "draft_memory": ("GB", NUMERIC),
    },
    [("target", "gpt-5"), ("draft_dtype", "int4"), ("k", 0), ("drafts", 0), ("accepted", 10**12)],
)
