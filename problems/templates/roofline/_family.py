"""What the roofline templates share: the sentence that names the accelerator behind a
peak and a bandwidth, and the datasheet's sparse headline.

Convention examined (issue #11 point 3): where the catalog publishes a 2:4 sparse figure
that is 2x the dense one (to the vendors' rounding, 0.5%), about three quarters of such
variants (chosen by a hash of the parameters, so the statement stays a function of them)
quote only the datasheet's sparse headline (roofline-ridge, whose only parameters are
the part's figures, seven in eight), marked as the 2:4 structured-sparsity
figure, and the learner halves it. Parts without a sparse figure (TPUs, Trainium,
Inferentia, Gaudi, MI250X) always state the dense peak. The serving and training
templates use the same helpers.
"""

from __future__ import annotations

import hashlib

from problems.engine.numbers import sig, tex
from problems.templates._common import (
    PRECISION_LABEL,
    Hit,
    accelerator_names,
    matching_accelerators,
    sparse_note,
)


def _digest(*values: object) -> int:
    text = "|".join(repr(v) for v in values)
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


def sparse_headline(hits: list[Hit]) -> float | None:
    """The matched part's 2:4 sparse headline in TFLOP/s, when it is 2x the dense peak."""
    for acc, prec in hits:
        if prec is None or prec not in acc.sparse_flops:
            continue
        ratio = acc.sparse_flops[prec] / acc.dense_flops[prec]
        if abs(ratio - 2) <= 0.005:
            return round(acc.sparse_flops[prec] / 1e12, 6)
    return None


def quotes_sparse(hits: list[Hit], *params: object, dense_one_in: int = 4) -> float | None:
    """The sparse headline to state instead of the dense peak, or None (dense stated).

    Deterministic from the parameters: all but one variant in `dense_one_in` of those
    whose part has a 2x sparse figure.
    """
    sparse = sparse_headline(hits)
    if sparse is None or _digest(*params) % dense_one_in == 0:
        return None
    return sparse


def sparse_clause(sparse_tflops: float, prec: str) -> str:
    """The headline as the datasheet gives it, marked as sparse."""
    return (
        f"a datasheet {prec} headline of {sig(sparse_tflops, 12)} TFLOP/s, which is the 2:4 "
        "structured-sparsity figure (the kernels here are dense)"
    )


def halving_note(sparse_tflops: float | None, peak_tflops: float) -> str:
    """The solution's first step when the statement quoted the sparse headline."""
    if sparse_tflops is None:
        return ""
    return (
        f"The {sig(sparse_tflops, 12)} TFLOP/s headline counts 2:4 structured sparsity, "
        f"twice the dense rate; dense kernels get half of it, "
        f"$P_{{\\mathrm{{peak}}}} = {tex(peak_tflops, 12)}$ TFLOP/s.\n\n"
    )


def roofs(peak_tflops: float, mem_bw_tbps: float) -> str:
    """The two roofs with their symbols, in words."""
    return (
        f"the dense peak $P_{{\\mathrm{{peak}}}} = {tex(peak_tflops, 12)}$ TFLOP/s and the "
        f"HBM bandwidth $B_{{\\mathrm{{mem}}}} = {tex(mem_bw_tbps, 12)}$ TB/s"
    )


def describe_gpu(
    peak_tflops: float, mem_bw_tbps: float, *key: object, dense_one_in: int = 4
) -> tuple[str, str]:
    """(sentence naming the accelerator and precision, sparse note); `key` are the other
    parameters, which pick the dense or sparse wording with the peak and bandwidth."""
    hits = matching_accelerators(peak_tflops, mem_bw_tbps)
    if not hits:
        return (
            f"An accelerator has a dense peak of {sig(peak_tflops, 12)} TFLOP/s and "
            f"{sig(mem_bw_tbps, 12)} TB/s of memory bandwidth.",
            "",
        )
    prec = PRECISION_LABEL[hits[0][1] or "bf16"]
    sparse = quotes_sparse(hits, peak_tflops, mem_bw_tbps, *key, dense_one_in=dense_one_in)
    if sparse is not None:
        return (
            f"The {accelerator_names(hits)} has {sig(mem_bw_tbps, 12)} TB/s of HBM "
            f"bandwidth and {sparse_clause(sparse, prec)}.",
            "",
        )
    return (
        f"The {accelerator_names(hits)} has a dense {prec} tensor peak of "
        f"{sig(peak_tflops, 12)} TFLOP/s and {sig(mem_bw_tbps, 12)} TB/s of HBM bandwidth.",
        sparse_note(hits),
    )
