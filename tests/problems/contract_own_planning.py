"""Contracts of the planning family's own templates (issue 12): concept questions with
numbers, beyond both specs, so they have no reference cases."""

from problems.engine.template import Kind

CHOICE = Kind.CHOICE
INTEGER = Kind.INTEGER
NUMERIC = Kind.NUMERIC

CONTRACT = {
    "which-parallelism": (
        {"model", "accelerator", "workload", "weight_dtype", "reserve_pct"},
        {"strategy": ("", CHOICE), "min_gpus": ("", INTEGER)},
        [
            ("model", "llama-9000"),
            ("accelerator", "l40s"),
            ("accelerator", "gb200"),
            ("workload", "finetune"),
            ("weight_dtype", "fp32"),
            ("reserve_pct", -1),
            ("reserve_pct", 95),
        ],
    ),
    "batching-policy": (
        {
            "workload",
            "arrival_rps",
            "batch_size",
            "max_wait_ms",
            "prompt_tokens",
            "prefill_tok_s",
            "output_tokens",
            "decode_step_ms",
            "ttft_slo_ms",
            "tpot_slo_ms",
        },
        {"fill_wait": ("ms", NUMERIC), "policy": ("", CHOICE)},
        [
            ("workload", "training"),
            ("arrival_rps", 0),
            ("batch_size", 1),
            ("max_wait_ms", 0),
            ("prefill_tok_s", 0),
            ("ttft_slo_ms", 0),
            ("decode_step_ms", -1),
        ],
    ),
    "retry-amplification": (
        {"client_rps", "fail_pct", "max_retries"},
        {
            "attempts": ("", NUMERIC),
            "offered_load": ("request/s", NUMERIC),
            "failed": ("%", NUMERIC),
        },
        [("client_rps", 0), ("fail_pct", 100), ("fail_pct", 0), ("max_retries", 0)],
    ),
    "cancelled-stream-waste": (
        {
            "request_rps",
            "cancel_pct",
            "streamed_tokens",
            "max_tokens",
            "prompt_tokens",
            "replica_tok_s",
            "gpus_per_replica",
            "n_replicas",
        },
        {
            "wasted_tokens": ("Mtok/h", NUMERIC),
            "gpu_hours": ("GPU-h", NUMERIC),
            "capacity_share": ("%", NUMERIC),
        },
        [
            ("request_rps", 0),
            ("cancel_pct", 101),
            ("streamed_tokens", 10**7),
            ("max_tokens", 0),
            ("replica_tok_s", 0),
            ("gpus_per_replica", 0),
            ("n_replicas", 0),
        ],
    ),
}
