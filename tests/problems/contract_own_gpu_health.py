"""Contracts of the gpu_health scenario templates (our own: issue 12, no reference cases)."""

from problems.engine.template import Kind

CHOICE = Kind.CHOICE
NUMERIC = Kind.NUMERIC

CONTRACT = {
    "nvidia-smi-triage": (
        {"accelerator", "fault", "gpu", "sample"},
        {"gpu": ("", CHOICE), "cause": ("", CHOICE)},
        [
            ("accelerator", "mi300x"),
            ("fault", "ecc"),
            ("gpu", 8),
            ("gpu", -1),
            ("sample", -1),
        ],
    ),
}
CONTRACT["gpu-memory-errors"] = (
    {"accelerator", "state", "gpu", "sample"},
    {"gpu": ("", CHOICE), "action": ("", CHOICE)},
    [("accelerator", "b200"), ("state", "xid"), ("gpu", 8), ("sample", 2**31)],
)
CONTRACT["dcgm-dmon-activity"] = (
    {"accelerator", "precision", "odd", "odd_gpu", "named_gpu", "sample", "generator"},
    {"gpu": ("", CHOICE), "tflops": ("TFLOP/s", NUMERIC)},
    [
        ("accelerator", "tpu-v5e"),
        ("precision", "fp4"),
        ("odd", "idle"),
        ("odd_gpu", 8),
        ("named_gpu", -1),
        ("sample", -5),
        ("generator", 3),
    ],
)
CONTRACT["amd-smi-placement"] = (
    {"layout", "ranks", "sample"},
    {"gpus": ("", Kind.INTEGER), "verdict": ("", CHOICE)},
    [("layout", "stalled"), ("ranks", 0), ("ranks", 9), ("sample", -1)],
)
CONTRACT["burn-in-acceptance"] = (
    {
        "accelerator",
        "nodes",
        "keep_pct",
        "slow",
        "diag_fail",
        "residual_fail",
        "rail_fail",
        "sample",
    },  # fmt: skip
    {"threshold": ("TFLOP/s", NUMERIC), "accepted": ("", Kind.INTEGER)},
    [
        ("accelerator", "mi300x"),
        ("nodes", 14),
        ("keep_pct", 90),
        ("slow", 4),
        ("rail_fail", 3),
        ("sample", -1),
    ],  # fmt: skip
)
