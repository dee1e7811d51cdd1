"""kv-transfer-time: disaggregated serving moves a prompt's KV cache from the prefill
server to the decode server; how many MB is it, and how long does the link take?

Realism the generator enforces (issue #11): catalog GQA/MHA models only (MLA caches a
latent instead of K and V), named in the statement; caches in BF16, FP16 or FP8 (what
vLLM, SGLang and TensorRT-LLM keep); prompts within the model's context (and sliding
window); the scale-out links in the catalog that connect serving nodes (InfiniBand
HDR/NDR/XDR, RoCE at 200/400/800 GbE), at their line rate in Gb/s, protocol overhead
ignored as the statement says; ms for transfers under a second, otherwise mostly s.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates.kv_cache._family import (
    KV_DTYPES,
    KV_TOKEN,
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
)

TimeUnit = Literal["ms", "s"]
TIME_UNIT = {"ms": 1e-3, "s": 1.0}
TRANSFER_LINKS = (
    "infiniband-hdr",
    "infiniband-ndr",
    "infiniband-xdr",
    "roce-200gbe",
    "roce-400gbe",
    "roce-800gbe",
)


class KvTransferParams(Params):
    n_layers: int = Field(ge=1, le=1000)
    n_kv_heads: int = Field(ge=1, le=1024)
    head_dim: int = Field(ge=1, le=4096)
    kv_dtype: Dtype
    prompt_tokens: int = Field(ge=1, le=100_000_000)
    link_gbps: float = Field(gt=0, le=1_000_000)
    unit: TimeUnit


def link_named(gbps: float) -> catalog.Link | None:
    """The first catalog transfer link with this line rate (statements name it)."""
    for slug in TRANSFER_LINKS:
        link = catalog.link(slug)
        if link.line_rate_bits_per_s == gbps * 1e9:
            return link
    return None


TIME = formula("t", lambda s: s.M * 8 / s.R, M="M", R="R")


@register
class KvTransferTime(Template):
    slug = "kv-transfer-time"
    title = "Moving a prompt's KV cache from prefill to decode"
    family = "kv_cache"
    lessons = ("llm-inference-at-scale", "the-kv-cache", "ai-networking-infiniband-roce")
    skills = ("kv-cache-bytes", "disaggregated-serving", "link-bits-vs-bytes")
    difficulty = 2
    Params = KvTransferParams

    def generate(self, rng: random.Random) -> KvTransferParams:
        model = rng.choice(gqa_models())
        link = catalog.link(rng.choice(TRANSFER_LINKS))
        p = KvTransferParams(
            n_layers=model.n_layers,
            n_kv_heads=model.n_kv_heads,
            head_dim=model.head_dim,
            kv_dtype=rng.choice(KV_DTYPES),
            prompt_tokens=rng.choice(seq_choices(model)),
            link_gbps=link.line_rate_bits_per_s / 1e9,
            unit="s",
        )
        seconds = self._bytes(p) * 8 / (p.link_gbps * 1e9)
        unit = "ms" if seconds < 1 or rng.random() < 0.25 else "s"
        return p.model_copy(update={"unit": unit})

    def _bytes(self, p: KvTransferParams) -> float:
        return p.prompt_tokens * token_bytes(p.n_layers, p.n_kv_heads, p.head_dim, p.kv_dtype)

    def _time(self, total_bytes: float, p: KvTransferParams) -> float:
        return total_bytes * 8 / (p.link_gbps * 1e9) / TIME_UNIT[p.unit]

    def solve(self, p: KvTransferParams) -> dict[str, Part]:
        total = self._bytes(p)
        return {
            "kv": Part("kv", total / 1e6, "MB", label="KV cache to move"),
            "time": Part("time", self._time(total, p), p.unit, label="Transfer time"),
        }

    def statement(self, p: KvTransferParams) -> str:
        models = models_with_shape(p.n_layers, p.n_kv_heads, p.head_dim)
        link = link_named(p.link_gbps)
        via = f"one {link.short_name} link" if link is not None else "one network link"
        return (
            shape_sentence(p.n_layers, p.n_kv_heads, p.head_dim, models)
            + f" Its KV cache is kept in **{p.kv_dtype.upper()}**, {bytes_phrase(p.kv_dtype)} "
            "(ignore any quantization scales). In disaggregated serving a prefill server "
            f"processes a **{p.prompt_tokens:,}-token** prompt and sends the prompt's whole "
            f"KV cache (every layer, K and V) to a decode server over {via} running at "
            f"**{sig(p.link_gbps)} Gb/s** (gigabits per second, $10^{{9}}$ bits). Ignore "
            "protocol overhead and latency: the link moves data at its full rate.\n\n"
            "1. How much KV cache is sent, in MB ($10^{6}$ bytes)?\n"
            f"2. How long does the transfer take, in {p.unit}?"
        )

    def solution(self, p: KvTransferParams) -> str:
        b = bpe(p.kv_dtype)
        token = token_bytes(p.n_layers, p.n_kv_heads, p.head_dim, p.kv_dtype)
        total = self._bytes(p)
        t = self._time(total, p)
        scale = "" if p.unit == "s" else ", or " + f"{sig(t, 6)} ms"
        return (
            "Every layer caches a key and a value vector per KV head for each token, at "
            f"$b = {sig(b)}$ byte{'' if b == 1 else 's'} per element:\n\n"
            + step(
                KV_TOKEN,
                {"L": p.n_layers, "H": p.n_kv_heads, "d": p.head_dim, "b": b},
                token,
                "B",
            )
            + f"\n\nThe prompt's {p.prompt_tokens:,} tokens make "
            f"$M = {p.prompt_tokens} \\times {tex(token)} = {tex(total, 12)}$ bytes, "
            f"**{sig(total / 1e6, 8)} MB**. A link rated in gigabits moves "
            f"$R = {sig(p.link_gbps)} \\times 10^{{9}}$ bits per second, and each byte is 8 "
            "bits:\n\n"
            + step(TIME, {"M": total, "R": p.link_gbps * 1e9}, total * 8 / (p.link_gbps * 1e9), "s")
            + scale
            + "."
        )

    def misconceptions(self, p: KvTransferParams) -> list[Misconception]:
        total = self._bytes(p)
        t = self._time(total, p)
        models = models_with_shape(p.n_layers, p.n_kv_heads, p.head_dim)
        out = shape_misconceptions(
            "kv",
            lambda L, H, d, b: p.prompt_tokens * 2 * L * H * d * b / 1e6,
            p,
            p.kv_dtype,
            named_query_heads(models, p.n_kv_heads),
        )
        out.append(
            Misconception(
                "bits-vs-bytes",
                "time",
                t / 8,
                f"That divides bytes by the link's {sig(p.link_gbps)} Gb/s as if it were "
                "GB/s. The link is rated in bits: multiply the bytes by 8 first.",
            )
        )
        out.append(
            Misconception(
                "missing-kv-factor-2",
                "time",
                t / 2,
                "That sends only the keys (or only the values): each layer's cache holds both "
                "K and V for every token.",
            )
        )
        return out
