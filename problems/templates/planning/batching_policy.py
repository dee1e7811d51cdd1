"""batching-policy: the simplest batching policy that meets a workload's latency targets,
and the expected wait to fill a static batch.

The policies, simplest first: static (wait for B requests, run them to completion),
dynamic (start when B are queued or the oldest has waited w ms; run to completion),
continuous (iteration-level: requests join and leave the running batch at every decode
step, a newcomer's whole prefill inside one step), continuous with chunked prefill (each
step prefills only what fits in a TPOT-long step after the decode work) and
disaggregated prefill and decode (prefill on its own pool). The model in the statement:
a request-level batch keeps newcomers out until its answers end (O decode steps); a
whole prefill in one step makes that step t_d + P/R, and every stream in the batch waits
that long for its next token; chunking gives prefill the share
1 - t_d/TPOT of each step, so the first token comes after (P/R) / (1 - t_d/TPOT); a
separate prefill pool gives P/R (KV transfer ignored). The fill wait is the first
request's, (B - 1)/lambda: it waits for B - 1 further Poisson arrivals, 1/lambda apart
on average; it is the longest wait in the batch, the one a TTFT target must cover.

The TPOT target bounds every gap between two tokens of a stream, and the statement says
so (issue 34): under the usual per-request mean TPOT, t_d / (1 - lambda P / R) since
prefill takes that share of the time from decoding, a prefill stall once per arrival
barely moves the mean, and continuous batching would meet the target in many variants
keyed chunked-prefill or disaggregated. TTFT is every request's, arrival to first token.

Workloads: an embedding model (one forward pass per request, 50k-200k tokens/s, so the
right answer is dynamic batching and the decode-loop policies are a category error) or
LLM generation (one replica: prompts of 200-800 tokens for chat, 4k-32k with retrieved
context; prefill 8k-24k tokens/s; decode steps of 20-35 ms; TTFT targets of 0.3-4 s,
TPOT of 50-100 ms). Static batching never meets the target in a generated variant (that
is what the fill wait shows); every decisive comparison is kept at least 10% from its
threshold, and prefill keeps a replica at most 40% busy (a single queue, no backlog).
Parameters for which no policy meets the targets are refused.

Misconceptions: on the wait, B/lambda (counts-own-arrival) and the batch's average
(B - 1)/(2 lambda) (average-not-first); on the policy, static despite the fill wait
(static-fill-wait), request-level batching for generation (request-level-batching),
whole prefills that stall decode (prefill-stalls-decode), chunked prefill whose first
token comes too late (chunked-ttft-too-long), chunking or disaggregation where a simpler
policy meets both targets (chunking-not-needed, disaggregation-not-needed), and a decode
loop assumed for a single-pass model (decode-loop-assumed).
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field, model_validator

from problems.engine.numbers import sig
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import parts_separated, sig15, tex15
from problems.templates.planning._family import (
    CHUNKED,
    CONT,
    DISAGG,
    DYNAMIC,
    POLICIES,
    STATIC,
    clear,
    figures,
    fill_ms,
    meets,
    policy,
    prefill_ms,
)


class BatchingParams(Params):
    workload: Literal["embedding", "generation"]
    arrival_rps: float = Field(gt=0, le=1e5)
    batch_size: int = Field(ge=2, le=4096)
    max_wait_ms: float = Field(gt=0, le=1e5)
    prompt_tokens: int = Field(ge=1, le=10_000_000)
    prefill_tok_s: float = Field(gt=0, le=1e9)
    output_tokens: int = Field(ge=0, le=1_000_000)
    decode_step_ms: float = Field(ge=0, le=1e4)
    ttft_slo_ms: float = Field(gt=0, le=1e6)
    tpot_slo_ms: float = Field(ge=0, le=1e5)

    @model_validator(mode="after")
    def _consistent(self) -> BatchingParams:
        decode = (self.output_tokens, self.decode_step_ms, self.tpot_slo_ms)
        if self.workload == "embedding" and any(decode):
            raise ValueError("an embedding model has no output tokens, decode step or TPOT")
        gen = self.workload == "generation"
        if gen and (not all(decode) or self.decode_step_ms >= self.tpot_slo_ms):
            raise ValueError("generation needs output tokens and a decode step under TPOT")
        if not any(meets(self).values()):
            raise ValueError("no batching policy meets these targets")
        return self


FILL = formula(r"t_{\mathrm{fill}}", lambda s: (s.B - 1) / s.lam, B="B", lam=r"\lambda")
CHUNK_TTFT = formula(
    r"\mathrm{TTFT}_{\mathrm{chunked}}",
    lambda s: s.P / s.R / (1 - s.t / s.T),
    P="P",
    R="R",
    t=r"t_d",
    T=r"\mathrm{TPOT}",
)


_CHAT = dict(P=(200, 300, 500, 800), TTFT=(300, 500, 800, 1000))
_LONG = dict(P=(4000, 8000, 16000, 24000, 32000), TTFT=(1000, 1500, 2000, 2500, 3000, 4000))


@register
class BatchingPolicy(Template):
    slug = "batching-policy"
    title = "Which batching policy meets the latency targets"
    family = "planning"
    lessons = (
        "batching-for-llm-inference",
        "serving-models",
        "the-serving-layer",
        "llm-d-routing-and-disaggregation",
    )
    skills = ("continuous-batching", "ttft", "tpot", "disaggregated-serving", "chunked-prefill")
    difficulty = 3
    Params = BatchingParams
    version = 1

    def generate(self, rng: random.Random) -> BatchingParams:
        target = rng.choice((DYNAMIC, CONT, CHUNKED, DISAGG))
        for _ in range(50_000):
            p = self._draw(rng, target)
            if p is None or policy(p) != target or not clear(p):
                continue
            busy = p.arrival_rps * prefill_ms(p) / 1000
            if p.workload == "generation" and target == CHUNKED:
                busy = p.arrival_rps * figures(p)["chunked"] / 1000
            if fill_ms(p) <= p.ttft_slo_ms * 1.1 or busy > 0.4:
                continue
            wait = {"fill_wait": self.solve(p)["fill_wait"]}
            if parts_separated(wait, [m for m in self.misconceptions(p) if m.part in wait]):
                return p
        raise RuntimeError("batching-policy: no variant drawn")  # pragma: no cover

    def _draw(self, rng: random.Random, target: str) -> BatchingParams | None:
        common = dict(
            arrival_rps=float(rng.choice((0.2, 0.5, 1, 2, 4, 5, 8, 10, 16, 20))),
            batch_size=rng.choice((8, 16, 24, 32)),
            max_wait_ms=float(rng.choice((2, 5, 10, 20))),
        )
        if target == DYNAMIC:
            common["arrival_rps"] = float(rng.choice((20, 50, 100, 200)))
            values = dict(
                workload="embedding",
                prompt_tokens=rng.choice((128, 256, 512)),
                prefill_tok_s=float(rng.choice((50_000, 100_000, 200_000))),
                output_tokens=0,
                decode_step_ms=0.0,
                ttft_slo_ms=float(rng.choice((50, 100, 200, 300))),
                tpot_slo_ms=0.0,
            )
        else:
            shape = _CHAT if target == CONT else _LONG
            values = dict(
                workload="generation",
                prompt_tokens=rng.choice(shape["P"]),
                prefill_tok_s=float(rng.choice((8000, 12_000, 16_000, 24_000))),
                output_tokens=rng.choice((200, 300, 500, 800)),
                decode_step_ms=float(rng.choice((20, 25, 30, 35))),
                ttft_slo_ms=float(rng.choice(shape["TTFT"])),
                tpot_slo_ms=float(rng.choice((50, 60, 80, 100))),
            )
        try:
            return BatchingParams(**common, **values)
        except ValueError:
            return None

    def solve(self, p: BatchingParams) -> dict[str, Part]:
        return {
            "fill_wait": Part("fill_wait", fill_ms(p), "ms", label="Wait to fill a static batch"),
            "policy": Part(
                "policy",
                policy(p),
                kind=Kind.CHOICE,
                tolerance=Exact(),
                choices=POLICIES,
                label="Simplest policy that meets the targets",
            ),
        }

    def statement(self, p: BatchingParams) -> str:
        lam, b, w = tex15(p.arrival_rps), p.batch_size, sig15(p.max_wait_ms)
        if p.workload == "embedding":
            setting = (
                "A replica serves an **embedding model**: each request is one forward pass "
                "over its input, with no token-by-token decoding. Requests arrive at random "
                f"(Poisson) at $\\lambda = {lam}$ per second, each with "
                f"{sig15(p.prompt_tokens)} input tokens; the GPU encodes "
                f"$R = {tex15(p.prefill_tok_s)}$ tokens per second, so a batch takes its "
                f"tokens divided by $R$. Target: every request's response within "
                f"{sig15(p.ttft_slo_ms)} ms of its arrival."
            )
            targets = "the latency target"
            step = "a step of bounded length"
        else:
            setting = (
                "A replica serves an **LLM** that streams its answers. Requests arrive at "
                f"random (Poisson) at $\\lambda = {lam}$ per second, with prompts of "
                f"$P = {tex15(p.prompt_tokens)}$ tokens and answers of "
                f"{sig15(p.output_tokens)} tokens on average. Prefill runs at "
                f"$R = {tex15(p.prefill_tok_s)}$ tokens per second; one decode step of the "
                f"running batch takes $t_d = {sig15(p.decode_step_ms)}$ ms. Targets, which "
                "every request must meet: time to first token (TTFT, from the request's "
                f"arrival to its first output token) at most {sig15(p.ttft_slo_ms)} ms, and "
                f"time per output token (TPOT) at most {sig15(p.tpot_slo_ms)} ms, where TPOT "
                "bounds every gap between two consecutive output tokens of a stream (the "
                "stall a reader sees: each inter-token latency), not the per-request average. "
                "Assume prompts arrive one at a time (no queue of prefills), ignore the wait "
                "for a running step to end, and ignore the time to move a KV cache."
            )
            targets = "both targets"
            step = "a TPOT-long step"
        return (
            f"{setting}\n\nThe batching policies, simplest first:\n\n"
            f"- `static`: wait until $B = {b}$ requests have arrived, then run them together "
            "until every one has finished;\n"
            f"- `dynamic`: start a batch when {b} requests are queued or the oldest has "
            f"waited {w} ms, then run it until every request in it has finished;\n"
            "- `continuous`: requests join and leave the running batch at every decode "
            "step; a newcomer's whole prefill runs inside one step;\n"
            "- `chunked-prefill`: continuous, but each step prefills only as many prompt "
            f"tokens as fit in the time left after the decode work in {step};\n"
            "- `disaggregated`: prefill on a separate pool of GPUs, decode on this one.\n\n"
            f"1. With static batching ($B = {b}$), how long does the first request of a "
            "batch wait, on average, for the batch to fill, in ms?\n"
            f"2. Which is the simplest policy that meets {targets}?"
        )

    def solution(self, p: BatchingParams) -> str:
        f, ok, answer = figures(p), meets(p), policy(p)
        wait = fill_ms(p)
        text = (
            "The first request of a batch waits for $B - 1$ more arrivals, and Poisson "
            "arrivals come $1/\\lambda$ apart on average (later requests wait less; the "
            "first waits longest):\n\n"
            + step(FILL, {"B": p.batch_size, "lam": p.arrival_rps}, wait / 1000, "s")
            + f"\n\nthat is **{sig(wait, 4)} ms**. "
        )
        if p.workload == "embedding":
            return text + (
                f"Static: {sig(wait, 4)} ms plus a full batch's "
                f"{sig(prefill_ms(p), 4)} ms = {sig(f['static'], 4)} ms misses the "
                f"{sig15(p.ttft_slo_ms)} ms target. Dynamic: at most {sig15(p.max_wait_ms)} "
                f"ms of waiting plus at most {sig(prefill_ms(p), 4)} ms of compute = "
                f"{sig(f['dynamic'], 4)} ms, within it. The other three policies schedule "
                "decode steps, which a single-pass model does not have. Answer: **dynamic**."
            )
        verdict = {True: "meets", False: "misses"}
        text += (
            f"Static and dynamic batching both run a batch until its answers end, so a "
            f"newcomer can wait {sig15(p.output_tokens)} x {sig15(p.decode_step_ms)} ms of "
            f"decoding plus its prefill, {sig(f['busy'], 4)} ms: TTFT is missed. A whole "
            f"prefill takes $P/R$ = {sig(prefill_ms(p), 4)} ms, so under continuous batching "
            f"the step that holds it lasts {sig(f['step'], 4)} ms, which "
            f"{verdict[f['step'] <= p.tpot_slo_ms]} the TPOT target. With chunked prefill "
            "each step is capped at the TPOT target, and prefill gets the rest of it:\n\n"
            + step(
                CHUNK_TTFT,
                {
                    "P": p.prompt_tokens,
                    "R": p.prefill_tok_s,
                    "t": p.decode_step_ms,
                    "T": p.tpot_slo_ms,
                },
                f["chunked"] / 1000,
                "s",
            )
            + f"\n\nwhich {verdict[ok[CHUNKED]]} the TTFT target; a separate prefill pool "
            f"gives the first token after {sig(prefill_ms(p), 4)} ms. "
        )
        return text + f"The first policy in the list that meets both: **{answer}**."

    def misconceptions(self, p: BatchingParams) -> list[Misconception]:
        lam, b = p.arrival_rps, p.batch_size
        out = [
            Misconception(
                "counts-own-arrival",
                "fill_wait",
                b / lam * 1000,
                f"That waits for {b} arrivals. The first request is already there: it waits "
                f"for the other {b - 1}.",
            ),
            Misconception(
                "average-not-first",
                "fill_wait",
                (b - 1) / (2 * lam) * 1000,
                "That is the average over the batch. The first request waits the longest, for "
                "all the others, and it is the one a latency target must cover.",
            ),
        ]
        return out + self._policy_slips(p)

    def _policy_slips(self, p: BatchingParams) -> list[Misconception]:
        f, answer = figures(p), policy(p)
        slips = {
            STATIC: (
                "static-fill-wait",
                f"Filling a static batch of {p.batch_size} takes {sig(fill_ms(p), 4)} ms on "
                "average for its first request, beyond the target before any work starts.",
            )
        }
        if p.workload == "embedding":
            text = (
                "An embedding request is one forward pass: there are no decode steps to "
                "join, no prefill to chunk and no decode phase to separate."
            )
            for name in (CONT, CHUNKED, DISAGG):
                slips[name] = ("decode-loop-assumed", text)
            return [Misconception(c, "policy", n, fb) for n, (c, fb) in slips.items()]
        slips[DYNAMIC] = (
            "request-level-batching",
            "A dynamic batcher still runs whole requests: once a batch starts, newcomers wait "
            f"for its answers to end, about {sig(f['busy'], 4)} ms, far past the TTFT target.",
        )
        if answer in (CHUNKED, DISAGG):
            slips[CONT] = (
                "prefill-stalls-decode",
                f"A whole {sig15(p.prompt_tokens)}-token prefill inside one step makes it "
                f"{sig(f['step'], 4)} ms: every streaming user stalls past the TPOT target.",
            )
        if answer == DISAGG:
            slips[CHUNKED] = (
                "chunked-ttft-too-long",
                "With steps capped at the TPOT target, prefill gets only part of each step, "
                f"and the first token comes after {sig(f['chunked'], 4)} ms, past TTFT.",
            )
        if answer == CONT:
            slips[CHUNKED] = (
                "chunking-not-needed",
                f"A whole prefill makes a {sig(f['step'], 4)} ms step, already within TPOT: "
                "plain continuous batching meets both targets.",
            )
        if answer in (CONT, CHUNKED):
            slips[DISAGG] = (
                "disaggregation-not-needed",
                f"The {answer} policy already meets both targets on one pool; a prefill pool "
                "adds GPUs and a KV-cache transfer for every request.",
            )
        return [Misconception(c, "policy", n, fb) for n, (c, fb) in slips.items()]
