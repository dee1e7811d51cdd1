"""prefix-cache-ttft: the time to first token when the start of the prompt is already in
the prefix cache, and the share of the prefill the cache saves.

Realism: as prefill-time, a dense catalog model with a prompt within its context window,
on a catalog part (any part may serve) at BF16 or FP8, on the smallest of 1, 2, 4 or 8
devices that holds the weights with room to spare (sometimes doubled), with tensor
parallelism, at a prefill MFU of 0.25-0.6. The statement names the parts by their peak
and the precision that peak is quoted at; every part it names holds the weights at that
precision (issue 34: Gaudi 3's FP8 peak equals its BF16 one, so an FP8 draw of 405B on
four of them read as 811 GB of BF16 weights on 512 GB).

The contract counts 2N FLOP per prefilled token and ignores attention (templates-2.md),
so prompts are bounded by construction to where that holds: the attention-score FLOPs of
the T - C prefilled tokens, 2 L H (T - C)(T + C + 1) with H = heads x head_dim, stay
within 15% of 2 N (T - C), i.e. L H (T + C + 1) / N <= 0.15. That keeps an 8B model to
about 9k tokens of prompt plus cache and a 405B model to about 29k; a 131k-token prompt,
where attention is most of the work and the 2N count gave half the true TTFT, is not
drawn. The cached prefix (a shared system prompt,
earlier turns of a conversation) is 25-95% of the prompt, rounded down to whole
16-token cache blocks as vLLM caches them, and at least one token is prefilled. The
devices are called GPUs only when they are GPUs. Discrimination: prefilling the whole
prompt (cache-ignored), prefilling the cached part instead (cached-prefilled), MFU
ignored, 6N training FLOPs and, with several devices, one device doing all the work
(per-gpu-vs-total); on saved, the uncached share (uncached-share). A variant is redrawn
when two of them, or one and the answer, land within the grader's reach (a half-cached
prompt makes the cached and uncached shares equal). No 80% share: its uncached 20% is
what a generic /4 slip looks like. No parallelism hint for the generic detector: it would
name a whole-number multiple of the saved share per-gpu-vs-total; the template names that
slip on ttft itself.
"""

from __future__ import annotations

import random

from pydantic import Field, model_validator

from problems.engine.numbers import BYTES_PER_ELEMENT, params_count, sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import (
    PRECISION_LABEL,
    accelerator_names,
    dense_models,
    draw_accelerator,
    matching_accelerators,
    model_with_params,
    parts_separated,
    peak_tflops_of,
    sparse_note,
)
from problems.templates.serving import _system as serving_system
from problems.templates.serving._family import (
    ATTENTION_SHARE_MAX,
    TTFT_ONE_REQUEST,
    attention_share,
    device_noun,
    fits_as_stated,
    gpu_count,
)


class PrefixParams(Params):
    n_params: float = Field(gt=0, le=1e14)
    prompt_tokens: int = Field(ge=1, le=100_000_000)
    cached_tokens: int = Field(ge=0, le=100_000_000)
    peak_tflops: float = Field(gt=0, le=1e6)
    n_gpus: int = Field(ge=1, le=4096)
    mfu: float = Field(gt=0, le=1)

    @model_validator(mode="after")
    def _some_prefill(self) -> PrefixParams:
        if self.cached_tokens >= self.prompt_tokens:
            raise ValueError("at least one prompt token must be prefilled")
        return self


TTFT = formula(
    r"t_{\mathrm{prefill}}",
    lambda s: 2 * s.N * (s.T - s.C) / (s.n * s.P * s.u),
    N="N",
    T="T",
    C="C",
    n="n",
    P=r"P_{\mathrm{peak}}",
    u=r"\mathrm{MFU}",
)
SAVED = formula(r"\mathrm{saved}", lambda s: s.C / s.T, C="C", T="T")
_PROMPTS = (1000, 2000, 2048, 4000, 4096, 8000, 8192, 16384, 32768, 65536, 131072)
_SHARES = (0.25, 0.4, 0.5, 0.6, 0.7, 0.75, 0.9, 0.95)
_MFU = (0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)
_BLOCK = 16


def _seconds(p: PrefixParams, tokens: int) -> float:
    return 2 * p.n_params * tokens / (p.n_gpus * p.peak_tflops * 1e12 * p.mfu)


@register
class PrefixCacheTtft(Template):
    slug = "prefix-cache-ttft"
    title = "Time to first token with a prefix cache"
    family = "serving"
    lessons = (
        "prefill-decode-and-the-cost-of-a-token",
        "the-kv-cache",
        "serving-models",
        "why-the-classic-load-balancer-breaks",
    )
    skills = ("prefix-caching", "prefill-compute-bound", "ttft")
    difficulty = 2
    version = 2  # issue 34: prompts bounded for the 2N count, weights fit what is named
    Params = PrefixParams
    feasibility = serving_system.PREFILL

    def generate(self, rng: random.Random) -> PrefixParams:
        while True:
            model = rng.choice(dense_models())
            acc, prec = draw_accelerator(rng, ("bf16", "bf16", "fp8"), need_bw=False)
            n = gpu_count(rng, model.total_params * BYTES_PER_ELEMENT[prec], acc)
            prompts = [t for t in _PROMPTS if t <= model.max_context]
            if n is None or not prompts:
                continue
            t = rng.choice(prompts)
            c = int(rng.choice(_SHARES) * t) // _BLOCK * _BLOCK
            if attention_share(model, t, c) > ATTENTION_SHARE_MAX:
                continue
            p = PrefixParams(
                n_params=float(model.total_params),
                prompt_tokens=t,
                cached_tokens=c,
                peak_tflops=peak_tflops_of(acc, prec),
                n_gpus=n,
                mfu=rng.choice(_MFU),
            )
            if not (0 < c < t and fits_as_stated(p.n_params, p.peak_tflops, p.n_gpus)):
                continue
            if parts_separated(self.solve(p), self.misconceptions(p), 0.03):
                return p

    def solve(self, p: PrefixParams) -> dict[str, Part]:
        ms = _seconds(p, p.prompt_tokens - p.cached_tokens) * 1e3
        return {
            "ttft": Part("ttft", ms, "ms", label="Time to first token"),
            "saved": Part(
                "saved", p.cached_tokens / p.prompt_tokens * 100, "%", label="Prefill saved"
            ),
        }

    def _noun(self, p: PrefixParams, n: int) -> tuple[str, list]:
        hits = matching_accelerators(peak_tflops=p.peak_tflops)
        return device_noun([a for a, _ in hits], n), hits

    def statement(self, p: PrefixParams) -> str:
        named = model_with_params(p.n_params, among=dense_models())
        model = f"{named.name if named else 'A dense model'} ({params_count(p.n_params)} parameters"
        n = p.n_gpus
        noun, hits = self._noun(p, n)
        names = f" ({accelerator_names(hits)})" if hits else ""
        where = (
            f"a single {noun}{names}" if n == 1 else f"{n} {noun}{names} with tensor parallelism"
        )
        each = "" if n == 1 else "each "
        prec = f" {PRECISION_LABEL[hits[0][1] or 'bf16']}" if hits else ""
        return (
            f"{model}, $N = {tex(p.n_params, 15)}$) runs on {where}, {each}with a dense"
            f"{prec} peak of {sig(p.peak_tflops, 12)} TFLOP/s.{sparse_note(hits) if hits else ''} "
            f"A request arrives with a prompt of $T = {tex(p.prompt_tokens, 12)}$ tokens, of "
            f"which the first $C = {tex(p.cached_tokens, 12)}$ (a shared system prompt and "
            "earlier turns) are already in the prefix cache: their keys and values are "
            "reused, so only the remaining tokens are prefilled, at a model FLOPs "
            f"utilization of $\\mathrm{{MFU}} = {tex(p.mfu, 12)}$.\n\n"
            "Count about $2N$ FLOP per prefilled token (ignore the attention-score FLOPs, "
            "which add less than 15% at this prompt length), and ignore queueing, "
            "communication and the time to look the prefix up.\n\n"
            f"1. What is the {TTFT_ONE_REQUEST}, in ms?\n"
            "2. What share of the prompt's prefill work does the cache save, in %?"
        )

    def solution(self, p: PrefixParams) -> str:
        uncached = p.prompt_tokens - p.cached_tokens
        seconds = _seconds(p, uncached)
        noun, _ = self._noun(p, 2)
        return (
            f"Only $T - C = {tex(uncached, 12)}$ tokens are prefilled, at $2N$ FLOP each. "
            f"The $n = {p.n_gpus}$ {noun}, each with a peak of "
            f"$P_{{\\mathrm{{peak}}}} = {tex(p.peak_tflops, 12)} \\times 10^{{12}}$ FLOP/s, "
            "deliver "
            "$n \\times P_{\\mathrm{peak}} \\times \\mathrm{MFU}$ per second:\n\n"
            + step(
                TTFT,
                {
                    "N": tex(p.n_params, 15),
                    "T": p.prompt_tokens,
                    "C": p.cached_tokens,
                    "n": p.n_gpus,
                    "P": f"{tex(p.peak_tflops, 12)} \\times 10^{{12}}",
                    "u": p.mfu,
                },
                seconds,
                "s",
            )
            + f"\n\nTime to first token: **{sig(seconds * 1e3, 6)} ms**. The work is "
            "proportional to the tokens prefilled, so the cache saves the cached share:\n\n"
            + step(
                SAVED,
                {"C": p.cached_tokens, "T": p.prompt_tokens},
                p.cached_tokens / p.prompt_tokens,
            )
            + f"\n\nthat is **{sig(p.cached_tokens / p.prompt_tokens * 100, 6)}%**."
        )

    def misconceptions(self, p: PrefixParams) -> list[Misconception]:
        ms = _seconds(p, p.prompt_tokens - p.cached_tokens) * 1e3
        out = [
            Misconception(
                "cache-ignored",
                "ttft",
                _seconds(p, p.prompt_tokens) * 1e3,
                f"That prefills the whole prompt. The {p.cached_tokens} cached tokens' keys "
                "and values are reused: only T - C tokens are computed.",
            ),
            Misconception(
                "cached-prefilled",
                "ttft",
                _seconds(p, p.cached_tokens) * 1e3,
                "That prefills the cached tokens. They are the ones already computed; the "
                "work is on the other T - C tokens.",
            ),
            Misconception(
                "mfu-ignored",
                "ttft",
                ms * p.mfu,
                "That assumes the devices run at their full peak. Prefill reaches only the "
                "stated fraction of it (MFU), so divide by MFU too.",
            ),
            Misconception(
                "training-6n",
                "ttft",
                ms * 3,
                "That uses 6N FLOP per token, the training count. Prefill is a forward pass "
                "only: about 2N FLOP per token.",
            ),
            Misconception(
                "uncached-share",
                "saved",
                (p.prompt_tokens - p.cached_tokens) / p.prompt_tokens * 100,
                "That is the share still prefilled. The cache saves the cached share, C / T.",
            ),
        ]
        if p.n_gpus > 1:
            out.append(
                Misconception(
                    "per-gpu-vs-total",
                    "ttft",
                    ms * p.n_gpus,
                    f"That is the time for one device doing all the work. The {p.n_gpus} "
                    f"devices split the FLOPs, so divide by {p.n_gpus}.",
                )
            )
        return out
