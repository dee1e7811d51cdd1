"""Contracts of the fabric scenario templates and triton-tile (issue 12), our own
templates with no reference cases."""

from problems.engine.template import Kind

NUMERIC, INTEGER, CHOICE = Kind.NUMERIC, Kind.INTEGER, Kind.CHOICE

CONTRACT = {
    "nccl-tests-readout": (
        {
            "gpu",
            "first_node",
            "busbw_peak",
            "latency_us",
            "wrong_node",
            "wrong_count",
            "threshold_gbps",
        },
        {"t_max": ("ms", NUMERIC), "node": ("", CHOICE)},
        [
            ("gpu", "b200"),
            ("threshold_gbps", 0),
            ("busbw_peak", [480.0]),
            ("wrong_node", 9),
            ("wrong_count", -1),
            ("n_ranks", 8),
        ],
    ),
    "topo-matrix": (
        {
            "gpu",
            "gpu_socket",
            "gpu_group",
            "nic_socket",
            "nic_group",
            "group_path",
            "ask_gpu",
            "path_from",
            "path_to",
        },
        {"nic": ("", CHOICE), "path": ("", CHOICE), "sys_pairs": ("", INTEGER)},
        [
            ("gpu", "mi300x"),
            ("group_path", "NODE"),
            ("gpu_socket", [0, 2]),
            ("ask_gpu", 9),
            ("path_from", "GPU12"),
            ("path_to", "CPU0"),
            ("server", "dgx-h100"),
        ],
    ),
    "triton-tile": (
        {"gpu", "dtype", "block_m", "block_n", "block_k", "num_stages"},
        {"intensity": ("FLOP/B", NUMERIC), "smem": ("KiB", NUMERIC), "fits": ("", CHOICE)},
        [
            ("gpu", "l40s"),
            ("dtype", "fp64"),
            ("block_m", 0),
            ("block_k", 1024),
            ("num_stages", 0),
            ("num_warps", 4),
        ],
    ),
}
