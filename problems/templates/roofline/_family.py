"""What the roofline templates share: the sentence that names the accelerator behind a
peak and a bandwidth, with the sparsity headline beside the dense peak.
"""

from __future__ import annotations

from problems.engine.numbers import sig
from problems.templates._common import (
    PRECISION_LABEL,
    accelerator_names,
    matching_accelerators,
    sparse_note,
)


def describe_gpu(peak_tflops: float, mem_bw_tbps: float) -> tuple[str, str]:
    """(sentence naming the accelerator and precision, sparse note)."""
    hits = matching_accelerators(peak_tflops, mem_bw_tbps)
    if not hits:
        return (
            f"An accelerator has a dense peak of {sig(peak_tflops, 12)} TFLOP/s and "
            f"{sig(mem_bw_tbps, 12)} TB/s of memory bandwidth.",
            "",
        )
    prec = PRECISION_LABEL[hits[0][1] or "bf16"]
    return (
        f"The {accelerator_names(hits)} has a dense {prec} tensor peak of "
        f"{sig(peak_tflops, 12)} TFLOP/s and {sig(mem_bw_tbps, 12)} TB/s of HBM bandwidth.",
        sparse_note(hits),
    )
