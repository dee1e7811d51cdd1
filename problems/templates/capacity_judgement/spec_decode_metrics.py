"""spec-decode-metrics: reading speculative decoding's counters from a vLLM server's
/metrics, and what the drafter costs in memory. vLLM's V1 engine counts, per engine,
the drafts proposed (vllm:spec_decode_num_drafts_total), the draft tokens proposed
(vllm:spec_decode_num_draft_tokens_total: k per draft for k = num_speculative_tokens)
and the draft tokens the target accepted (vllm:spec_decode_num_accepted_tokens_total);
the acceptance rate is accepted / draft tokens, and the mean acceptance length, the
tokens each target verification step emits, is 1 + accepted / drafts (the target always
adds one token of its own). These are counters since the server started: a window's
figures come from the difference of two scrapes. (vLLM's spec-decode metrics, and the
benchmarks that read them, e.g. NVIDIA NeMo AutoModel's bench_vllm, define them so.)

A separate draft model is a second set of weights in GPU memory: a small model of the
target's family and tokenizer (Llama 3.1 8B for Llama 3.1 70B and 405B, Llama 2 7B for
Llama 2 70B, Mistral 7B for Mixtral 8x7B), in BF16 (2 bytes a parameter) or FP8 (1);
n-gram prompt lookup would hold none (said in the solution).

Parts: the acceptance rate (%), the mean acceptance length (tokens per verification
step) and the draft weights held in GPU memory (GB), over the window between the two
scrapes. The exposition is ours in the Prometheus text format of the captured vLLM
/metrics samples (labels engine and model_name).

Misconceptions: the counters read as they stand instead of differenced
(counters-not-differenced), the target's own token left out of the acceptance length
(bonus-token-missed), and GiB taken for GB (gib-for-gb).
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field, model_validator

from hardware_db import catalog
from problems.engine.numbers import sig
from problems.engine.registry import register
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import parts_separated

TARGETS = {  # target -> (its served name, its draft: a smaller model of its family)
    "llama-3.1-70b": ("meta-llama/Llama-3.1-70B-Instruct", "llama-3.1-8b"),
    "llama-3.1-405b": ("meta-llama/Llama-3.1-405B-Instruct-FP8", "llama-3.1-8b"),
    "llama-2-70b": ("meta-llama/Llama-2-70b-chat-hf", "llama-2-7b"),
    "mixtral-8x7b": ("mistralai/Mixtral-8x7B-Instruct-v0.1", "mistral-7b"),
}
DRAFT_NAMES = {
    "llama-3.1-8b": "meta-llama/Llama-3.1-8B-Instruct",
    "llama-2-7b": "meta-llama/Llama-2-7b-chat-hf",
    "mistral-7b": "mistralai/Mistral-7B-Instruct-v0.1",
}
BYTES = {"bf16": 2, "fp8": 1}


class SpecMetricsParams(Params):
    target: Literal[tuple(TARGETS)]  # type: ignore[valid-type]
    draft_dtype: Literal["bf16", "fp8"]
    k: int = Field(ge=1, le=16)  # num_speculative_tokens
    drafts_before: int = Field(ge=0)
    accepted_before: int = Field(ge=0)
    drafts: int = Field(ge=1)  # in the window
    accepted: int = Field(ge=0)  # in the window

    @model_validator(mode="after")
    def _counts(self) -> SpecMetricsParams:
        if (
            self.accepted > self.drafts * self.k
            or self.accepted_before > self.drafts_before * self.k
        ):
            raise ValueError("at most k tokens of a draft can be accepted")
        return self


def window(p: SpecMetricsParams) -> tuple[float, float]:
    """(acceptance rate, mean acceptance length) over the window."""
    return p.accepted / (p.drafts * p.k), 1 + p.accepted / p.drafts


def draft_of(p: SpecMetricsParams) -> str:
    return TARGETS[p.target][1]


def draft_gb(p: SpecMetricsParams) -> float:
    return catalog.model(draft_of(p)).total_params * BYTES[p.draft_dtype] / 1e9


def go_float(x: float) -> str:
    """A sample value as the Prometheus client prints it (Go's shortest %g: exponent
    form from 1e6 up, e.g. 4.862e+06; 123456.0 below)."""
    if abs(x) < 1e6:
        return repr(float(x))
    mantissa, exponent = f"{x:.15e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{exponent[0]}{int(exponent[1:]):02d}"


def _scrape(p: SpecMetricsParams, drafts: int, accepted: int) -> str:
    labels = f'engine="0",model_name="{TARGETS[p.target][0]}"'
    return "\n".join(
        (
            f"vllm:spec_decode_num_drafts_total{{{labels}}} {go_float(drafts)}",
            f"vllm:spec_decode_num_draft_tokens_total{{{labels}}} {go_float(drafts * p.k)}",
            f"vllm:spec_decode_num_accepted_tokens_total{{{labels}}} {go_float(accepted)}",
        )
    )


@register
class SpecDecodeMetrics(Template):
    slug = "spec-decode-metrics"
    title = "Reading speculative decoding's acceptance counters"
    family = "capacity_judgement"
    lessons = ("speculative-decoding",)
    skills = ("speculative-decoding",)
    difficulty = 2
    Params = SpecMetricsParams
    version = 1

    def generate(self, rng: random.Random) -> SpecMetricsParams:
        for _ in range(10_000):
            k = rng.choice((2, 3, 4, 5))
            before = rng.randrange(200_000, 5_000_000, 1000)
            drafts = rng.randrange(50_000, 600_000, 100)
            p = SpecMetricsParams(
                target=rng.choice(tuple(TARGETS)),
                draft_dtype=rng.choice(("bf16", "fp8")),
                k=k,
                drafts_before=before,
                accepted_before=round(before * k * rng.uniform(0.3, 0.8)),
                drafts=drafts,
                accepted=round(drafts * k * rng.uniform(0.35, 0.85)),
            )
            if parts_separated(self.solve(p), self.misconceptions(p)):
                return p
        raise RuntimeError("spec-decode-metrics: no separated variant")  # pragma: no cover

    def solve(self, p: SpecMetricsParams) -> dict[str, Part]:
        rate, length = window(p)
        return {
            "acceptance_rate": Part("acceptance_rate", rate * 100, "%", label="Acceptance rate"),
            "acceptance_length": Part(
                "acceptance_length", length, "", label="Mean tokens per verification step"
            ),
            "draft_memory": Part("draft_memory", draft_gb(p), "GB", label="Draft weights"),
        }

    def statement(self, p: SpecMetricsParams) -> str:
        dtype = "BF16" if p.draft_dtype == "bf16" else "FP8"
        how = f"a draft model, {DRAFT_NAMES[draft_of(p)]} in {dtype}"
        after = _scrape(p, p.drafts_before + p.drafts, p.accepted_before + p.accepted)
        return (
            f"A vLLM server runs {TARGETS[p.target][0]} with speculative decoding by {how}, "
            f"proposing num_speculative_tokens = {p.k} tokens per draft. Its /metrics, "
            "scraped at the start and at the end of a ten-minute load test, reads:\n\n"
            f"```text\n# start\n{_scrape(p, p.drafts_before, p.accepted_before)}\n"
            f"# end\n{after}\n```\n\n"
            "1. What share of the draft tokens did the target accept during the test, in %?\n"
            "2. How many tokens did each verification step of the target emit on average "
            "(the mean acceptance length)?\n"
            "3. How many GB of draft weights does speculation keep in GPU memory?"
        )

    def solution(self, p: SpecMetricsParams) -> str:
        rate, length = window(p)
        draft = catalog.model(draft_of(p))
        memory = (
            f"The draft model is another {sig(draft.total_params / 1e9, 4)} billion "
            f"parameters at {BYTES[p.draft_dtype]} byte(s) each: **{sig(draft_gb(p), 4)} GB** "
            "of weights (plus its own KV cache), memory the target's batch no longer has. "
            "N-gram prompt lookup would hold no weights at all, and EAGLE or Medusa heads a "
            "fraction of a layer."
        )
        return (
            "The counters count since the server started: take the differences between "
            f"the two scrapes. Drafts: {p.drafts:,}; draft tokens: {p.drafts * p.k:,} "
            f"({p.k} per draft); accepted: {p.accepted:,}.\n\n"
            f"Acceptance rate: {p.accepted:,} / {p.drafts * p.k:,} = "
            f"**{sig(rate * 100, 4)}%**.\n\n"
            f"Each verification step emits the accepted draft tokens plus one token the "
            f"target computes itself: 1 + {p.accepted:,} / {p.drafts:,} = "
            f"**{sig(length, 4)}** tokens per step, against 1 without speculation.\n\n"
            f"{memory} Under heavy load the batch already keeps the GPUs busy, and "
            "rejected draft tokens are wasted compute, so speculation helps most at small "
            "batch and least when the server is saturated."
        )

    def misconceptions(self, p: SpecMetricsParams) -> list[Misconception]:
        total_d = p.drafts_before + p.drafts
        total_a = p.accepted_before + p.accepted
        out = [
            Misconception(
                "counters-not-differenced", "acceptance_rate", total_a / (total_d * p.k) * 100,
                "Those counters run since the server started: the test's figures are the "
                "differences between the two scrapes.",
            ),
            Misconception(
                "counters-not-differenced", "acceptance_length", 1 + total_a / total_d,
                "Those counters run since the server started: difference the two scrapes.",
            ),
            Misconception(
                "bonus-token-missed", "acceptance_length", p.accepted / p.drafts,
                "Each verification step also emits one token the target computes itself: "
                "add 1 to the accepted tokens per draft.",
            ),
        ]  # fmt: skip
        out.append(
            Misconception(
                "gib-for-gb",
                "draft_memory",
                draft_gb(p) * 1e9 / 2**30,
                "That is GiB (2^30 bytes); a GB is 10^9 bytes.",
            )  # fmt: skip
        )
        return out
