"""max-tokens-concurrency: how many requests a server can run at once when it reserves
each request's worst case, before and after the operator lowers the `max_tokens` cap.

A server that must never evict a running request sizes its admission by the worst case:
the prompt plus the most tokens the request may generate. Hugging Face TGI budgets its
batches this way: its launcher's `--max-batch-total-tokens` is the token count, input
plus the requested new tokens, that a batch may reserve
(https://huggingface.co/docs/text-generation-inference/reference/launcher, under
MAX_BATCH_TOTAL_TOKENS). The KV budget is the engine's share u of the GPUs' memory minus
the weights, and each reserved token costs the model's per-token KV bytes, so

    n = floor((n_gpu G u - W) / ((P + O) M_token))

for a prompt cap P and output cap O. The question is what lowering O buys: the prompt's
reservation stays, so concurrency grows by less than O shrinks (kv-max-sequences asks the
plain count for one sequence length; this template asks the cap's effect).

Slips named: reserving the output only (the prompt forgotten), scaling the count by the
ratio of the caps, the weights not subtracted, the memory share u ignored, and GiB read as
GB. Realism: catalog GPUs that serve LLMs (A100 80GB, H100 SXM, H200, B200, MI300X, MI325X,
L40S), a dense catalog model (not MLA, which caches otherwise) on the fewest GPUs of one
server (1, 2, 4 or 8, at most its KV heads) that leave at least a fifth of the engine's
memory for KV, BF16 or FP8 weights and cache where the part computes in FP8, prompt caps
of 1-8K tokens and output caps lowered from 4-32K to 256-2,048 within the context window.
The memory check is declared: the weights and the running caches fit.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

from pydantic import Field, field_validator

from hardware_db import catalog
from problems.engine.feasibility import (
    MEMORY,
    Device,
    Feasibility,
    Model,
    Plan,
    SystemDescription,
    Traffic,
)
from problems.engine.numbers import exact, params_count, sig
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import drop_close_counts, tex15
from problems.templates.kv_cache._family import GIB, bpe

_GPUS = ("a100-sxm-80gb", "h100-sxm", "h200", "b200", "mi300x", "mi325x", "l40s")
_PROMPTS = (1024, 2048, 4096, 8192)
_BEFORE = (4096, 8192, 16384, 32768)
_AFTER = (256, 512, 1024, 2048)
_DTYPE = {"bf16": "BF16", "fp8": "FP8"}


class MaxTokensParams(Params):
    model: str
    accelerator: str
    n_gpus: int = Field(ge=1, le=64)
    weight_dtype: str
    kv_dtype: str
    gpu_mem_util: float = Field(gt=0, le=1)
    prompt_tokens: int = Field(ge=1, le=10_000_000)
    max_tokens_before: int = Field(ge=1, le=10_000_000)
    max_tokens_after: int = Field(ge=1, le=10_000_000)

    @field_validator("model")
    @classmethod
    def _known_model(cls, v: str) -> str:
        if v not in {m.slug for m in catalog.models() if m.kv_lora_rank is None}:
            raise ValueError(f"unknown model (or one with latent attention) {v!r}")
        return v

    @field_validator("accelerator")
    @classmethod
    def _known_gpu(cls, v: str) -> str:
        if v not in _GPUS:
            raise ValueError(f"accelerator must be one of {list(_GPUS)}")
        return v

    @field_validator("weight_dtype", "kv_dtype")
    @classmethod
    def _dtype(cls, v: str) -> str:
        if v not in _DTYPE:
            raise ValueError("bf16 or fp8")
        return v


KV_BUDGET = formula(
    "F",
    lambda s: s.k * s.G * s.c * s.u - s.W,
    k="k",
    G="G",
    c="c",
    u="u",
    W="W",
)
N_MAX = formula(
    r"n_{\max}",
    lambda s: s.F / ((s.P + s.O) * s.M),
    F="F",
    P="P",
    O="O",
    M=r"M_{\mathrm{token}}",
)


def token_bytes(p: MaxTokensParams) -> int:
    return int(catalog.model(p.model).kv_bytes_per_token(bpe(p.kv_dtype)))


def weight_bytes(p: MaxTokensParams) -> Fraction:
    return exact(catalog.model(p.model).total_params) * exact(bpe(p.weight_dtype))


def free_bytes(p: MaxTokensParams, *, gib: int | float = GIB, util: bool = True) -> Fraction:
    """n G u - W, exactly, from the usable GiB the statement gives."""
    acc = catalog.accelerator(p.accelerator)
    u = exact(p.gpu_mem_util) if util else Fraction(1)
    return p.n_gpus * exact(acc.usable_gib) * exact(gib) * u - weight_bytes(p)


def concurrency(p: MaxTokensParams, out: int, *, free: Fraction | None = None,
                prompt: bool = True) -> int:  # fmt: skip
    budget = free_bytes(p) if free is None else free
    reserved = ((p.prompt_tokens if prompt else 0) + out) * token_bytes(p)
    return max(0, math.floor(budget / reserved))


def describe(p: MaxTokensParams) -> SystemDescription:
    """The deployment for the memory check, running as many full reservations as the
    lowered cap admits."""
    return SystemDescription(
        model=Model.of(p.model),
        device=Device.of(p.accelerator),
        plan=Plan(
            tp=p.n_gpus,
            weights_dtype=p.weight_dtype,
            kv_dtype=p.kv_dtype,
            memory_fraction=p.gpu_mem_util,
        ),
        traffic=Traffic(
            decode_batch=concurrency(p, p.max_tokens_after),
            context_tokens=p.prompt_tokens + p.max_tokens_after,
        ),
    )


@register
class MaxTokensConcurrency(Template):
    slug = "max-tokens-concurrency"
    title = "What lowering max_tokens buys in concurrency"
    family = "serving"
    lessons = ("bounding-token-work",)
    skills = ("token-budgets", "kv-cache-bytes", "serving-capacity")
    difficulty = 3
    version = 1
    Params = MaxTokensParams
    feasibility = Feasibility((MEMORY,), describe)

    def generate(self, rng: random.Random) -> MaxTokensParams:
        models = [m for m in catalog.models() if m.kv_lora_rank is None]
        while True:
            model = rng.choice(models)
            acc = catalog.accelerator(rng.choice(_GPUS))
            fp8 = "fp8" in acc.dense_flops
            wd = rng.choice(("bf16", "fp8")) if fp8 else "bf16"
            kd = rng.choice(("bf16", "bf16", "fp8")) if fp8 else "bf16"
            util = rng.choice((0.85, 0.9, 0.9, 0.95))
            weights = model.total_params * bpe(wd)
            sizes = [
                n
                for n in (1, 2, 4, 8)
                if n <= model.n_kv_heads and weights <= 0.8 * n * acc.usable_bytes * util
            ]
            prompts = [x for x in _PROMPTS if x + _BEFORE[0] <= model.max_context]
            if not sizes or not prompts:
                continue
            prompt = rng.choice(prompts)
            befores = [x for x in _BEFORE if prompt + x <= model.max_context]
            p = MaxTokensParams(
                model=model.slug,
                accelerator=acc.slug,
                n_gpus=sizes[0],
                weight_dtype=wd,
                kv_dtype=kd,
                gpu_mem_util=util,
                prompt_tokens=prompt,
                max_tokens_before=rng.choice(befores),
                max_tokens_after=rng.choice(_AFTER),
            )
            if concurrency(p, p.max_tokens_before) >= 2 and len(self.misconceptions(p)) >= 6:
                return p

    def solve(self, p: MaxTokensParams) -> dict[str, Part]:
        return {
            "before": Part(
                "before",
                concurrency(p, p.max_tokens_before),
                "",
                kind=Kind.INTEGER,
                tolerance=Exact(),
                label="Concurrent requests before",
            ),
            "after": Part(
                "after",
                concurrency(p, p.max_tokens_after),
                "",
                kind=Kind.INTEGER,
                tolerance=Exact(),
                label="Concurrent requests after",
            ),
        }

    def statement(self, p: MaxTokensParams) -> str:
        m = catalog.model(p.model)
        acc = catalog.accelerator(p.accelerator)
        if p.n_gpus > 1:
            gpus = f"{p.n_gpus} {acc.short_name} GPUs ($k = {p.n_gpus}$, tensor-parallel), each"
        else:
            gpus = f"one {acc.short_name} ($k = 1$ GPU)"
        return (
            f"**{m.name}** ({params_count(m.total_params)} parameters, "
            f"$N = {tex15(m.total_params)}$) serves on {gpus} "
            f"with $G = {tex15(acc.usable_gib)}$ GiB usable. The engine "
            f"may fill $u = {tex15(p.gpu_mem_util)}$ of that memory; the weights are "
            f"{_DTYPE[p.weight_dtype]} ({sig(bpe(p.weight_dtype))} bytes per parameter) and "
            f"every token's KV cache takes $M_{{\\mathrm{{token}}}} = {tex15(token_bytes(p))}$ "
            f"bytes ({_DTYPE[p.kv_dtype]} keys and values over all layers).\n\n"
            "So that no running request is ever evicted, the scheduler admits a request "
            "only if it can reserve the KV cache of its worst case: the longest prompt "
            f"allowed, $P = {p.prompt_tokens}$ tokens, plus its `max_tokens`. Prompts are "
            f"capped at $P$ and `max_tokens` at $O = {p.max_tokens_before}$.\n\n"
            "How many requests can run at once? The operator lowers the `max_tokens` cap "
            f"to {p.max_tokens_after}: how many can run at once now?"
        )

    def solution(self, p: MaxTokensParams) -> str:
        acc = catalog.accelerator(p.accelerator)
        free = free_bytes(p)
        w = weight_bytes(p)
        parts = []
        for out, word in ((p.max_tokens_before, "Before"), (p.max_tokens_after, "After")):
            n = concurrency(p, out)
            parts.append(
                f"{word}, with $O = {out}$:\n\n"
                + step(
                    N_MAX,
                    {"F": tex15(float(free)), "P": p.prompt_tokens, "O": out, "M": token_bytes(p)},
                    float(free / ((p.prompt_tokens + out) * token_bytes(p))),
                )
                + f"\n\nRounded down: **{n}** requests."
            )
        ratio = (p.prompt_tokens + p.max_tokens_before) / (p.prompt_tokens + p.max_tokens_after)
        return (
            f"The weights take $W = {tex15(float(w))}$ bytes. The KV budget $F$ is the "
            "engine's share of the memory less the weights, in bytes ($c = 2^{30}$ bytes "
            "in a GiB):\n\n"
            + step(
                KV_BUDGET,
                {
                    "k": p.n_gpus,
                    "G": tex15(acc.usable_gib),
                    "c": "2^{30}",
                    "u": p.gpu_mem_util,
                    "W": tex15(float(w)),
                },  # fmt: skip
                float(free),
                "bytes",
            )
            + "\n\nEach request reserves $(P + O) M_{\\mathrm{token}}$ bytes.\n\n"
            + "\n\n".join(parts)
            + f"\n\nThe reservation shrank by a factor of only {sig(ratio, 4)}, not "
            f"{sig(p.max_tokens_before / p.max_tokens_after, 4)}: the prompt's "
            f"{p.prompt_tokens} tokens are reserved either way."
        )

    def misconceptions(self, p: MaxTokensParams) -> list[Misconception]:
        acc = catalog.accelerator(p.accelerator)
        raw: list[Misconception] = []
        for part, out in (("before", p.max_tokens_before), ("after", p.max_tokens_after)):
            raw += [
                Misconception(
                    "prompt-not-reserved",
                    part,
                    concurrency(p, out, prompt=False),
                    "That reserves only the output tokens. The prompt's KV cache is held for "
                    "the whole request too: each reserves (P + O) tokens.",
                ),
                Misconception(
                    "weights-not-subtracted",
                    part,
                    concurrency(p, out, free=free_bytes(p) + weight_bytes(p)),
                    "That gives the KV cache all the engine's memory. The weights come out "
                    "of it first.",
                ),
                Misconception(
                    "utilization-not-applied",
                    part,
                    concurrency(p, out, free=free_bytes(p, util=False)),
                    f"That fills all the memory. The engine may use only u = "
                    f"{sig(p.gpu_mem_util)} of it.",
                ),
                Misconception(
                    "gib-read-as-gb",
                    part,
                    concurrency(p, out, free=free_bytes(p, gib=10**9)),
                    f"That reads {sig(acc.usable_gib)} GiB as GB. A GiB is 2^30 bytes, "
                    "about 7.4% more than a GB.",
                ),
            ]
        before = concurrency(p, p.max_tokens_before)
        raw.append(
            Misconception(
                "scaled-by-cap-ratio",
                "after",
                math.floor(before * p.max_tokens_before / p.max_tokens_after),
                "That scales the count by the ratio of the caps. Only the output part of "
                "each reservation shrinks; the prompt's P tokens stay reserved.",
            )
        )
        counts = {name: int(part.value) for name, part in self.solve(p).items()}
        return drop_close_counts([m for m in raw if m.value != counts[m.part]], counts)
