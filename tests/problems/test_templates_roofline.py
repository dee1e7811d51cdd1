"""Roofline family: roofline-ridge, roofline-attainable."""

import math
import random

from hardware_db import catalog
from problems.engine import registry
from tests.problems.template_harness import slips, solve, variant


def test_ridge_h100_uses_the_dense_peak():
    params = {"peak_tflops": 989.4, "mem_bw_tbps": 3.35}
    v = variant("roofline-ridge", params)
    assert math.isclose(v.parts["ridge"].value, 295.3432835820896, rel_tol=1e-12)
    assert "H100 SXM5" in v.statement_markdown() and "1,979" in v.statement_markdown()
    sparse = slips("roofline-ridge", params)[("sparse-peak", "ridge")]
    assert math.isclose(sparse, 1979 / 3.35, rel_tol=1e-9)


def test_generated_peaks_are_dense_figures():
    dense = {round(v / 1e12, 6) for a in catalog.accelerators() for v in a.dense_flops.values()}
    t = registry.get("roofline-ridge")
    for seed in range(100):
        assert t.generate(random.Random(seed)).peak_tflops in dense


def _attain(peak, bw, flops, moved):
    return solve(
        "roofline-attainable",
        {"peak_tflops": peak, "mem_bw_tbps": bw, "flops": flops, "bytes": moved},
    )


def test_attainable_gemv_is_memory_bound():
    parts = _attain(989.4, 3.35, 2 * 8192 * 8192, 2 * (8192 + 8192 * 8192 + 8192))
    assert parts["bound"].value == "memory"
    assert math.isclose(parts["intensity"].value, 0.999756, rel_tol=1e-5)
    assert math.isclose(parts["attainable"].value, parts["intensity"].value * 3.35)


def test_attainable_at_the_ridge_is_compute_bound():
    parts = _attain(1000, 2, 500, 1)
    assert parts["bound"].value == "compute" and parts["attainable"].value == 1000


def test_bound_is_decided_on_exact_decimals():
    # In floats 0.3 / 0.1 = 2.9999999999999996 < 3; the decimals say I equals the ridge.
    parts = _attain(3, 1, 0.3, 0.1)
    assert parts["bound"].value == "compute"
    parts = _attain(3, 1, 0.29, 0.1)
    assert parts["bound"].value == "memory"
