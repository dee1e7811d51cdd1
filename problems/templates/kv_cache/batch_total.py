"""kv-cache-total: the KV cache a whole batch of full-length sequences holds, in GB or
GiB. Sequence lengths stay within each model's context (and sliding window), so the
statement never names a model that could not hold them.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field

from problems.engine.numbers import UNIT_BYTES
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import (
    tex15,
)
from problems.templates.kv_cache._family import (
    KV_DTYPES,
    KV_TOKEN,
    PAIRED_UNIT,
    UNIT_TEX,
    Dtype,
    bpe,
    bytes_phrase,
    gqa_models,
    models_with_shape,
    named_query_heads,
    seq_choices,
    shape_misconceptions,
    shape_sentence,
    token_bytes,
    unit_note,
)

SizeUnit = Literal["GB", "GiB"]


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
        model = rng.choice(gqa_models())
        return KvTotalParams(
            n_layers=model.n_layers,
            n_kv_heads=model.n_kv_heads,
            head_dim=model.head_dim,
            kv_dtype=rng.choice(KV_DTYPES),
            batch_size=rng.choice([1, 1, 4, 8, 16, 32, 64, 128, 256]),
            seq_len=rng.choice(seq_choices(model)),
            unit=rng.choice(["GB", "GiB"]),
        )

    def _bytes(self, p: KvTotalParams) -> float:
        token = token_bytes(p.n_layers, p.n_kv_heads, p.head_dim, p.kv_dtype)
        return token * p.batch_size * p.seq_len

    def solve(self, p: KvTotalParams) -> dict[str, Part]:
        value = self._bytes(p) / UNIT_BYTES[p.unit]
        return {"total": Part("total", value, p.unit, label="KV cache for the batch")}

    def _models(self, p: KvTotalParams) -> tuple:
        return tuple(
            m
            for m in models_with_shape(p.n_layers, p.n_kv_heads, p.head_dim)
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
            shape_sentence(p.n_layers, p.n_kv_heads, p.head_dim, models)
            + f" The KV cache is kept in **{p.kv_dtype.upper()}**, {bytes_phrase(p.kv_dtype)} "
            "(ignore any quantization scales and paging overhead).\n\n"
            f"You serve {seqs} in the cache. How large is the KV cache for the whole batch, "
            f"in {unit_note(p.unit)}?"
        )

    def solution(self, p: KvTotalParams) -> str:
        b = bpe(p.kv_dtype)
        token = token_bytes(p.n_layers, p.n_kv_heads, p.head_dim, p.kv_dtype)
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
        out += shape_misconceptions(
            "total",
            lambda L, H, d, b: 2 * L * H * d * b * n / unit,
            p,
            p.kv_dtype,
            named_query_heads(self._models(p), p.n_kv_heads),
        )
        return out
