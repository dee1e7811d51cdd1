"""kv-cache-total: the KV cache a whole batch of full-length sequences holds, in GB or
GiB. Sequence lengths stay within each model's context (and sliding window), so the
statement never names a model that could not hold them.

Realism the generator enforces (issue #11): KV caches in BF16, FP16 or FP8 only; at most
2^21 tokens in flight (batch x context) and at most 1 TB of cache, the most one 8-GPU
node could hold (8 x B200 is 1.5 TB in all, weights included); batch sizes never equal
the layer count, so the one-layer and one-sequence slips land apart. Rather than
pretend a big batch sits on one device, a second part asks whether the cache alone fits
in one named accelerator (picked from a hash of the parameters; the generator keeps the
cache at least 15% away from that device's capacity so the yes/no is not a rounding
call). In 45% of the variants the statement quotes the model's `config.json` instead of
d_h (hidden-size-as-head-dim is the slip named there).
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field

from problems.engine.numbers import UNIT_BYTES, sig
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
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
    config_sentence,
    gqa_models,
    hidden_as_head_dim,
    models_with_shape,
    named_query_heads,
    params_hash,
    seq_choices,
    serving_accelerators,
    shape_misconceptions,
    shape_sentence,
    token_bytes,
    unit_note,
    uses_config,
)

SizeUnit = Literal["GB", "GiB"]

BATCHES = (1, 1, 4, 8, 16, 32, 64, 128, 256)
MAX_TOKENS = 2**21  # tokens in flight across the batch
MAX_BYTES = 10**12  # 1 TB of cache: more than one 8-GPU node could hold beside weights


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
    version = 2

    def generate(self, rng: random.Random) -> KvTotalParams:
        models = gqa_models()
        for _ in range(1000):
            model = rng.choice(models)
            p = KvTotalParams(
                n_layers=model.n_layers,
                n_kv_heads=model.n_kv_heads,
                head_dim=model.head_dim,
                kv_dtype=rng.choice(KV_DTYPES),
                batch_size=rng.choice(BATCHES),
                seq_len=rng.choice(seq_choices(model)),
                unit=rng.choice(["GB", "GiB"]),
            )
            if p.batch_size == p.n_layers or p.batch_size * p.seq_len > MAX_TOKENS:
                continue
            if self._bytes(p) > MAX_BYTES:
                continue
            ratio = self._bytes(p) / self._device_bytes(p)
            if 1 / 1.15 < ratio < 1.15:
                continue
            return p
        raise RuntimeError("kv-cache-total: no realistic variant drawn")

    def _device(self, p: KvTotalParams):
        accs = serving_accelerators()
        key = params_hash(
            "device", p.n_layers, p.n_kv_heads, p.head_dim, p.kv_dtype, p.batch_size, p.seq_len
        )
        return accs[key % len(accs)]

    def _device_bytes(self, p: KvTotalParams) -> float:
        return round(self._device(p).usable_gib, 2) * UNIT_BYTES["GiB"]

    def _config(self, p: KvTotalParams, models: tuple) -> bool:
        return uses_config(
            p.n_layers, p.n_kv_heads, p.head_dim, models, p.kv_dtype, p.batch_size, p.seq_len
        )

    def _bytes(self, p: KvTotalParams) -> float:
        token = token_bytes(p.n_layers, p.n_kv_heads, p.head_dim, p.kv_dtype)
        return token * p.batch_size * p.seq_len

    def solve(self, p: KvTotalParams) -> dict[str, Part]:
        value = self._bytes(p) / UNIT_BYTES[p.unit]
        fits = "yes" if self._bytes(p) <= self._device_bytes(p) else "no"
        return {
            "total": Part("total", value, p.unit, label="KV cache for the batch"),
            "fits": Part(
                "fits",
                fits,
                kind=Kind.CHOICE,
                tolerance=Exact(),
                choices=("yes", "no"),
                label="Fits in one device",
            ),
        }

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
        if self._config(p, models):
            shape = config_sentence(p.n_layers, p.n_kv_heads, p.head_dim, models)
        else:
            shape = shape_sentence(p.n_layers, p.n_kv_heads, p.head_dim, models)
        acc = self._device(p)
        return (
            shape
            + f" The KV cache is kept in **{p.kv_dtype.upper()}**, {bytes_phrase(p.kv_dtype)} "
            "(ignore any quantization scales and paging overhead).\n\n"
            f"You serve {seqs} in the cache.\n\n"
            f"1. How large is the KV cache for the whole batch, in {unit_note(p.unit)}?\n"
            f"2. Would that cache alone fit in the memory of one {acc.prose_name} "
            f"({tex15(round(acc.usable_gib, 2))} GiB usable)? Answer yes or no."
        )

    def solution(self, p: KvTotalParams) -> str:
        b = bpe(p.kv_dtype)
        token = token_bytes(p.n_layers, p.n_kv_heads, p.head_dim, p.kv_dtype)
        value = self._bytes(p) / UNIT_BYTES[p.unit]
        acc = self._device(p)
        device = self._device_bytes(p)
        verdict = "fits" if self._bytes(p) <= device else "does not fit"
        derive = ""
        if self._config(p, self._models(p)):
            derive = (
                f"From the config, $d_h$ = hidden_size / num_attention_heads = {p.head_dim}, "
                f"$L = {p.n_layers}$ and $H_{{\\mathrm{{kv}}}} = {p.n_kv_heads}$.\n\n"
            )
        return derive + (
            "First the bytes one token adds (K and V, every layer, every KV head), at "
            f"$b = {sig(b)}$ byte{'' if b == 1 else 's'} per element:\n\n"
            + step(
                KV_TOKEN,
                {"L": p.n_layers, "H": p.n_kv_heads, "d": p.head_dim, "b": b},
                token,
                "B",
            )
            + "\n\nEvery cached token of every sequence costs that much; divide by "
            f"$u = {UNIT_TEX[p.unit]}$, the bytes in one {p.unit}:\n\n"
            + step(
                KV_TOTAL,
                {"m": token, "B": p.batch_size, "s": p.seq_len, "u": UNIT_TEX[p.unit]},
                value,
                p.unit,
            )
            + f"\n\nOne {acc.short_name} has {sig(round(acc.usable_gib, 2), 6)} GiB = "
            f"{sig(device / 1e9, 6)} GB, so the {sig(self._bytes(p) / 1e9, 6)} GB cache "
            f"**{verdict}** (answer **{'yes' if verdict == 'fits' else 'no'}**)."
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
            one_fits = total / p.batch_size <= self._device_bytes(p)
            out.append(
                Misconception(
                    "forgot-batch",
                    "fits",
                    "yes" if one_fits else "no",
                    f"That judges one sequence's cache. All {p.batch_size} sequences are held at "
                    "once, so compare the whole batch's cache with the device's memory.",
                )
            )
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
        if self._config(p, self._models(p)):
            out.append(
                hidden_as_head_dim(
                    "total", lambda L, H, d, b: 2 * L * H * d * b * n / unit, p, self._models(p)
                )
            )
        return out
