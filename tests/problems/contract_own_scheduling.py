"""Contracts of the scheduling family (templates of our own: Slurm and Kubernetes scenario
questions, a Kubernetes concept question and Ray packing)."""

from problems.engine.template import Kind

INTEGER = Kind.INTEGER
CHOICE = Kind.CHOICE

CONTRACT = {
    "slurm-pending-job": (
        {
            "gres_type",
            "states",
            "used",
            "mine",
            "reason",
            "job_nodes",
            "job_gpus",
            "time_limit_h",
            "user_gpu_limit",
            "job_id",
        },
        {"reason": ("", CHOICE), "free_gpus": ("", INTEGER)},
        [
            ("gres_type", "v100"),
            ("reason", "Dependency"),
            ("job_gpus", 9),
            ("job_nodes", 0),
            ("used", (9, 0, 0, 0, 0, 0)),
            ("states", ("idle",)),
            ("user_gpu_limit", 0),
        ],
    ),
}
CONTRACT["k8s-pending-pod"] = (
    {
        "product",
        "gpu_nodes",
        "cpu_nodes",
        "cause",
        "gpus_per_pod",
        "pods",
        "selector",
        "tolerates",
        "quota_limit",
        "quota_used",
    },
    {"cause": ("", CHOICE), "fix": ("", CHOICE)},
    [
        ("product", "NVIDIA-V100"),
        ("cause", "oom"),
        ("gpus_per_pod", 0),
        ("gpus_per_pod", 9),
        ("gpu_nodes", 0),
        ("selector", "maybe"),
    ],
)
CONTRACT["k8s-gpu-request"] = (
    {"scenario", "gpu", "n_gpus"},
    {"mechanism": ("", CHOICE)},
    [("scenario", "mps"), ("gpu", "v100"), ("n_gpus", 0), ("n_gpus", 5000)],
)
CONTRACT["ray-gpu-packing"] = (
    {"gpu", "gpus_per_node", "cpus_per_node", "gpu_per_actor", "cpus_per_actor", "n_actors"},
    {"per_node": ("", INTEGER), "nodes": ("", INTEGER)},
    [
        ("gpu_per_actor", 0.33),
        ("gpu_per_actor", 1.5),
        ("gpu", "v100"),
        ("cpus_per_actor", 0),
        ("n_actors", 0),
        ("gpus_per_node", 0),
    ],
)
