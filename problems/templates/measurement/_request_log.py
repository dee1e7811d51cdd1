"""The per-request log request-log-latency reads: the parameters (one record per request
and the token times of one traced request), the log as a load generator prints it, and
the draw from the server model of _family.py. Registers no template.

A closed-loop load test at a steady concurrency B: each request's TTFT is its prompt's
prefill (_family.prefill_ms) plus a wait for the step in flight, a few wait longer in the
server's queue; each later token comes one decode step (_family.step_ms at B) after the
last, 0.9-1.3 steps with jitter. The traced request has one stall of 4-15 steps (a long
prompt prefilled whole in one step of the shared batch). Requests end `stop` (the model's
end-of-sequence), `length` (max_tokens reached), `abort` (the client disconnected: before
its first token, or after a long wait for it) or `error` (an HTTP 500 before any token).

The log's layout is ours: spec/tool-output/ holds no capture of a load generator's
per-request log. Its fields are what vLLM's serving benchmark measures per request (time
to first token, the gaps between tokens, end-to-end latency, output tokens, success;
https://docs.vllm.ai/en/v0.15.0/api/vllm/benchmarks/serve/), kept as absolute times,
with the OpenAI-compatible finish reason.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from problems.engine.feasibility import DECODE_STEP, MEMORY, TPOT, TTFT, Feasibility, Slo
from problems.engine.template import Params
from problems.templates.measurement._family import (
    DEPLOYMENTS,
    Deployment,
    most_running,
    prefill_ms,
    step_ms,
    system,
)

Finish = Literal["stop", "length", "abort", "error"]
COMPLETED = ("stop", "length")


class Logged(BaseModel):
    """One line of the log; times in ms since the run started, None where there is none."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    arrival_ms: int = Field(ge=0, le=10**8)
    prompt_tokens: int = Field(ge=1, le=200_000)
    first_token_ms: int | None = Field(ge=0, le=10**8)
    last_token_ms: int | None = Field(ge=0, le=10**8)
    output_tokens: int = Field(ge=0, le=100_000)
    finish: Finish

    @model_validator(mode="after")
    def _consistent(self) -> Logged:
        has = self.first_token_ms is not None
        if has != (self.last_token_ms is not None) or has != (self.output_tokens > 0):
            raise ValueError("a request with tokens has first and last token times")
        if has and not self.arrival_ms <= self.first_token_ms <= self.last_token_ms:
            raise ValueError("tokens come after the arrival, the last after the first")
        if (self.finish in COMPLETED) and not has:
            raise ValueError("a completed request has tokens")
        if self.finish == "error" and has:
            raise ValueError("a failed request in this log failed before its first token")
        return self

    @property
    def ttft_ms(self) -> int:
        return self.first_token_ms - self.arrival_ms


class LogParams(Params):
    deployment: Deployment
    concurrency: int = Field(ge=1, le=4096)
    max_tokens: int = Field(ge=2, le=100_000)
    requests: tuple[Logged, ...] = Field(min_length=4, max_length=40)
    trace: int = Field(ge=0)
    trace_ms: tuple[int, ...] = Field(min_length=3, max_length=64)
    e2e_request: int = Field(ge=0)

    @model_validator(mode="after")
    def _consistent(self) -> LogParams:
        n = len(self.requests)
        if self.trace >= n or self.e2e_request >= n:
            raise ValueError("the traced and the named request must be in the log")
        t, e = self.requests[self.trace], self.requests[self.e2e_request]
        if t.finish not in COMPLETED or e.finish not in COMPLETED:
            raise ValueError("the traced and the named request completed")
        ts = self.trace_ms
        if list(ts) != sorted(ts) or (ts[0], ts[-1], len(ts)) != (
            t.first_token_ms,
            t.last_token_ms,
            t.output_tokens,
        ):
            raise ValueError("the trace must be the traced request's token times")
        for r in self.requests:
            if r.output_tokens > self.max_tokens or (
                r.finish == "length" and r.output_tokens != self.max_tokens
            ):
                raise ValueError("length means max_tokens tokens, and no request has more")
        return self


def completed(p: LogParams) -> list[Logged]:
    return [r for r in p.requests if r.finish in COMPLETED]


def gaps(p: LogParams) -> list[int]:
    return [b - a for a, b in zip(p.trace_ms, p.trace_ms[1:], strict=False)]


def rid(i: int) -> str:
    return f"r{i + 1:02d}"


def _s(ms: int | None) -> str:
    return "-" if ms is None else f"{ms / 1000:.3f}"


def log_text(p: LogParams) -> str:
    head = "id   arrival_s  prompt_tok  first_token_s  last_token_s  output_tok  finish"
    rows = [
        f"{rid(i):<4} {_s(r.arrival_ms):>9}  {r.prompt_tokens:>10}  {_s(r.first_token_ms):>13}"
        f"  {_s(r.last_token_ms):>12}  {r.output_tokens:>10}  {r.finish}"
        for i, r in enumerate(p.requests)
    ]
    return "\n".join([head, *rows])


def trace_text(p: LogParams) -> str:
    times = [f"{t / 1000:.3f}" for t in p.trace_ms]
    return "\n".join(" ".join(times[i : i + 8]) for i in range(0, len(times), 8))


def describe(p: LogParams):
    """The deployment at the test's concurrency: its fastest gap no faster than the decode
    floor (tpot, decode-step), its quickest prefill no faster than the compute ceiling
    (ttft), and the batch's cache in memory."""
    done = completed(p)
    context = sum(r.prompt_tokens + r.output_tokens / 2 for r in done) / len(done)
    fastest = min(gaps(p)) / 1000
    d = system(p.deployment, p.concurrency, context, decode_tok_s=p.concurrency / fastest)
    timed = [r for r in p.requests if r.first_token_ms is not None]
    quick = min(timed, key=lambda r: r.ttft_ms / prefill_ms(p.deployment, r.prompt_tokens, 1))
    slo = Slo(ttft_s=quick.ttft_ms / 1000, ttft_prompt_tokens=quick.prompt_tokens, tpot_s=fastest)
    return replace(d, slo=slo)


FEASIBILITY = Feasibility((MEMORY, DECODE_STEP, TTFT, TPOT), describe)


def _tokens(rng: random.Random, first: int, n: int, step: float, stall: int = 0) -> list[int]:
    """n token times from `first`, one jittered step apart, one gap `stall` steps long."""
    at, out = first, [first]
    where = rng.randint(2, n - 2) if stall else -1
    for k in range(1, n):
        at += round(step * (stall if k == where else rng.uniform(0.9, 1.3)))
        out.append(at)
    return out


def _none(at: int, prompt: int, finish: Finish) -> Logged:
    """A request that ended before its first token."""
    return Logged(
        arrival_ms=at,
        prompt_tokens=prompt,
        first_token_ms=None,
        last_token_ms=None,
        output_tokens=0,
        finish=finish,
    )


def draw(rng: random.Random) -> LogParams | None:
    dep = rng.choice(tuple(DEPLOYMENTS))
    max_tokens = rng.choice((128, 256, 512))
    conc = rng.choice((8, 16, 32, 64))
    if most_running(dep, 3000 + max_tokens) < conc:
        return None
    slack = rng.uniform(1.3, 1.8)
    step = step_ms(dep, conc, 1500, max_tokens // 2, slack)
    n = rng.randint(14, 20)
    kinds = ["length"] * rng.randint(1, 3) + ["abort"] * rng.randint(1, 3)
    kinds += ["error"] * rng.randint(1, 2)
    kinds += ["stop"] * (n - len(kinds))
    rng.shuffle(kinds)
    reqs, at = [], rng.randint(0, 300)
    for kind in kinds:
        prompt = rng.randint(150, 3000)
        wait = rng.uniform(0, step) + (rng.uniform(400, 2500) if rng.random() < 0.15 else 0)
        ttft = round(prefill_ms(dep, prompt, slack) + wait)
        if kind == "error":
            reqs.append(_none(at, prompt, "error"))
        elif kind == "abort" and rng.random() < 0.4:
            reqs.append(_none(at, prompt, "abort"))
        else:
            out = {"length": max_tokens, "stop": rng.randint(16, max_tokens - 1)}.get(
                kind, rng.randint(1, 12)
            )
            if kind == "abort":
                ttft = round(ttft + rng.uniform(2000, 6000))  # gave up after a long wait
            first = at + ttft
            last = first + round((out - 1) * step * rng.uniform(1.0, 1.15))
            reqs.append(
                Logged(
                    arrival_ms=at,
                    prompt_tokens=prompt,
                    first_token_ms=first,
                    last_token_ms=last,
                    output_tokens=out,
                    finish=kind,
                )
            )
        at += rng.randint(40, 700)
    stops = [i for i, r in enumerate(reqs) if r.finish == "stop" and r.arrival_ms > 0]
    if len(stops) < 2 or not any(r.finish == "abort" and r.output_tokens for r in reqs):
        return None
    trace, named = rng.sample(stops, 2)
    t = reqs[trace]
    out = rng.randint(12, 24)
    times = _tokens(rng, t.first_token_ms, out, step, stall=rng.randint(4, 15))
    reqs[trace] = t.model_copy(update={"output_tokens": out, "last_token_ms": times[-1]})
    try:
        return LogParams(
            deployment=dep,
            concurrency=conc,
            max_tokens=max_tokens,
            requests=tuple(reqs),
            trace=trace,
            trace_ms=tuple(times),
            e2e_request=named,
        )
    except ValueError:
        return None
