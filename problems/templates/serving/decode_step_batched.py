"""decode-step-batched: the memory-bandwidth floor on a batched decode step, which reads
the weights once for the whole batch and every sequence's own KV cache, and the tokens
per second it yields.

Realism: a dense catalog model with grouped-query attention (no MLA) and its own shape,
on a catalog part with a published bandwidth, weights at a precision the part runs
(FP8/FP4 only where it publishes a peak for them), a KV cache in BF16/FP16 or FP8 as
serving engines keep it, on the smallest of 1, 2, 4 or 8 devices that holds the weights
with room to spare (sometimes doubled), with tensor parallelism. Batches of 4-256
sequences at 1K-32K tokens of context within the model's window, and the weights plus
every cache must fit in 90% of the devices' usable memory. The devices are called GPUs
only when they are GPUs. Discrimination: the cache left out (kv-cache-ignored), the
weights read once per sequence (weights-per-sequence), only K cached (kv-factor-2), one
device doing all the reads (per-gpu-vs-total), and one sequence's rate taken as the
batch's (per-sequence-rate). A variant is redrawn unless the answer and every slip of a
part lie 3% apart. No parallelism hint for the generic detector: it would take a faster
rate by 2, 4 or 8 for per-gpu-vs-total, hiding the generic bytes slips; the template
names the slower rate itself.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import BYTES_PER_ELEMENT, params_count, sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import (
    accelerator_names,
    bw_tbps_of,
    dense_models,
    matching_accelerators,
    model_with_params,
    parts_separated,
)
from problems.templates.kv_cache._family import KV_DTYPES, token_bytes
from problems.templates.serving import _system as serving_system
from problems.templates.serving._family import (
    device_noun,
    gpu_count,
    per_param,
    read_rate_sentence,
    weight_dtypes,
)

Precision = Literal["fp32", "fp16", "bf16", "fp8", "int8", "int4", "fp4"]


class StepParams(Params):
    n_params: float = Field(gt=0, le=1e14)
    weight_dtype: Precision
    n_layers: int = Field(ge=1, le=1000)
    n_kv_heads: int = Field(ge=1, le=1024)
    head_dim: int = Field(ge=1, le=4096)
    kv_dtype: Precision
    batch_size: int = Field(ge=1, le=1_000_000)
    context_tokens: int = Field(ge=1, le=100_000_000)
    mem_bw_tbps: float = Field(gt=0, le=1e4)
    n_gpus: int = Field(ge=1, le=4096)


STEP = formula(
    r"t_{\mathrm{step}}",
    lambda s: (s.N * s.b + s.B * s.c * s.k) / (s.n * s.W),
    N="N",
    b="b",
    B="B",
    c="c",
    k=r"M_{\mathrm{token}}",
    n="n",
    W=r"B_{\mathrm{mem}}",
)
_BATCHES = (4, 8, 16, 32, 48, 64, 96, 128, 192, 256)
_CONTEXTS = (1024, 2048, 4096, 8192, 16384, 32768)
_FIT = 0.9


def _kvpt(p: StepParams) -> float:
    return token_bytes(p.n_layers, p.n_kv_heads, p.head_dim, p.kv_dtype)


def _weights(p: StepParams) -> float:
    return p.n_params * BYTES_PER_ELEMENT[p.weight_dtype]


def _seconds(p: StepParams, weights: float, cache: float, n: int | None = None) -> float:
    return (weights + cache) / ((n or p.n_gpus) * p.mem_bw_tbps * 1e12)


def _cache(p: StepParams) -> float:
    return p.batch_size * p.context_tokens * _kvpt(p)


@register
class DecodeStepBatched(Template):
    slug = "decode-step-batched"
    title = "A batched decode step: weights once, every sequence's cache"
    family = "serving"
    lessons = ("batching-for-llm-inference", "the-kv-cache", "llm-inference-at-scale")
    skills = ("decode-bandwidth-bound", "decode-batching", "kv-cache-reads")
    difficulty = 3
    version = 1
    Params = StepParams
    feasibility = serving_system.BATCHED_STEP

    def generate(self, rng: random.Random) -> StepParams:
        models = [m for m in dense_models() if m.kv_lora_rank is None]
        accs = [a for a in catalog.accelerators() if a.mem_bw_bytes_per_s > 0]
        while True:
            model = rng.choice(models)
            acc = rng.choice(accs)
            dtype = rng.choice(weight_dtypes(acc))
            n = gpu_count(rng, model.total_params * BYTES_PER_ELEMENT[dtype], acc)
            contexts = [c for c in _CONTEXTS if c <= model.max_context]
            if n is None or not contexts:
                continue
            p = StepParams(
                n_params=float(model.total_params),
                weight_dtype=dtype,
                n_layers=model.n_layers,
                n_kv_heads=model.n_kv_heads,
                head_dim=model.head_dim,
                kv_dtype=rng.choice(KV_DTYPES),
                batch_size=rng.choice(_BATCHES),
                context_tokens=rng.choice(contexts),
                mem_bw_tbps=bw_tbps_of(acc),
                n_gpus=n,
            )
            if _weights(p) + _cache(p) > _FIT * n * acc.usable_bytes:
                continue
            if parts_separated(self.solve(p), self.misconceptions(p), 0.03):
                return p

    def solve(self, p: StepParams) -> dict[str, Part]:
        seconds = _seconds(p, _weights(p), _cache(p))
        return {
            "step": Part("step", seconds * 1e3, "ms", label="Decode step (floor)"),
            "tokens_per_s": Part(
                "tokens_per_s", p.batch_size / seconds, "tok/s", label="Tokens per second"
            ),
        }

    def _hits(self, p: StepParams):
        return matching_accelerators(mem_bw_tbps=p.mem_bw_tbps)

    def statement(self, p: StepParams) -> str:
        named = model_with_params(p.n_params, among=dense_models())
        size = f"{params_count(p.n_params)} parameters ($N = {tex(p.n_params, 15)}$)"
        model = (
            f"{named.name}, a dense model with {size}," if named else f"A dense model with {size}"
        )
        hits = self._hits(p)
        which = f" ({accelerator_names(hits)})" if hits else ""
        accs = [a for a, _ in hits]
        b = BYTES_PER_ELEMENT[p.weight_dtype]
        kb = BYTES_PER_ELEMENT[p.kv_dtype]
        if p.n_gpus == 1:
            hardware = (
                f"It runs on a single {device_noun(accs)}{which}, which reads its HBM at "
                f"{sig(p.mem_bw_tbps, 12)} TB/s."
            )
        else:
            nouns = device_noun(accs, p.n_gpus)
            hardware = (
                f"It runs on {p.n_gpus} {nouns}{which} with tensor parallelism; each reads "
                f"its HBM at {sig(p.mem_bw_tbps, 12)} TB/s, and the {nouns} read their shares "
                "of the weights and of the cache in parallel."
            )
        return (
            f"{model} keeps its weights in **{p.weight_dtype.upper()}** ({sig(b)} "
            f"byte{'' if b == 1 else 's'} per parameter). It has {p.n_layers} layers with "
            f"{p.n_kv_heads} KV heads of dimension {p.head_dim}, and its KV cache (keys and "
            f"values) is kept in **{p.kv_dtype.upper()}** ({sig(kb)} "
            f"byte{'' if kb == 1 else 's'} per element). {hardware}\n\n"
            f"It decodes a batch of {p.batch_size} sequences, each with "
            f"${tex(p.context_tokens, 12)}$ tokens of context in the cache. Every decode step "
            "streams all the weights from HBM once for the whole batch, and every sequence's "
            "whole KV cache. Ignore compute, communication, activations and quantization "
            "scales.\n\n"
            "1. What is the floor on the time of one decode step, in ms?\n"
            "2. Each step yields one token per sequence: how many output tokens per second "
            "does the batch produce, in tok/s?"
        )

    def solution(self, p: StepParams) -> str:
        kvpt = _kvpt(p)
        seconds = _seconds(p, _weights(p), _cache(p))
        b = BYTES_PER_ELEMENT[p.weight_dtype]
        return (
            f"One token's cache holds $M_{{\\mathrm{{token}}}} = 2 \\times {p.n_layers} \\times "
            f"{p.n_kv_heads} \\times {p.head_dim} \\times {sig(BYTES_PER_ELEMENT[p.kv_dtype])}"
            f" = {tex(kvpt, 12)}$ bytes (K and V, every layer). A step reads the weights, "
            f"$N b = {tex(_weights(p), 12)}$ bytes at " + per_param(b) + ", once, and the "
            f"cache of $B = {p.batch_size}$ sequences of $c = {tex(p.context_tokens)}$ tokens, "
            f"$B c M_{{\\mathrm{{token}}}} = {tex(_cache(p), 12)}$ bytes, "
            + read_rate_sentence(
                p.n_gpus, device_noun([a for a, _ in self._hits(p)], p.n_gpus), p.mem_bw_tbps
            )
            + ":\n\n"
            + step(
                STEP,
                {
                    "N": tex(p.n_params, 15),
                    "b": b,
                    "B": p.batch_size,
                    "c": p.context_tokens,
                    "k": tex(kvpt, 12),
                    "n": p.n_gpus,
                    "W": f"{tex(p.mem_bw_tbps, 12)} \\times 10^{{12}}",
                },
                seconds,
                "s",
            )
            + f"\n\nThat is **{sig(seconds * 1e3, 6)} ms** per step. Each step yields "
            f"{p.batch_size} tokens: ${p.batch_size} / {tex(seconds)}$ s = "
            f"**{sig(p.batch_size / seconds, 6)} tok/s**."
        )

    def misconceptions(self, p: StepParams) -> list[Misconception]:
        w, c, batch = _weights(p), _cache(p), p.batch_size
        seconds = _seconds(p, w, c)
        no_kv = _seconds(p, w, 0)
        per_seq = _seconds(p, batch * w, c)
        half_kv = _seconds(p, w, c / 2)
        out = [
            Misconception(
                "kv-cache-ignored",
                "step",
                no_kv * 1e3,
                "That reads only the weights. Every step also reads each sequence's whole "
                "KV cache, batch x context x kvpt bytes.",
            ),
            Misconception(
                "kv-cache-ignored",
                "tokens_per_s",
                batch / no_kv,
                "That leaves out the KV-cache reads, which grow with the batch and context.",
            ),
            Misconception(
                "weights-per-sequence",
                "step",
                per_seq * 1e3,
                f"That reads the weights once per sequence. Batching shares one read of the "
                f"weights among all {batch} sequences; only the caches are per sequence.",
            ),
            Misconception(
                "kv-factor-2",
                "step",
                half_kv * 1e3,
                "That caches only one tensor per token and layer. The cache holds both K "
                "and V: kvpt has a factor 2.",
            ),
            Misconception(
                "per-sequence-rate",
                "tokens_per_s",
                1 / seconds,
                f"That is one sequence's rate. Each step yields a token for each of the "
                f"{batch} sequences.",
            ),
        ]
        if p.n_gpus > 1:
            out += [
                Misconception(
                    "per-gpu-vs-total",
                    "step",
                    seconds * 1e3 * p.n_gpus,
                    f"That streams everything through one device. The {p.n_gpus} devices "
                    "each read their share at the same time.",
                ),
                Misconception(
                    "per-gpu-vs-total",
                    "tokens_per_s",
                    batch / (seconds * p.n_gpus),
                    f"That streams everything through one device. The {p.n_gpus} devices "
                    "each read their share at the same time.",
                ),
            ]
        return out
