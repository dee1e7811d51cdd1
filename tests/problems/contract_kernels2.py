"""The second set's contracts for tp-allreduce-layer (collectives) and cuda-occupancy
(kernels), in test_templates_sweep.py's format."""

from __future__ import annotations

from problems.engine.template import Kind

NUMERIC, INTEGER, CHOICE = Kind.NUMERIC, Kind.INTEGER, Kind.CHOICE

CONTRACT = {
    "tp-allreduce-layer": (
        {"tokens", "hidden", "act_dtype", "n_layers", "tp", "bus_bw_gbps", "mode"},
        {
            "message": ("MB", NUMERIC),
            "allreduces": ("", INTEGER),
            "time": ("ms", NUMERIC),
        },
        [
            ("tokens", 0),
            ("hidden", 0),
            ("act_dtype", "fp64"),
            ("n_layers", 0),
            ("tp", 1),
            ("bus_bw_gbps", 0),
            ("mode", "backward"),
            ("model", "llama"),
        ],
    ),
    "cuda-occupancy": (
        {
            "threads_per_block",
            "regs_per_thread",
            "smem_per_block_kib",
            "n_sms",
            "total_blocks",
            "max_threads_per_sm",
            "max_blocks_per_sm",
            "regs_per_sm",
            "smem_per_sm_kib",
        },
        {
            "blocks_per_sm": ("", INTEGER),
            "occupancy": ("%", NUMERIC),
            "waves": ("", INTEGER),
        },
        [
            ("threads_per_block", 0),
            ("threads_per_block", 2048),
            ("regs_per_thread", 0),
            ("regs_per_thread", 256),
            ("smem_per_block_kib", -1),
            ("smem_per_block_kib", 1000),
            ("n_sms", 0),
            ("total_blocks", 0),
            ("max_threads_per_sm", 0),
            ("max_blocks_per_sm", 0),
            ("regs_per_sm", 0),
            ("gpu", "h100"),
        ],
    ),
}
