"""KV-cache family: bytes per token, cache size for a batch, how many sequences fit,
and how many GPUs the weights need.

All four use the standard (MHA/GQA) cache, 2 x L x H_kv x d_h x b bytes per token. Models
with multi-head latent attention (DeepSeek-V3's MLA) cache a compressed latent instead, so
the generators skip them: a question built on them would contradict the real model.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from fractions import Fraction
from typing import Any, Literal

from pydantic import Field
from sympy import floor as sym_floor

from hardware_db import catalog
from problems.engine.numbers import BYTES_PER_ELEMENT, UNIT_BYTES, exact, params_count, sig
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import (
    cached_index,
    drop_close_counts,
    group_by,
    matching_accelerators,
    model_with_params,
    name_list,
    sig15,
    tex15,
    usable_gib_of,
)

Dtype = Literal["fp32", "fp16", "bf16", "fp8", "int8", "int4", "fp4"]
TokenUnit = Literal["KB", "KiB", "MB", "MiB"]
SizeUnit = Literal["GB", "GiB"]

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
WEIGHT_DTYPES = ("bf16", "bf16", "bf16", "fp8", "fp8", "int4")
SEQ_LENS = (1024, 2048, 4096, 8192, 16384, 32768, 65536, 128000, 131072)
POWERS_OF_TWO = (1, 2, 4, 8, 16, 32, 64)

# ---------------------------------------------------------------------------------------
# Shared helpers


def _bpe(dtype: str) -> float:
    return BYTES_PER_ELEMENT[dtype]


def _bytes_phrase(dtype: str) -> str:
    b = _bpe(dtype)
    return f"{sig(b)} byte{'' if b == 1 else 's'} per element"


def _unit_note(unit: str) -> str:
    return f"{unit} (${UNIT_TEX[unit]}$ bytes)"


def _token_bytes(n_layers: int, n_kv_heads: int, head_dim: int, dtype: str) -> float:
    return 2 * n_layers * n_kv_heads * head_dim * _bpe(dtype)


def _exact_token_bytes(n_layers: int, n_kv_heads: int, head_dim: int, dtype: str) -> Fraction:
    return 2 * n_layers * n_kv_heads * head_dim * exact(_bpe(dtype))


def _gqa_models() -> tuple[catalog.ModelArch, ...]:
    return cached_index(
        "gqa", catalog.models(), lambda ms: tuple(m for m in ms if m.kv_lora_rank is None)
    )


def _models_with_shape(n_layers: int, n_kv_heads: int, head_dim: int) -> tuple:
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


def _devices(n: int | None, gib: float) -> str:
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


def _shape_sentence(n_layers: int, n_kv_heads: int, head_dim: int, models: tuple) -> str:
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


def _query_heads(models: tuple, n_kv_heads: int) -> int | None:
    """The query-head count the statement names, when it differs from the KV heads."""
    heads = {m.n_heads for m in models}
    if len(heads) == 1:
        n_heads = next(iter(heads))
        if n_heads != n_kv_heads:
            return n_heads
    return None


def _shape_misconceptions(
    part: str,
    value_of: Callable[[int, int, int, float], float],
    p: Any,
    dtype: str,
    query_heads: int | None,
) -> list[Misconception]:
    """Mistakes inside the per-token product; `value_of(L, H, d, b)` gives the part's value."""
    b = _bpe(dtype)
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


# ---------------------------------------------------------------------------------------
# kv-cache-per-token


class KvPerTokenParams(Params):
    n_layers: int = Field(ge=1, le=1000)
    n_kv_heads: int = Field(ge=1, le=1024)
    head_dim: int = Field(ge=1, le=4096)
    kv_dtype: Dtype
    unit: TokenUnit


KV_TOKEN = formula(
    r"M_{\mathrm{token}}",
    lambda s: 2 * s.L * s.H * s.d * s.b,
    L="L",
    H=r"H_{\mathrm{kv}}",
    d="d_h",
    b="b",
)


@register
class KvCachePerToken(Template):
    slug = "kv-cache-per-token"
    title = "KV-cache bytes per token"
    family = "kv_cache"
    lessons = ("the-kv-cache", "gpu-memory-math", "inside-the-transformer")
    skills = ("kv-cache-bytes", "gqa-kv-heads", "units-kb-kib")
    difficulty = 1
    Params = KvPerTokenParams

    def generate(self, rng: random.Random) -> KvPerTokenParams:
        model = rng.choice(_gqa_models())
        return KvPerTokenParams(
            n_layers=model.n_layers,
            n_kv_heads=model.n_kv_heads,
            head_dim=model.head_dim,
            kv_dtype=rng.choice(KV_DTYPES),
            unit=rng.choice(["KB", "KiB", "MB", "MiB"]),
        )

    def _value(self, p: KvPerTokenParams) -> float:
        token = _token_bytes(p.n_layers, p.n_kv_heads, p.head_dim, p.kv_dtype)
        return token / UNIT_BYTES[p.unit]

    def solve(self, p: KvPerTokenParams) -> dict[str, Part]:
        return {"per_token": Part("per_token", self._value(p), p.unit, label="KV cache per token")}

    def statement(self, p: KvPerTokenParams) -> str:
        models = _models_with_shape(p.n_layers, p.n_kv_heads, p.head_dim)
        return (
            _shape_sentence(p.n_layers, p.n_kv_heads, p.head_dim, models)
            + f" The KV cache is kept in **{p.kv_dtype.upper()}**, {_bytes_phrase(p.kv_dtype)} "
            "(ignore any quantization scales).\n\n"
            "How much KV-cache memory does **one token** take across all layers, "
            f"in {_unit_note(p.unit)}?"
        )

    def solution(self, p: KvPerTokenParams) -> str:
        b = _bpe(p.kv_dtype)
        token = _token_bytes(p.n_layers, p.n_kv_heads, p.head_dim, p.kv_dtype)
        value = self._value(p)
        other = PAIRED_UNIT[p.unit]
        return (
            "Every layer caches one key and one value vector per KV head for each token, "
            f"each of $d_h$ elements at $b = {sig(b)}$ byte{'' if b == 1 else 's'}:\n\n"
            + step(
                KV_TOKEN,
                {"L": p.n_layers, "H": p.n_kv_heads, "d": p.head_dim, "b": b},
                token,
                "B",
            )
            + f"\n\nDivide by ${UNIT_TEX[p.unit]}$ bytes per {p.unit}: "
            f"**{sig(value, 6)} {p.unit}** per token "
            f"(the same bytes are {sig(token / UNIT_BYTES[other], 6)} {other})."
        )

    def misconceptions(self, p: KvPerTokenParams) -> list[Misconception]:
        unit = UNIT_BYTES[p.unit]
        token = _token_bytes(p.n_layers, p.n_kv_heads, p.head_dim, p.kv_dtype)
        other = PAIRED_UNIT[p.unit]
        models = _models_with_shape(p.n_layers, p.n_kv_heads, p.head_dim)
        out = [
            Misconception(
                "gb-vs-gib",
                "per_token",
                token / UNIT_BYTES[other],
                f"That is the size in {other}. The question asks for {p.unit}, "
                f"which is {UNIT_TEX[p.unit].replace('{', '').replace('}', '')} bytes.",
            ),
        ]
        out += _shape_misconceptions(
            "per_token",
            lambda L, H, d, b: 2 * L * H * d * b / unit,
            p,
            p.kv_dtype,
            _query_heads(models, p.n_kv_heads),
        )
        return out


# ---------------------------------------------------------------------------------------
# kv-cache-total


class KvTotalParams(Params):
    n_layers: int = Field(ge=1, le=1000)
    n_kv_heads: int = Field(ge=1, le=1024)
    head_dim: int = Field(ge=1, le=4096)
    kv_dtype: Dtype
    batch_size: int = Field(ge=1, le=1_000_000)
    seq_len: int = Field(ge=1, le=100_000_000)
    unit: SizeUnit


KV_TOTAL = formula(
    r"M_{\mathrm{KV}}",
    lambda s: s.m * s.B * s.s / s.u,
    m=r"M_{\mathrm{token}}",
    B="B",
    s="s",
    u="u",
)


def _seq_choices(model: catalog.ModelArch) -> list[int]:
    """Context lengths the model supports, capped at its sliding window if it has one."""
    cap = model.max_context
    if model.sliding_window is not None:
        cap = min(cap, model.sliding_window)
    return [s for s in SEQ_LENS if s <= cap] or [cap]


@register
class KvCacheTotal(Template):
    slug = "kv-cache-total"
    title = "KV-cache size for a batch"
    family = "kv_cache"
    lessons = ("the-kv-cache", "batching-for-llm-inference", "gpu-memory-math")
    skills = ("kv-cache-bytes", "batch-memory", "units-gb-gib")
    difficulty = 2
    Params = KvTotalParams

    def generate(self, rng: random.Random) -> KvTotalParams:
        model = rng.choice(_gqa_models())
        return KvTotalParams(
            n_layers=model.n_layers,
            n_kv_heads=model.n_kv_heads,
            head_dim=model.head_dim,
            kv_dtype=rng.choice(KV_DTYPES),
            batch_size=rng.choice([1, 1, 4, 8, 16, 32, 64, 128, 256]),
            seq_len=rng.choice(_seq_choices(model)),
            unit=rng.choice(["GB", "GiB"]),
        )

    def _bytes(self, p: KvTotalParams) -> float:
        token = _token_bytes(p.n_layers, p.n_kv_heads, p.head_dim, p.kv_dtype)
        return token * p.batch_size * p.seq_len

    def solve(self, p: KvTotalParams) -> dict[str, Part]:
        value = self._bytes(p) / UNIT_BYTES[p.unit]
        return {"total": Part("total", value, p.unit, label="KV cache for the batch")}

    def _models(self, p: KvTotalParams) -> tuple:
        return tuple(
            m
            for m in _models_with_shape(p.n_layers, p.n_kv_heads, p.head_dim)
            if m.sliding_window is None or p.seq_len <= m.sliding_window
        )

    def statement(self, p: KvTotalParams) -> str:
        models = self._models(p)
        if p.batch_size == 1:
            seqs = f"a single sequence (batch size $B = 1$) with $s = {tex15(p.seq_len)}$ tokens"
        else:
            seqs = (
                f"a batch of $B = {p.batch_size}$ sequences, each with $s = {tex15(p.seq_len)}$ "
                "tokens"
            )
        return (
            _shape_sentence(p.n_layers, p.n_kv_heads, p.head_dim, models)
            + f" The KV cache is kept in **{p.kv_dtype.upper()}**, {_bytes_phrase(p.kv_dtype)} "
            "(ignore any quantization scales and paging overhead).\n\n"
            f"You serve {seqs} in the cache. How large is the KV cache for the whole batch, "
            f"in {_unit_note(p.unit)}?"
        )

    def solution(self, p: KvTotalParams) -> str:
        b = _bpe(p.kv_dtype)
        token = _token_bytes(p.n_layers, p.n_kv_heads, p.head_dim, p.kv_dtype)
        value = self._bytes(p) / UNIT_BYTES[p.unit]
        return (
            "First the bytes one token adds (K and V, every layer, every KV head):\n\n"
            + step(
                KV_TOKEN,
                {"L": p.n_layers, "H": p.n_kv_heads, "d": p.head_dim, "b": b},
                token,
                "B",
            )
            + "\n\nEvery cached token of every sequence costs that much; divide by the bytes "
            f"in one {p.unit}:\n\n"
            + step(
                KV_TOTAL,
                {"m": token, "B": p.batch_size, "s": p.seq_len, "u": UNIT_TEX[p.unit]},
                value,
                p.unit,
            )
        )

    def misconceptions(self, p: KvTotalParams) -> list[Misconception]:
        unit = UNIT_BYTES[p.unit]
        total = self._bytes(p)
        other = PAIRED_UNIT[p.unit]
        n = p.batch_size * p.seq_len
        out = [
            Misconception(
                "gb-vs-gib",
                "total",
                total / UNIT_BYTES[other],
                f"That is the size in {other}. The question asks for {p.unit}: "
                "1 GB is 10^9 bytes, 1 GiB is 2^30 = 1,073,741,824 bytes.",
            ),
        ]
        if p.batch_size > 1:
            out.append(
                Misconception(
                    "forgot-batch",
                    "total",
                    total / p.batch_size / unit,
                    f"That is one sequence's cache. All {p.batch_size} sequences in the batch "
                    "keep their own K and V, so multiply by the batch size.",
                )
            )
        out += _shape_misconceptions(
            "total",
            lambda L, H, d, b: 2 * L * H * d * b * n / unit,
            p,
            p.kv_dtype,
            _query_heads(self._models(p), p.n_kv_heads),
        )
        return out


# ---------------------------------------------------------------------------------------
# kv-max-sequences


class KvMaxParams(Params):
    gpu_mem_gib: float = Field(gt=0, le=100_000)
    n_gpus: int = Field(ge=1, le=100_000)
    gpu_mem_util: float = Field(gt=0, le=1)
    n_params: float = Field(gt=0, le=1e14)
    weight_dtype: Dtype
    n_layers: int = Field(ge=1, le=1000)
    n_kv_heads: int = Field(ge=1, le=1024)
    head_dim: int = Field(ge=1, le=4096)
    kv_dtype: Dtype
    seq_len: int = Field(ge=1, le=100_000_000)


MAX_SEQS = formula(
    r"n_{\max}",
    lambda s: sym_floor((s.n * s.G * s.c * s.u - s.W) / (s.m * s.s)),
    n="n",
    G="G",
    c="c",
    u="u",
    W="W",
    m=r"M_{\mathrm{token}}",
    s="s",
)
WEIGHTS = formula("W", lambda s: s.N * s.b, N="N", b=r"b_w")


def _max_seqs(
    gib: float,
    n_gpus: int,
    util: float,
    n_params: float,
    weight_dtype: str,
    token: Fraction,
    seq_len: int,
    gib_bytes: int | float = GIB,
) -> int:
    """floor((n x G x 2^30 x u - N x b_w) / (per_token x s)), at least 0, on exact values."""
    budget = n_gpus * exact(gib) * exact(gib_bytes) * exact(util)
    free = budget - exact(n_params) * exact(_bpe(weight_dtype))
    if free <= 0:
        return 0
    return math.floor(free / (token * seq_len))


@register
class KvMaxSequences(Template):
    slug = "kv-max-sequences"
    title = "How many sequences fit in the KV cache"
    family = "kv_cache"
    lessons = ("the-kv-cache", "batching-for-llm-inference", "serving-models", "gpu-memory-math")
    skills = ("kv-cache-bytes", "serving-capacity", "memory-budget")
    difficulty = 3
    Params = KvMaxParams

    def generate(self, rng: random.Random) -> KvMaxParams:
        models = _gqa_models()
        accs = catalog.accelerators()
        for _ in range(500):
            model = rng.choice(models)
            acc = rng.choice(accs)
            weight_dtype = rng.choice(WEIGHT_DTYPES)
            kv_dtype = rng.choice(("bf16", "bf16", "fp16", "fp8", "fp8"))
            seq_len = rng.choice(_seq_choices(model))
            util = rng.choice((0.85, 0.9, 0.9, 0.9, 0.92, 0.95))
            gib = usable_gib_of(acc)
            token = _exact_token_bytes(model.n_layers, model.n_kv_heads, model.head_dim, kv_dtype)
            feasible = [
                n
                for n in (1, 2, 4, 8, 16)
                if _max_seqs(gib, n, util, model.total_params, weight_dtype, token, seq_len) >= 1
            ]
            if not feasible:
                continue
            # Mostly the smallest deployment that serves at all (small, tight answers),
            # otherwise a roomier one.
            n_gpus = feasible[0] if rng.random() < 0.5 else rng.choice(feasible[:3])
            return KvMaxParams(
                gpu_mem_gib=gib,
                n_gpus=n_gpus,
                gpu_mem_util=util,
                n_params=float(model.total_params),
                weight_dtype=weight_dtype,
                n_layers=model.n_layers,
                n_kv_heads=model.n_kv_heads,
                head_dim=model.head_dim,
                kv_dtype=kv_dtype,
                seq_len=seq_len,
            )
        raise RuntimeError("kv-max-sequences: no feasible variant in the catalog")

    def _token(self, p: KvMaxParams) -> Fraction:
        return _exact_token_bytes(p.n_layers, p.n_kv_heads, p.head_dim, p.kv_dtype)

    def _answer(self, p: KvMaxParams, **over: Any) -> int:
        args = {
            "gib": p.gpu_mem_gib,
            "n_gpus": p.n_gpus,
            "util": p.gpu_mem_util,
            "n_params": p.n_params,
            "weight_dtype": p.weight_dtype,
            "token": self._token(p),
            "seq_len": p.seq_len,
        }
        args.update(over)
        return _max_seqs(**args)

    def _raw_floor(self, p: KvMaxParams) -> int:
        """The floor before clamping at 0 (negative when the weights do not fit)."""
        budget = p.n_gpus * exact(p.gpu_mem_gib) * GIB * exact(p.gpu_mem_util)
        free = budget - exact(p.n_params) * exact(_bpe(p.weight_dtype))
        return math.floor(free / (self._token(p) * p.seq_len))

    def solve(self, p: KvMaxParams) -> dict[str, Part]:
        return {
            "max_seqs": Part(
                "max_seqs",
                self._answer(p),
                "",
                kind=Kind.INTEGER,
                tolerance=Exact(),
                label="Maximum concurrent sequences",
            )
        }

    def statement(self, p: KvMaxParams) -> str:
        shape = _models_with_shape(p.n_layers, p.n_kv_heads, p.head_dim)
        model = model_with_params(p.n_params, among=shape)
        who = f"**{model.name}**" if model is not None else "a model"
        return (
            f"You serve {who} ({params_count(p.n_params)} parameters, "
            f"$N = {tex15(p.n_params)}$) on {_devices(p.n_gpus, p.gpu_mem_gib)}, "
            f"{'with' if p.n_gpus == 1 else 'each with'} "
            f"$G = {tex15(p.gpu_mem_gib)}$ GiB of usable memory (1 GiB $= 2^{{30}}$ bytes). "
            f"The serving engine may use a fraction $u = {tex15(p.gpu_mem_util)}$ of every "
            "device's memory (vLLM's `gpu_memory_utilization`); the weights are split across "
            "the devices and whatever is left of that budget holds the KV cache.\n\n"
            f"- Weights in **{p.weight_dtype.upper()}**, {_bytes_phrase(p.weight_dtype)}.\n"
            f"- $L = {p.n_layers}$ layers, $H_{{\\mathrm{{kv}}}} = {p.n_kv_heads}$ key/value "
            f"heads, $d_h = {p.head_dim}$; KV cache in **{p.kv_dtype.upper()}**, "
            f"{_bytes_phrase(p.kv_dtype)}.\n"
            f"- Every sequence reserves its full context of $s = {tex15(p.seq_len)}$ tokens.\n\n"
            "Ignoring activations, CUDA graphs, quantization scales and fragmentation, how many "
            "such sequences can be in flight at once? Give a whole number (0 if the weights "
            "alone do not fit)."
        )

    def solution(self, p: KvMaxParams) -> str:
        bw = _bpe(p.weight_dtype)
        b = _bpe(p.kv_dtype)
        token = _token_bytes(p.n_layers, p.n_kv_heads, p.head_dim, p.kv_dtype)
        weights = p.n_params * bw
        budget = p.n_gpus * p.gpu_mem_gib * GIB * p.gpu_mem_util
        answer = self._answer(p)
        where = "the one device" if p.n_gpus == 1 else f"all {p.n_gpus} devices"
        text = (
            "The weights and the per-token cache, in bytes:\n\n"
            + step(WEIGHTS, {"N": tex15(p.n_params), "b": bw}, weights, "B")
            + "\n\n"
            + step(
                KV_TOKEN,
                {"L": p.n_layers, "H": p.n_kv_heads, "d": p.head_dim, "b": b},
                token,
                "B",
            )
            + f"\n\nThe engine's budget is $n G \\cdot 2^{{30}} u = {tex15(budget)}$ bytes across "
            f"{where}. Take the weights out, then see how many full-length sequences "
            "the rest holds, rounding down:\n\n"
            + step(
                MAX_SEQS,
                {
                    "n": p.n_gpus,
                    "G": tex15(p.gpu_mem_gib),
                    "c": "2^{30}",
                    "u": tex15(p.gpu_mem_util),
                    "W": tex15(weights),
                    "m": token,
                    "s": p.seq_len,
                },
                str(self._raw_floor(p)),
            )
        )
        if answer == 0 and budget < weights:
            text += (
                "\n\nThe weights alone exceed the budget, so no sequence fits: the answer is **0**."
            )
        else:
            text += f"\n\n**{answer}** sequences fit at once."
        return text

    def misconceptions(self, p: KvMaxParams) -> list[Misconception]:
        models = _models_with_shape(p.n_layers, p.n_kv_heads, p.head_dim)
        model = model_with_params(p.n_params, among=models)
        token = self._token(p)
        out = [
            Misconception(
                "gb-vs-gib",
                "max_seqs",
                self._answer(p, gib_bytes=10**9),
                f"That treats {sig15(p.gpu_mem_gib)} GiB as GB. A GiB is 2^30 bytes, about 7.4% "
                "more than 10^9, so there is more room for cache than that.",
            ),
            Misconception(
                "weights-not-subtracted",
                "max_seqs",
                self._answer(p, n_params=0),
                "That gives the whole budget to the cache. The weights live in the same memory "
                "and must be subtracted first.",
            ),
            Misconception(
                "utilization-not-applied",
                "max_seqs",
                self._answer(p, util=1),
                f"That uses all of the GPU memory. The engine is only allowed "
                f"{sig15(p.gpu_mem_util)} of it; the rest is left for activations and the runtime.",
            ),
            Misconception(
                "missing-kv-factor-2",
                "max_seqs",
                self._answer(p, token=token / 2),
                "That counts only keys or only values. Each token caches both K and V in every "
                "layer, so the per-token cost has a factor 2.",
            ),
        ]
        if p.n_gpus > 1:
            out.append(
                Misconception(
                    "single-gpu-memory",
                    "max_seqs",
                    self._answer(p, n_gpus=1),
                    f"That uses one GPU's memory. The weights and the cache are spread over all "
                    f"{p.n_gpus} GPUs, so the budget is {p.n_gpus} times larger.",
                )
            )
        query = _query_heads((model,) if model is not None else models, p.n_kv_heads)
        if query is not None:
            out.append(
                Misconception(
                    "attention-heads-not-kv-heads",
                    "max_seqs",
                    self._answer(
                        p,
                        token=_exact_token_bytes(p.n_layers, query, p.head_dim, p.kv_dtype),
                    ),
                    f"That sizes the cache with {query} query heads. Only the {p.n_kv_heads} "
                    "key/value heads are cached under grouped-query attention.",
                )
            )
        wrong_bw = "bf16" if _bpe(p.weight_dtype) != 2 else "fp32"
        out.append(
            Misconception(
                "wrong-bytes-per-param",
                "max_seqs",
                self._answer(p, weight_dtype=wrong_bw),
                f"That sizes the weights at {sig(_bpe(wrong_bw))} bytes per parameter; "
                f"{p.weight_dtype.upper()} weights take {sig(_bpe(p.weight_dtype))}.",
            )
        )
        return drop_close_counts(out, {"max_seqs": self._answer(p)})


# ---------------------------------------------------------------------------------------
# tp-min-gpus


class TpMinParams(Params):
    n_params: float = Field(gt=0, le=1e14)
    weight_dtype: Dtype
    gpu_mem_gib: float = Field(gt=0, le=100_000)
    reserve_fraction: float = Field(ge=0, lt=1)


TP_RATIO = formula(
    r"\frac{W}{C}",
    lambda s: s.N * s.b / (s.G * s.c * (1 - s.r)),
    N="N",
    b="b",
    G="G",
    c="c",
    r="r",
)


def _min_pow2(
    n_params: float,
    dtype: str,
    gib: float,
    reserve: float,
    gib_bytes: int = GIB,
    candidates: tuple[int, ...] = POWERS_OF_TWO,
) -> int:
    """Smallest candidate n with N x b <= n x G x 2^30 x (1 - r), exactly; 0 if none."""
    weights = exact(n_params) * exact(_bpe(dtype))
    per_gpu = exact(gib) * gib_bytes * (1 - exact(reserve))
    for n in candidates:
        if weights <= n * per_gpu:
            return n
    return 0


@register
class TpMinGpus(Template):
    slug = "tp-min-gpus"
    title = "Fewest GPUs (a power of two) that hold the weights"
    family = "kv_cache"
    lessons = ("model-parallelism", "gpu-memory-math", "serving-models")
    skills = ("weights-bytes", "tensor-parallel-sizing", "units-gb-gib")
    difficulty = 2
    Params = TpMinParams

    def generate(self, rng: random.Random) -> TpMinParams:
        models = catalog.models()
        accs = catalog.accelerators()
        for _ in range(200):
            model = rng.choice(models)
            acc = rng.choice(accs)
            p = TpMinParams(
                n_params=float(model.total_params),
                weight_dtype=rng.choice(("bf16", "bf16", "fp16", "fp8", "fp8", "int4", "fp4")),
                gpu_mem_gib=usable_gib_of(acc),
                reserve_fraction=rng.choice((0.1, 0.1, 0.15, 0.2, 0.25, 0.3)),
            )
            answer = self._answer(p)
            ratio = (
                p.n_params * _bpe(p.weight_dtype) / (p.gpu_mem_gib * GIB * (1 - p.reserve_fraction))
            )
            # Keep "does not fit even on 64" rare, and thin out the many single-GPU cases
            # (small models on big GPUs, trivial when the weights fill under half a device).
            if answer == 0 and rng.random() < 0.9:
                continue
            if answer == 1 and rng.random() < (0.9 if ratio < 0.5 else 0.5):
                continue
            return p
        return p

    def _answer(self, p: TpMinParams, **over: Any) -> int:
        args = {
            "n_params": p.n_params,
            "dtype": p.weight_dtype,
            "gib": p.gpu_mem_gib,
            "reserve": p.reserve_fraction,
        }
        args.update(over)
        return _min_pow2(**args)

    def solve(self, p: TpMinParams) -> dict[str, Part]:
        return {
            "min_gpus": Part(
                "min_gpus",
                self._answer(p),
                "",
                kind=Kind.INTEGER,
                tolerance=Exact(),
                label="Minimum GPUs (power of two)",
            )
        }

    def statement(self, p: TpMinParams) -> str:
        model = model_with_params(p.n_params)
        who = f"**{model.name}**" if model else "A model"
        return (
            f"{who} has {params_count(p.n_params)} parameters ($N = {tex15(p.n_params)}$), "
            f"stored in **{p.weight_dtype.upper()}** at {_bytes_phrase(p.weight_dtype)} "
            "(ignore quantization scales). You shard the weights evenly with tensor "
            f"parallelism over {_devices(None, p.gpu_mem_gib)} devices, each with "
            f"$G = {tex15(p.gpu_mem_gib)}$ GiB of usable memory (1 GiB $= 2^{{30}}$ bytes), "
            f"keeping a fraction $r = {tex15(p.reserve_fraction)}$ of every device free for the "
            "KV cache, activations and the runtime.\n\n"
            "The tensor-parallel degree must be a power of two: 1, 2, 4, 8, 16, 32 or 64. What "
            "is the smallest degree whose devices can hold all the weights? Answer 0 if even 64 "
            "are not enough."
        )

    def solution(self, p: TpMinParams) -> str:
        b = _bpe(p.weight_dtype)
        weights = p.n_params * b
        per_gpu = p.gpu_mem_gib * GIB * (1 - p.reserve_fraction)
        ratio = weights / per_gpu
        answer = self._answer(p)
        text = (
            f"The weights take $W = N b = {tex15(weights)}$ bytes. Each device may hold "
            f"$C = G \\cdot 2^{{30}} (1 - r) = {tex15(per_gpu)}$ bytes of them. "
            "The number of devices needed is the ratio, rounded up:\n\n"
            + step(
                TP_RATIO,
                {
                    "N": tex15(p.n_params),
                    "b": b,
                    "G": tex15(p.gpu_mem_gib),
                    "c": "2^{30}",
                    "r": tex15(p.reserve_fraction),
                },
                ratio,
            )
        )
        if answer == 0:
            text += (
                "\n\nThat is more than 64, the largest allowed degree, so the answer is **0**: "
                "the model needs bigger GPUs, lower precision or pipeline parallelism too."
            )
        else:
            text += f"\n\nThe smallest power of two at or above {sig(ratio, 4)} is **{answer}**."
        return text

    def misconceptions(self, p: TpMinParams) -> list[Misconception]:
        weights = exact(p.n_params) * exact(_bpe(p.weight_dtype))
        per_gpu = exact(p.gpu_mem_gib) * GIB * (1 - exact(p.reserve_fraction))
        plain = math.ceil(weights / per_gpu)
        out = [
            Misconception(
                "gb-vs-gib",
                "min_gpus",
                self._answer(p, gib_bytes=10**9),
                f"That reads {sig15(p.gpu_mem_gib)} GiB as GB. A GiB is 2^30 bytes, 7.4% more "
                "than 10^9, so each GPU holds more than that assumes.",
            ),
            Misconception(
                "reserve-not-applied",
                "min_gpus",
                self._answer(p, reserve=0),
                f"That fills every GPU to the brim. A fraction {sig15(p.reserve_fraction)} "
                "of each GPU is kept free, so only the rest can hold weights.",
            ),
        ]
        if plain <= 64:
            out.append(
                Misconception(
                    "not-power-of-two",
                    "min_gpus",
                    plain,
                    f"{plain} GPUs would hold the weights, but the tensor-parallel degree must be "
                    "a power of two (it has to divide the attention heads and hidden size "
                    "evenly): round up to the next power of two.",
                )
            )
        if p.reserve_fraction > 0:
            out.append(
                Misconception(
                    "reserve-inverted",
                    "min_gpus",
                    self._answer(p, reserve=1 - exact(p.reserve_fraction)),
                    f"That lets the weights use only {sig15(p.reserve_fraction)} of each device. "
                    f"The fraction r is what is kept free; the weights get 1 - r.",
                )
            )
        if 1 < weights / per_gpu <= 64:
            below = 2 ** math.floor(math.log2(weights / per_gpu))
            out.append(
                Misconception(
                    "rounded-down",
                    "min_gpus",
                    int(below),
                    f"{int(below)} devices hold only part of the weights: the answer must be at or "
                    "above the ratio W/C, so round up to a power of two, not down.",
                )
            )
        wrong = "bf16" if _bpe(p.weight_dtype) != 2 else "fp32"
        out.append(
            Misconception(
                "wrong-bytes-per-param",
                "min_gpus",
                self._answer(p, dtype=wrong),
                f"That sizes the weights at {sig(_bpe(wrong))} bytes per parameter; "
                f"{p.weight_dtype.upper()} takes {sig(_bpe(p.weight_dtype))}.",
            )
        )
        return out
