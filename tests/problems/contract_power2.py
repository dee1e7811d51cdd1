"""Contracts of the second set's power2 templates (templates-2.md)."""

from problems.engine.template import Kind

INTEGER = Kind.INTEGER
NUMERIC = Kind.NUMERIC

CONTRACT = {
    "gpu-power-cap": (
        {"server_kw", "gpus_per_server", "gpu_tdp_w", "gpu_cap_w", "rack_kw"},
        {"capped_server": ("kW", NUMERIC), "servers": ("", INTEGER)},
        [("server_kw", 0), ("gpus_per_server", 0), ("gpu_cap_w", 1200), ("rack_kw", -1)],
    ),
    "cooling-load": (
        {"it_kw", "delta_t_c", "liquid_fraction"},
        {"heat": ("BTU/h", NUMERIC), "flow": ("L/min", NUMERIC)},
        [("it_kw", 0), ("delta_t_c", 0), ("liquid_fraction", 1.5)],
    ),
}
