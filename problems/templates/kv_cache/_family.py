"""What the KV-cache templates share: the per-token formula, the models it applies to,
and the sentences that state a model's attention shape and its devices.

Models with multi-head latent attention (DeepSeek-V3's MLA) cache a compressed latent
instead of K and V, so `gqa_models` and `models_with_shape` leave them out: a question
built on them would contradict the real model.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any, Literal

from hardware_db import catalog
from problems.engine.numbers import BYTES_PER_ELEMENT, exact, sig
from problems.engine.solutions import formula
from problems.engine.template import Misconception
from problems.templates._common import (
    cached_index,
    group_by,
    matching_accelerators,
    name_list,
)

Dtype = Literal["fp32", "fp16", "bf16", "fp8", "int8", "int4", "fp4"]

GIB = 2**30
# The same size in the other convention (decimal <-> binary) and one step up or down.
PAIRED_UNIT = {"KB": "KiB", "KiB": "KB", "MB": "MiB", "MiB": "MB", "GB": "GiB", "GiB": "GB"}
UNIT_TEX = {
    "KB": "10^{3}",
    "MB": "10^{6}",
    "GB": "10^{9}",
    "KiB": "2^{10}",
    "MiB": "2^{20}",
    "GiB": "2^{30}",
}

# Generators draw dtypes with realistic weights: BF16/FP16 and FP8 KV caches dominate.
KV_DTYPES = ("bf16", "bf16", "bf16", "fp16", "fp8", "fp8", "fp8", "int8", "fp32")

SEQ_LENS = (1024, 2048, 4096, 8192, 16384, 32768, 65536, 128000, 131072)


def bpe(dtype: str) -> float:
    return BYTES_PER_ELEMENT[dtype]


def bytes_phrase(dtype: str) -> str:
    b = bpe(dtype)
    return f"{sig(b)} byte{'' if b == 1 else 's'} per element"


def unit_note(unit: str) -> str:
    return f"{unit} (${UNIT_TEX[unit]}$ bytes)"


def token_bytes(n_layers: int, n_kv_heads: int, head_dim: int, dtype: str) -> float:
    return 2 * n_layers * n_kv_heads * head_dim * bpe(dtype)


def exact_token_bytes(n_layers: int, n_kv_heads: int, head_dim: int, dtype: str) -> Fraction:
    return 2 * n_layers * n_kv_heads * head_dim * exact(bpe(dtype))


def gqa_models() -> tuple[catalog.ModelArch, ...]:
    return cached_index(
        "gqa", catalog.models(), lambda ms: tuple(m for m in ms if m.kv_lora_rank is None)
    )


def models_with_shape(n_layers: int, n_kv_heads: int, head_dim: int) -> tuple:
    """The GQA/MHA catalog models with this attention shape (MLA models cache otherwise)."""
    index = cached_index(
        "gqa-by-shape",
        catalog.models(),
        lambda ms: group_by(
            (m for m in ms if m.kv_lora_rank is None),
            lambda m: (m.n_layers, m.n_kv_heads, m.head_dim),
        ),
    )
    return index.get((n_layers, n_kv_heads, head_dim), ())


def device_phrase(n: int | None, gib: float) -> str:
    """ "8 × H100 SXM5 80GB" (the catalog names with this capacity) or "8 accelerators"."""
    accs = [acc for acc, _ in matching_accelerators(usable_gib=gib)]
    if not accs:
        if n is None:
            return "accelerators"
        return f"{n} accelerator{'s' if n != 1 else ''}"
    names = name_list((a.name for a in accs), most=2, conj="or")
    if n is None:
        return names
    return f"one {names}" if n == 1 else f"{n} × {names}"


def shape_sentence(n_layers: int, n_kv_heads: int, head_dim: int, models: tuple) -> str:
    shape = (
        f"$L = {n_layers}$ layers and $H_{{\\mathrm{{kv}}}} = {n_kv_heads}$ key/value "
        f"heads of dimension $d_h = {head_dim}$"
    )
    if not models:
        return f"A decoder-only transformer has {shape}."
    heads = {m.n_heads for m in models}
    query = ""
    if len(heads) == 1:
        n_heads = heads.pop()
        if n_heads != n_kv_heads:
            query = f" (grouped-query attention: {n_heads} query heads share them)"
        else:
            query = " (multi-head attention: every query head has its own K and V)"
    verb = "has" if len(models) == 1 else "share this shape:"
    return f"{name_list((m.name for m in models), most=3, conj='and')} {verb} {shape}{query}."


def named_query_heads(models: tuple, n_kv_heads: int) -> int | None:
    """The query-head count the statement names, when it differs from the KV heads."""
    heads = {m.n_heads for m in models}
    if len(heads) == 1:
        n_heads = next(iter(heads))
        if n_heads != n_kv_heads:
            return n_heads
    return None


def shape_misconceptions(
    part: str,
    value_of: Callable[[int, int, int, float], float],
    p: Any,
    dtype: str,
    query_heads: int | None,
) -> list[Misconception]:
    """Mistakes inside the per-token product; `value_of(L, H, d, b)` gives the part's value."""
    b = bpe(dtype)
    L, H, d = p.n_layers, p.n_kv_heads, p.head_dim
    out = [
        Misconception(
            "missing-kv-factor-2",
            part,
            value_of(L, H, d, b) / 2,
            "That is half the cache: every layer stores a key vector and a value vector "
            "for each token, hence the leading factor 2.",
        ),
        Misconception(
            "per-layer-only",
            part,
            value_of(1, H, d, b),
            f"That is one layer's worth. Each of the {L} layers keeps its own K and V, "
            "so multiply by the layer count.",
        ),
    ]
    if query_heads is not None:
        out.append(
            Misconception(
                "attention-heads-not-kv-heads",
                part,
                value_of(L, query_heads, d, b),
                f"That uses the {query_heads} query heads. With grouped-query attention only "
                f"the {H} key/value heads are cached; the query heads share them.",
            )
        )
    wrong_b = 2 if b != 2 else 4
    out.append(
        Misconception(
            "wrong-bytes-per-param",
            part,
            value_of(L, H, d, wrong_b),
            f"That uses {wrong_b} bytes per element. A {dtype.upper()} cache stores "
            f"{sig(b)} byte(s) per element.",
        )
    )
    return out


KV_TOKEN = formula(
    r"M_{\mathrm{token}}",
    lambda s: 2 * s.L * s.H * s.d * s.b,
    L="L",
    H=r"H_{\mathrm{kv}}",
    d="d_h",
    b="b",
)


def seq_choices(model: catalog.ModelArch) -> list[int]:
    """Context lengths the model supports, capped at its sliding window if it has one."""
    cap = model.max_context
    if model.sliding_window is not None:
        cap = min(cap, model.sliding_window)
    return [s for s in SEQ_LENS if s <= cap] or [cap]
