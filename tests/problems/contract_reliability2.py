"""Contract of the second set's expected-failures template (templates-2.md)."""

from problems.engine.template import Kind

NUMERIC = Kind.NUMERIC

CONTRACT = {
    "expected-failures": (
        {"n_gpus", "run_days", "gpu_mtbf_h"},
        {"expected": ("", NUMERIC), "p_none": ("%", NUMERIC), "mean_between": ("h", NUMERIC)},
        [("n_gpus", 0), ("run_days", 0), ("gpu_mtbf_h", -1), ("node_mtbf_h", 5000)],
    ),
}
