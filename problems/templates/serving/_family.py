"""What the serving templates share: how many devices serve a model, the smallest of 1, 2,
4 or 8 that holds its weights with room to spare, so decode and prefill deploy a
model the same way; what a device is called ("GPU" only for GPUs), and the words that define a
decode floor's symbols; the definitions of TTFT and TPOT a statement gives; and the bounds
that keep the prefill templates' 2N-per-token count honest and their weights in memory.
"""

from __future__ import annotations

import random

from hardware_db import catalog
from problems.engine.numbers import BYTES_PER_ELEMENT, sig, tex
from problems.templates._common import matching_accelerators

_GPU_COUNTS = (1, 2, 4, 8)
# Share of each GPU's memory the weights may take when choosing a realistic GPU count.
WEIGHT_SHARE = 0.8


def weight_dtypes(acc: catalog.Accelerator) -> list[str]:
    """Weight formats a decode question may draw for a part, twice as often BF16 (the
    usual serving format); FP8 and FP4 only where the part computes in them."""
    dtypes = ["bf16", "bf16", "fp16", "int8", "int4"]
    dtypes += ["fp8", "fp8"] if "fp8" in acc.dense_flops else []
    dtypes += ["fp4"] if "fp4" in acc.dense_flops else []
    return dtypes


def gpu_count(rng: random.Random, weight_bytes: float, acc: catalog.Accelerator) -> int | None:
    """Smallest of 1, 2, 4, 8 that holds the weights with room to spare; sometimes doubled."""
    for n in _GPU_COUNTS:
        if weight_bytes <= WEIGHT_SHARE * n * acc.usable_bytes:
            if n < 8 and rng.random() < 0.3:
                return n * 2
            return n
    return None


# The prefill templates count 2N FLOP per token and ignore attention (their contract);
# they draw only prompts where the attention-score FLOPs stay within this share of it.
ATTENTION_SHARE_MAX = 0.15


def attention_share(model: catalog.ModelArch, prompt: int, cached: int = 0) -> float:
    """Attention-score FLOPs of the T - C prefilled tokens over their 2N FLOPs.

    Token i (0-based) attends to i + 1 keys: 2 FLOP each for QK^T and for AV per head
    dimension, in every layer, so 4 L H (i + 1) with H = heads x head_dim; over i = C..T-1
    that is 2 L H (T - C)(T + C + 1), against 2 N (T - C) for the weights.
    """
    width = model.n_heads * model.head_dim
    return model.n_layers * width * (prompt + cached + 1) / model.total_params


def fits_as_stated(n_params: float, peak_tflops: float, n_devices: int) -> bool:
    """Every part a statement names by this dense peak holds the weights at the precision
    the peak is quoted at, with the room to spare gpu_count leaves. (Gaudi 3's FP8 and
    BF16 peaks are equal, so an FP8 draw reads as BF16 weights.)"""
    hits = matching_accelerators(peak_tflops=peak_tflops)
    return bool(hits) and all(
        n_params * BYTES_PER_ELEMENT[prec or "bf16"] <= WEIGHT_SHARE * n_devices * acc.usable_bytes
        for acc, prec in hits
    )


# The latency terms, defined where a statement uses them (issue 34). At batch size 1 a
# sequence gets one token per decode step, so every gap between its tokens is one step
# and the per-request mean TPOT and the worst gap coincide; the definition says so.
TPOT_ONE_SEQUENCE = (
    "time per output token (TPOT: the time from one output token of this sequence to the "
    "next, one decode step; at batch size 1 every gap is the same, so it is also the mean)"
)
# With nothing queued ahead of the request, its first token comes when the prefill ends.
TTFT_ONE_REQUEST = (
    "time to first token (TTFT: from the request's arrival to its first output token; "
    "with nothing queued ahead of it, that is its prefill time)"
)


# What each vendor's part is called in prose: "GPU" only for GPUs (issue #11).
_NOUNS = {
    "NVIDIA": ("GPU", "GPUs"),
    "AMD": ("GPU", "GPUs"),
    "Google": ("TPU chip", "TPU chips"),
    "AWS": ("chip", "chips"),
    "Intel": ("accelerator", "accelerators"),
}
_GENERIC = ("accelerator", "accelerators")


def device_noun(accs: list[catalog.Accelerator], n: int = 1) -> str:
    """ "GPU"/"GPUs" when every named part is a GPU (NVIDIA, AMD); "TPU chip", "chip"
    (Trainium, Inferentia) or "accelerator" (Gaudi, mixed or unnamed) otherwise."""
    # A multi-die package that software sees as several GPUs (MI250X: two GCDs) is
    # "an accelerator": its catalog figures are the whole package's.
    nouns = {_GENERIC if "GCD" in a.form_factor else _NOUNS.get(a.vendor, _GENERIC) for a in accs}
    singular, plural = nouns.pop() if len(nouns) == 1 else _GENERIC
    return singular if n == 1 else plural


def read_rate_sentence(n_devices: int, noun: str, bw_tbps: float) -> str:
    """The devices of a memory-bound decode floor in words, with their symbols: "over
    $n = 8$ GPUs reading at $B_{mem} = 5.3 x 10^12$ B/s each"."""
    return (
        f"over $n = {n_devices}$ {noun} reading "
        f"at $B_{{\\mathrm{{mem}}}} = {tex(bw_tbps, 12)} \\times 10^{{12}}$ B/s each"
    )


def per_param(bytes_each: float) -> str:
    """ "$b = 1$ byte per parameter" """
    return f"$b = {sig(bytes_each)}$ byte{'' if bytes_each == 1 else 's'} per parameter"
