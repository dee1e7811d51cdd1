"""kv-cache-per-token: the KV-cache bytes one token takes across all layers, in KB,
KiB, MB or MiB; the slips it names are the unit pair, the factor 2 for K and V, one
layer only, query heads for KV heads and the bytes per element.

Realism: catalog GQA/MHA models only (MLA caches a latent instead), KV caches in BF16,
FP16 or FP8 as serving engines keep them. In 45% of the variants (from a hash of the
parameters) the statement quotes the model's `config.json` instead of giving d_h, and
the learner derives d_h = hidden_size / num_attention_heads (hidden-size-as-head-dim is
the slip named there).
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field

from problems.engine.numbers import UNIT_BYTES, sig
from problems.engine.registry import register
from problems.engine.solutions import step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates.kv_cache._family import (
    KV_DTYPES,
    KV_TOKEN,
    PAIRED_UNIT,
    UNIT_TEX,
    Dtype,
    bpe,
    bytes_phrase,
    config_sentence,
    gqa_models,
    hidden_as_head_dim,
    models_with_shape,
    named_query_heads,
    shape_misconceptions,
    shape_sentence,
    token_bytes,
    unit_note,
    uses_config,
)

TokenUnit = Literal["KB", "KiB", "MB", "MiB"]


class KvPerTokenParams(Params):
    n_layers: int = Field(ge=1, le=1000)
    n_kv_heads: int = Field(ge=1, le=1024)
    head_dim: int = Field(ge=1, le=4096)
    kv_dtype: Dtype
    unit: TokenUnit


@register
class KvCachePerToken(Template):
    slug = "kv-cache-per-token"
    title = "KV-cache bytes per token"
    family = "kv_cache"
    lessons = ("the-kv-cache", "gpu-memory-math", "inside-the-transformer")
    skills = ("kv-cache-bytes", "gqa-kv-heads", "units-kb-kib")
    difficulty = 1
    Params = KvPerTokenParams
    version = 2

    def generate(self, rng: random.Random) -> KvPerTokenParams:
        model = rng.choice(gqa_models())
        return KvPerTokenParams(
            n_layers=model.n_layers,
            n_kv_heads=model.n_kv_heads,
            head_dim=model.head_dim,
            kv_dtype=rng.choice(KV_DTYPES),
            unit=rng.choice(["KB", "KiB", "MB", "MiB"]),
        )

    def _value(self, p: KvPerTokenParams) -> float:
        token = token_bytes(p.n_layers, p.n_kv_heads, p.head_dim, p.kv_dtype)
        return token / UNIT_BYTES[p.unit]

    def solve(self, p: KvPerTokenParams) -> dict[str, Part]:
        return {"per_token": Part("per_token", self._value(p), p.unit, label="KV cache per token")}

    def statement(self, p: KvPerTokenParams) -> str:
        models = models_with_shape(p.n_layers, p.n_kv_heads, p.head_dim)
        return (
            self._shape(p, models)
            + f" The KV cache is kept in **{p.kv_dtype.upper()}**, {bytes_phrase(p.kv_dtype)} "
            "(ignore any quantization scales).\n\n"
            "How much KV-cache memory does **one token** take across all layers, "
            f"in {unit_note(p.unit)}?"
        )

    def _config(self, p: KvPerTokenParams, models: tuple) -> bool:
        return uses_config(p.n_layers, p.n_kv_heads, p.head_dim, models, p.kv_dtype, p.unit)

    def _shape(self, p: KvPerTokenParams, models: tuple) -> str:
        if self._config(p, models):
            return config_sentence(p.n_layers, p.n_kv_heads, p.head_dim, models)
        return shape_sentence(p.n_layers, p.n_kv_heads, p.head_dim, models)

    def solution(self, p: KvPerTokenParams) -> str:
        b = bpe(p.kv_dtype)
        token = token_bytes(p.n_layers, p.n_kv_heads, p.head_dim, p.kv_dtype)
        value = self._value(p)
        other = PAIRED_UNIT[p.unit]
        models = models_with_shape(p.n_layers, p.n_kv_heads, p.head_dim)
        derive = ""
        if self._config(p, models):
            derive = (
                f"From the config, $d_h$ = hidden_size / num_attention_heads = {p.head_dim}, "
                f"$L = {p.n_layers}$ and $H_{{\\mathrm{{kv}}}} = {p.n_kv_heads}$.\n\n"
            )
        return derive + (
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
        token = token_bytes(p.n_layers, p.n_kv_heads, p.head_dim, p.kv_dtype)
        other = PAIRED_UNIT[p.unit]
        models = models_with_shape(p.n_layers, p.n_kv_heads, p.head_dim)
        out = [
            Misconception(
                "gb-vs-gib",
                "per_token",
                token / UNIT_BYTES[other],
                f"That is the size in {other}. The question asks for {p.unit}, "
                f"which is {UNIT_TEX[p.unit].replace('{', '').replace('}', '')} bytes.",
            ),
        ]
        out += shape_misconceptions(
            "per_token",
            lambda L, H, d, b: 2 * L * H * d * b / unit,
            p,
            p.kv_dtype,
            named_query_heads(models, p.n_kv_heads),
        )
        if self._config(p, models):
            out.append(
                hidden_as_head_dim(
                    "per_token", lambda L, H, d, b: 2 * L * H * d * b / unit, p, models
                )
            )
        return out
