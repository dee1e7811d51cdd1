"""Contracts of the incidents templates (our own scenario and concept questions)."""

from problems.engine.template import Kind

CHOICE = Kind.CHOICE
INTEGER = Kind.INTEGER
NUMERIC = Kind.NUMERIC

CONTRACT = {
    "xid-triage": (
        {"platform", "xid", "gpu", "log_seed"},
        {"gpu": ("", INTEGER), "event": ("", CHOICE), "action": ("", CHOICE)},
        [("xid", 43), ("gpu", 8), ("platform", "dgx-h100"), ("log_seed", -1)],
    ),
    "vllm-metrics-diagnosis": (
        {
            "deployment",
            "max_num_seqs",
            "interval_s",
            "running",
            "waiting",
            "blocks_used",
            "preemptions",
            "prompt_tokens",
            "generation_tokens",
        },
        {"diagnosis": ("", CHOICE), "gen_rate": ("tok/s", NUMERIC), "kv_blocks": ("", INTEGER)},
        [
            ("interval_s", 0),
            ("max_num_seqs", 0),
            ("deployment", "llama-3.1-405b-h100"),
            ("generation_tokens", (10, 5)),
            ("waiting", (-1, 0)),
        ],
    ),
    "deployment-failure-class": (
        {"symptom", "model", "accelerator", "gpus", "detail_seed"},
        {"failure_class": ("", CHOICE), "signal": ("", CHOICE)},
        [("symptom", "disk-full"), ("gpus", 0), ("gpus", 9), ("accelerator", "tpu-v5e")],
    ),
}
