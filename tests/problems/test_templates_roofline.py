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


# --- conventions over seeds 0-199 (issue #11) -------------------------------------------

from problems.engine.variants import Variant  # noqa: E402

_SPARSE = "2:4 structured-sparsity figure"


def test_roofline_quotes_the_sparse_headline_in_a_third():
    for slug in ("roofline-ridge", "roofline-attainable"):
        quoted = 0
        for seed in range(200):
            v = Variant.from_seed(slug, seed)
            text = v.statement_markdown()
            if _SPARSE in text:
                quoted += 1
                assert "dense" not in text.split(_SPARSE)[0], text  # no dense peak handed over
                assert "half of it" in v.solution_markdown()
        assert quoted >= 200 / 3, (slug, quoted)


def test_ridge_sparse_headline_graded_as_the_slip():
    # The same part, either wording: the answer is the dense ridge; the headline as is is
    # the sparse-peak slip.
    v = variant("roofline-ridge", {"peak_tflops": 989.4, "mem_bw_tbps": 3.35})
    assert v.grade("ridge", "295.4").correct  # 1979 / 2 / 3.35
    assert v.grade("ridge", "590.7").misconception == "sparse-peak"


def test_attainable_sparse_roof_never_lands_on_the_bandwidth_roof():
    for seed in range(200):
        v = Variant.from_seed("roofline-attainable", seed)
        got = {(m.code, m.part): m.value for m in v.misconceptions}
        if ("sparse-peak", "attainable") in got and ("wrong-roof", "attainable") in got:
            a, b = got[("sparse-peak", "attainable")], got[("wrong-roof", "attainable")]
            assert abs(a - b) > 0.02 * max(a, b)
