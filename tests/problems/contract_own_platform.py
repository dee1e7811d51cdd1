"""Contracts of the platform family's own templates (issue 12): own-vs-rent,
gpu-chargeback, mig-sharing. No reference cases: test_templates_platform.py holds
hand-worked ones."""

from problems.engine.template import Kind

NUMERIC, INTEGER, CHOICE = Kind.NUMERIC, Kind.INTEGER, Kind.CHOICE

CONTRACT = {
    "own-vs-rent": (
        {
            "server_kw",
            "gpus_per_server",
            "capex_usd",
            "years",
            "avg_load",
            "pue",
            "kwh_usd",
            "hosting_usd_month",
            "rent_usd_gpu_h",
            "utilisation",
        },
        {
            "owned_cost": ("USD/GPU-h", NUMERIC),
            "breakeven": ("%", NUMERIC),
            "cheaper": ("", CHOICE),
        },
        [
            ("capex_usd", 0),
            ("years", 0),
            ("pue", 0.9),
            ("utilisation", 0),
            ("utilisation", 1.2),
            ("rent_usd_gpu_h", -1),
            ("avg_load", 1.5),
        ],
    ),
    "gpu-chargeback": (
        {
            "n_gpus",
            "monthly_cost_usd",
            "allocated",
            "used",
            "team",
            "policy",
            "quota_gpus",
            "running_gpus",
            "job_gpus",
            "borrow_limit",
            "idle_gpus",
        },
        {"charge": ("USD", NUMERIC), "utilisation": ("%", NUMERIC), "admission": ("", CHOICE)},
        [
            ("n_gpus", 0),
            ("monthly_cost_usd", 0),
            ("policy", "equal"),
            ("team", 7),
            ("job_gpus", 0),
            ("used", (1,)),
        ],
    ),
    "mig-sharing": (
        {"accelerator", "n_gpus", "mig_gpus", "profile", "scenario"},
        {"pods": ("", INTEGER), "mode": ("", CHOICE)},
        [
            ("accelerator", "l40s"),
            ("profile", "1g.5gb"),
            ("n_gpus", 0),
            ("mig_gpus", 17),
            ("scenario", "batch"),
        ],
    ),
}
