"""What the KV-cache templates share: the per-token formula, the models it applies to,
the sentences that state a model's attention shape (or quote its config.json) and its
devices, each part's scale-up domain, the weight formats it runs, and its memory as
`nvidia-smi` reports it in MiB.

Models with multi-head latent attention (DeepSeek-V3's MLA) cache a compressed latent
instead of K and V, so `gqa_models` and `models_with_shape` leave them out: a question
built on them would contradict the real model.
"""

from __future__ import annotations

import hashlib
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

# KV-cache formats serving engines use (vLLM, TensorRT-LLM, SGLang): BF16/FP16 or FP8.
KV_DTYPES = ("bf16", "bf16", "bf16", "fp16", "fp8", "fp8", "fp8")

SEQ_LENS = (1024, 2048, 4096, 8192, 16384, 32768, 65536, 128000, 131072)


# One scale-up domain per accelerator: how many devices tensor parallelism may span
# without leaving the fast fabric, and how a statement names that domain. The counts come
# from the catalog's form factors and servers (HGX/DGX and AMD's platform: 8; H100 NVL is
# sold as an NVLink-bridged pair; a TPU v5e/v6e host has 8 chips; a trn2.48xlarge 16
# Trainium2 chips, an inf2.48xlarge 12 Inferentia2 chips). Parts left out: the MI250X,
# whose OAM software sees as two GPUs of half the memory, and the H100 PCIe, whose
# 80 GiB would name the A100 SXM4 (8-GPU NVSwitch) in the same statement.
SCALE_UP = {
    "a100-sxm-80gb": (8, "one 8-GPU HGX A100 server (NVLink 3 through NVSwitch)"),
    "h100-sxm": (8, "one 8-GPU HGX H100 server (NVLink 4 through NVSwitch)"),
    "h100-nvl": (2, "one NVLink-bridged H100 NVL pair"),
    "h200": (8, "one 8-GPU HGX H200 server (NVLink 4 through NVSwitch)"),
    "b200": (8, "one 8-GPU HGX B200 server (NVLink 5 through NVSwitch)"),
    "gb200": (8, "one GB200 NVL72 rack (NVLink 5)"),
    "l40s": (8, "one 8-GPU PCIe server (the L40S has no NVLink; TP runs over PCIe)"),
    "mi300x": (8, "one 8-GPU MI300X platform (Infinity Fabric)"),
    "mi325x": (8, "one 8-GPU MI325X platform (Infinity Fabric)"),
    "mi355x": (8, "one 8-GPU MI355X platform (Infinity Fabric)"),
    "gaudi3": (8, "one 8-accelerator Gaudi 3 server (on-chip RoCE scale-up)"),
    "tpu-v5e": (8, "one 8-chip TPU v5e host (ICI)"),
    "tpu-v5p": (8, "one 8-chip TPU v5p slice (ICI)"),
    "tpu-v6e": (8, "one 8-chip TPU v6e host (ICI)"),
    "trainium2": (8, "one trn2.48xlarge (16 Trainium2 chips on NeuronLink)"),
    "inferentia2": (8, "one inf2.48xlarge (12 Inferentia2 chips on NeuronLink)"),
}
MIB = 2**20


def serving_accelerators() -> tuple[catalog.Accelerator, ...]:
    """The catalog parts the TP and serving generators deploy (those with a domain)."""
    return tuple(a for a in catalog.accelerators() if a.slug in SCALE_UP)


def reported_mib(acc: catalog.Accelerator) -> int | None:
    """The total nvidia-smi shows, in MiB, where the catalog records it."""
    if acc.memory_reported_bytes is None or acc.memory_reported_bytes % MIB:
        return None
    return acc.memory_reported_bytes // MIB


def stated_mib(gib: float) -> int | None:
    """The nvidia-smi MiB figure a statement gives instead of GiB: when `gib` is exactly
    a catalog part's reported total (not the two-decimal GiB figure) and not a round GiB."""
    mib = gib * 1024
    if not mib.is_integer() or round(gib, 2) == gib:
        return None
    hit = [a for a in serving_accelerators() if reported_mib(a) == int(mib)]
    return int(mib) if hit else None


def accelerators_for_gib(gib: float) -> list[catalog.Accelerator]:
    """Serving parts with this usable memory (two-decimal GiB or exact reported MiB)."""
    return [
        a
        for a in serving_accelerators()
        if round(a.usable_gib, 2) == gib or (reported_mib(a) or 0) == gib * 1024
    ]


def scale_up_of(gib: float) -> tuple[int, str] | None:
    """(devices, phrase) of the one domain these devices sit in, if the figure is unique."""
    accs = accelerators_for_gib(gib)
    if not accs:
        return None
    if len(accs) == 1:
        return SCALE_UP[accs[0].slug]
    counts = {SCALE_UP[a.slug][0] for a in accs}
    return (counts.pop(), "one server or host of them") if len(counts) == 1 else None


def weight_dtypes_for(acc: catalog.Accelerator) -> tuple[str, ...]:
    """Weight formats a deployment on this part would really use: BF16 everywhere, FP8 and
    FP4 where the part computes in them, weight-only INT4 (AWQ/GPTQ) on NVIDIA and AMD
    GPUs, INT8 on the TPUs that compute in it."""
    out = ["bf16", "bf16"]
    if "fp8" in acc.dense_flops:
        out.append("fp8")
    if "fp4" in acc.dense_flops:
        out.append("fp4")
    if acc.vendor in ("NVIDIA", "AMD"):
        out.append("int4")
    if acc.slug.startswith("tpu") and "int8" in acc.dense_flops:
        out.append("int8")
    return tuple(out)


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
    names = name_list((a.short_name for a in accs), most=2, conj="or")
    if n is None:
        return names
    return f"one {names}" if n == 1 else f"{n} × {names}"


def params_hash(*values: object) -> int:
    """A stable number from the parameters, for choices a statement makes from them alone."""
    return int.from_bytes(hashlib.sha256(repr(values).encode()).digest()[:8], "big")


def config_model(n_layers: int, n_kv_heads: int, head_dim: int, models: tuple):
    """The model whose Hugging Face config a statement can quote instead of d_h: one
    hidden size and query-head count across `models`, with no separate head_dim (so
    d_h = hidden_size / num_attention_heads)."""
    if not models or len({(m.hidden_size, m.n_heads) for m in models}) != 1:
        return None
    m = models[0]
    return m if m.hidden_size == m.n_heads * head_dim else None


def uses_config(n_layers: int, n_kv_heads: int, head_dim: int, models: tuple, *rest) -> bool:
    """Whether the statement quotes config.json (45% of variants, where possible)."""
    if config_model(n_layers, n_kv_heads, head_dim, models) is None:
        return False
    return params_hash(n_layers, n_kv_heads, head_dim, *rest) % 20 < 9


def config_sentence(n_layers: int, n_kv_heads: int, head_dim: int, models: tuple) -> str:
    """The attention shape as an engineer meets it: the model's config.json fields."""
    m = config_model(n_layers, n_kv_heads, head_dim, models)
    names = name_list((x.name for x in models), most=3, conj="and")
    verb = "has" if len(models) == 1 else "share"
    return (
        f"{names} {verb} this attention shape in `config.json`: "
        f"`num_hidden_layers: {n_layers}`, `hidden_size: {m.hidden_size}`, "
        f"`num_attention_heads: {m.n_heads}`, `num_key_value_heads: {n_kv_heads}` "
        "(no separate `head_dim`: each head is `hidden_size / num_attention_heads` wide)."
    )


def hidden_as_head_dim(part: str, value_of: Callable[..., float], p: Any, models: tuple):
    """The config-reading slip: hidden_size taken as the per-head dimension."""
    m = config_model(p.n_layers, p.n_kv_heads, p.head_dim, models)
    return Misconception(
        "hidden-size-as-head-dim",
        part,
        value_of(p.n_layers, p.n_kv_heads, m.hidden_size, bpe(p.kv_dtype)),
        f"That uses hidden_size ({m.hidden_size}) as the head dimension. Each head is "
        f"hidden_size / num_attention_heads = {m.hidden_size} / {m.n_heads} = {p.head_dim} wide.",
    )


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
