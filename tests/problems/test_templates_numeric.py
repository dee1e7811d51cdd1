"""Hand-worked answers and slips for the numeric templates of issue 40 added to existing
families: allreduce-backward-overlap (collectives). Every expected value below is worked
in the comment beside it from the stated numbers, not from the template's code."""

from __future__ import annotations

import math
import random

import pytest

from hardware_db import catalog
from problems.engine import registry
from tests.problems.template_harness import distinct_params, slips, solve

SLUGS = ["allreduce-backward-overlap"]
SEEDS = range(200)


@pytest.mark.parametrize("slug", SLUGS)
def test_generators_vary(slug):
    assert distinct_params(slug, SEEDS) > 150


# --- allreduce-backward-overlap ---------------------------------------------------------

LLAMA_8B_GRADS = 2 * 8_030_261_248  # 16,060,522,496 bytes of BF16 gradients


def _ov(n, busbw, bucket, fwd, bwd):
    return {
        "accelerator": "b200",
        "grad_bytes": float(LLAMA_8B_GRADS),
        "n_gpus": n,
        "busbw_gbps": busbw,
        "bucket_mb": bucket,
        "forward_ms": fwd,
        "backward_ms": bwd,
    }


def test_overlap_communication_bound_across_nodes():
    # 16 GPUs, busbw 45 GB/s: t(S) = 2 x 15/16 x 16,060,522,496 / 45e9 = 30,113,479,680 /
    # 45e9 s = 669.18843733 ms. No overlap: 100 + 200 + 669.18843733 = 969.18843733 ms.
    # Overlap: buckets before the last (S - 5e8) take 648.35510400 ms > 200 ms of backward,
    # 448.35510400 left over, plus the last bucket 1.875 x 5e8 / 45e9 = 20.83333 ms:
    # exposed 469.18843733, step 769.18843733 ms; efficiency 300 / 769.18843733 = 39.0022 %.
    # Forgetting the last bucket gives max(0, 669.188 - 200) = the same 469.188: not named.
    # busbw read as algbw: 16,060,522,496 / 45e9 = 356.90049991 ms -> no overlap 656.9005.
    params = _ov(16, 45.0, 500.0, 100.0, 200.0)
    parts = solve("allreduce-backward-overlap", params)
    assert math.isclose(parts["step_no_overlap"].value, 969.18843733, rel_tol=1e-9)
    assert math.isclose(parts["step_overlap"].value, 769.18843733, rel_tol=1e-9)
    assert math.isclose(parts["efficiency"].value, 30000 / 769.18843733, rel_tol=1e-9)
    named = slips("allreduce-backward-overlap", params)
    assert math.isclose(named[("comm-added-fully", "step_overlap")], 969.18843733)
    assert math.isclose(named[("busbw-as-algbw", "step_no_overlap")], 656.90049991)
    assert math.isclose(named[("comm-added-fully", "efficiency")], 30000 / 969.18843733)
    assert ("last-bucket-forgotten", "step_overlap") not in named


def test_overlap_hidden_inside_a_node_leaves_the_last_bucket():
    # 8 GPUs, busbw 810 GB/s, 1 GB last bucket: t(S - b) = 1.75 x 15,060,522,496 / 810e9
    # = 32.538166 ms <= 40 ms of backward: hidden. t(b) = 1.75e9 / 810e9 = 2.16049383 ms,
    # exposed. Step 20 + 40 + 2.16049383 = 62.16049383 ms; efficiency 60 / 62.1605 =
    # 96.5243 %. No overlap: t(S) = 1.75 x 16,060,522,496 / 810e9 = 34.698659714 ms -> 94.698659714.
    # Forgetting the last bucket: max(0, 34.699 - 40) = 0 -> 60 ms and 100 %.
    params = _ov(8, 810.0, 1000.0, 20.0, 40.0)
    parts = solve("allreduce-backward-overlap", params)
    assert math.isclose(parts["step_overlap"].value, 62.16049383, rel_tol=1e-9)
    assert math.isclose(parts["step_no_overlap"].value, 94.698659714, rel_tol=1e-9)
    assert math.isclose(parts["efficiency"].value, 6000 / 62.16049383, rel_tol=1e-9)
    named = slips("allreduce-backward-overlap", params)
    assert named[("last-bucket-forgotten", "step_overlap")] == 60.0
    assert named[("last-bucket-forgotten", "efficiency")] == 100.0
    assert math.isclose(named[("efficiency-inverted", "efficiency")], 6216.049383 / 60)


def test_overlap_variants_fit_and_are_plausible():
    """The replica's 16 bytes per parameter fit in 80% of the GPU, the forward pass is
    2N FLOPs per token at no more than 50% of the BF16 peak, busbw within the link, and
    both regimes (hidden with the last bucket named, and communication-bound) are drawn."""
    t = registry.get("allreduce-backward-overlap")
    hidden = bound = 0
    for seed in range(200):
        p = t.generate(random.Random(seed))
        acc = catalog.accelerator(p.accelerator)
        assert 8 * p.grad_bytes <= 0.8 * acc.usable_bytes, seed
        assert p.n_gpus in (8, 16, 32, 64)
        link = 900.0 if p.accelerator == "b200" else 448.0
        assert p.busbw_gbps <= (link if p.n_gpus == 8 else 50.0), seed
        assert math.isclose(p.backward_ms, 2 * p.forward_ms, rel_tol=0.01)
        # forward = 2 N T / (MFU x peak) for some per-GPU batch of 1-32 Ki tokens at an
        # MFU of 35-50%: the implied MFU at the batch that fits best lies in that band
        peak = acc.dense_flops["bf16"]
        mfus = [
            p.grad_bytes * 1024 * k / (p.forward_ms / 1000) / peak for k in (1, 2, 4, 8, 16, 32)
        ]
        assert any(0.35 * 0.99 <= m <= 0.5 * 1.01 for m in mfus), seed
        codes = {m.code for m in t.misconceptions(p)}
        hidden += "last-bucket-forgotten" in codes
        bound += t.solve(p)["efficiency"].value < 60
    assert hidden >= 60 and bound >= 40
