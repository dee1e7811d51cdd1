"""Contracts of the second set's serving templates (templates-2.md): decode-batch-slo,
softmax-temperature, prefix-cache-ttft, decode-step-batched, moe-decode-floor."""

from __future__ import annotations

from problems.engine.template import Kind

NUMERIC, INTEGER, CHOICE = Kind.NUMERIC, Kind.INTEGER, Kind.CHOICE

CONTRACT = {
    "decode-batch-slo": (
        {"step_ms_base", "step_ms_per_seq", "tpot_slo_ms"},
        {"max_batch": ("", INTEGER), "tokens_per_s": ("tok/s", NUMERIC)},
        [("step_ms_base", -1), ("step_ms_per_seq", 0), ("tpot_slo_ms", 0), ("n_gpus", 1)],
    ),
}
CONTRACT["softmax-temperature"] = (
    {"logits", "temperature", "top_p"},
    {"p_top": ("%", NUMERIC), "nucleus": ("", INTEGER)},
    [("logits", [1.0]), ("logits", [1.0, 2.0]), ("temperature", 0), ("top_p", 1.5)],
)
CONTRACT["prefix-cache-ttft"] = (
    {"n_params", "prompt_tokens", "cached_tokens", "peak_tflops", "n_gpus", "mfu"},
    {"ttft": ("ms", NUMERIC), "saved": ("%", NUMERIC)},
    [("prompt_tokens", 0), ("cached_tokens", -1), ("cached_tokens", 10**8), ("mfu", 1.5)],
)
CONTRACT["decode-step-batched"] = (
    {
        "n_params",
        "weight_dtype",
        "n_layers",
        "n_kv_heads",
        "head_dim",
        "kv_dtype",
        "batch_size",
        "context_tokens",
        "mem_bw_tbps",
        "n_gpus",
    },
    {"step": ("ms", NUMERIC), "tokens_per_s": ("tok/s", NUMERIC)},
    [("weight_dtype", "fp7"), ("kv_dtype", "fp7"), ("batch_size", 0), ("mem_bw_tbps", 0)],
)
CONTRACT["moe-decode-floor"] = (
    {"n_total_params", "n_active_params", "weight_dtype", "mem_bw_tbps", "n_gpus"},
    {"tpot": ("ms", NUMERIC), "memory": ("GB", NUMERIC)},
    [("n_active_params", 1e13), ("weight_dtype", "fp7"), ("mem_bw_tbps", 0), ("n_gpus", 0)],
)
