"""Contracts of the measurement family (issue 40, build item 2): reading a per-request log
and a benchmark sweep. Our own, beyond both specs, so no reference cases;
test_templates_measurement.py holds hand-worked ones and a reader of the printed data."""

from problems.engine.template import Kind

INTEGER = Kind.INTEGER
NUMERIC = Kind.NUMERIC

SWEEP = {"deployment", "prompt_tokens", "output_tokens", "rows", "slo_ttft_ms", "slo_tpot_ms"}
SWEEP_BAD = [
    ("deployment", "llama-3.1-405b-l40s"),
    ("prompt_tokens", 0),
    ("output_tokens", 1),
    ("rows", ()),
    ("rows", ((4, 100, 50, 10), (2, 60, 40, 9))),  # concurrencies must rise
    ("slo_tpot_ms", 0),
    ("slo_ttft_ms", 1),  # no row meets it
]

CONTRACT = {
    "request-log-latency": (
        {"deployment", "concurrency", "max_tokens", "requests", "trace", "trace_ms", "e2e_request"},
        {
            "ttft_p50": ("ms", NUMERIC),
            "ttft_p99": ("ms", NUMERIC),
            "worst_gap": ("ms", NUMERIC),
            "e2e": ("s", NUMERIC),
            "completed": ("", INTEGER),
            "cancelled": ("", INTEGER),
            "failed": ("", INTEGER),
        },
        [
            ("deployment", "gpt-3-175b-l40s"),
            ("concurrency", 0),
            ("max_tokens", 1),
            ("requests", ()),
            ("trace", 99),
            ("e2e_request", 99),
            ("trace_ms", (1, 2, 3)),  # not the traced request's token times
        ],
    ),
    "sweep-knee-max-seqs": (
        SWEEP,
        {"max_num_seqs": ("", INTEGER), "tokens_per_s": ("tok/s", NUMERIC)},
        SWEEP_BAD,
    ),
    "fleet-from-sweep": (
        SWEEP | {"peak_rps", "max_util_pct"},
        {"per_replica_rps": ("req/s", NUMERIC), "replicas": ("", INTEGER)},
        [*SWEEP_BAD, ("peak_rps", 0), ("max_util_pct", 0), ("max_util_pct", 120)],
    ),
}
