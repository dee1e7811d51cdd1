"""The benchmark sweep sweep-knee-max-seqs and fleet-from-sweep read: one closed-loop run
per concurrency (1, 2, 4, ..., 256), every request P prompt tokens and O output tokens,
drawn from the server model of _family.py. Registers no template.

Per row, with c requests in flight and n = min(c, the sequences memory holds) running:
the step s(n) (_family.step_ms), the prefill T_p of one prompt; p99 TTFT = T_p (1 + n / h)
+ s(n) (prefills of the other new requests share the steps, h = 24-96 sequences, and a new
request waits for the step in flight), plus, when c > n, the wait in the server's queue
for (c - n) / n of a request's time; p99 TPOT = 1.15 s(n) (prefill chunks landing in a
step); output throughput = n O / (mean TTFT + (O - 1) s(n)) with mean TTFT half the p99's
prefill share. Throughput is rounded to whole tok/s and latencies to whole ms, as the
table prints them: the templates answer from the table. The table is ours, one row per
`vllm bench serve --max-concurrency c` run, its columns that command's "Output token
throughput (tok/s)", "P99 TTFT (ms)" and "P99 TPOT (ms)" (percentiles chosen with
`--metric-percentiles 99`); spec/tool-output/ holds no capture of its report.
"""

from __future__ import annotations

import random
from typing import Annotated

from pydantic import Field, model_validator

from problems.engine.feasibility import COMPUTE, DECODE_STEP, MEMORY, Feasibility
from problems.engine.template import Params
from problems.templates.measurement._family import (
    DEPLOYMENTS,
    Deployment,
    most_running,
    prefill_ms,
    served_on,
    step_ms,
    system,
)

CONCURRENCY = (1, 2, 4, 8, 16, 32, 64, 128, 256)
PROMPTS = (256, 512, 1000, 1024, 1500, 2000, 2048)
OUTPUTS = (128, 200, 256, 300, 400, 500, 512)
TPOT_JITTER = 1.15
Positive = Annotated[int, Field(ge=1, le=10**9)]
Row = tuple[Positive, Positive, Positive, Positive]  # c, output tok/s, p99 TTFT ms, p99 TPOT ms


class SweepParams(Params):
    deployment: Deployment
    prompt_tokens: int = Field(ge=1, le=200_000)
    output_tokens: int = Field(ge=2, le=100_000)
    rows: tuple[Row, ...] = Field(min_length=2, max_length=16)
    slo_ttft_ms: int = Field(ge=1, le=10**6)
    slo_tpot_ms: int = Field(ge=1, le=10**5)

    @model_validator(mode="after")
    def _rows_rise(self) -> SweepParams:
        cs = [r[0] for r in self.rows]
        if cs != sorted(set(cs)):
            raise ValueError("the rows' concurrencies must rise")
        if slo_row(self) is None:
            raise ValueError("no row meets the SLO")
        return self


def meets(p: SweepParams, row: Row, ttft: bool = True, tpot: bool = True) -> bool:
    return (not ttft or row[2] <= p.slo_ttft_ms) and (not tpot or row[3] <= p.slo_tpot_ms)


def slo_row(p: SweepParams, ttft: bool = True, tpot: bool = True) -> Row | None:
    """The highest-concurrency row that meets the SLO (both targets unless told)."""
    ok = [r for r in p.rows if meets(p, r, ttft, tpot)]
    return ok[-1] if ok else None


def peak_row(p: SweepParams) -> Row:
    """The row of the highest throughput (the lowest concurrency among equals)."""
    return max(p.rows, key=lambda r: (r[1], -r[0]))


def draw_rows(rng: random.Random, dep: str, prompt: int, output: int) -> tuple[Row, ...]:
    slack = rng.uniform(1.3, 1.8)
    half = rng.uniform(24, 96)
    cap = most_running(dep, prompt + output)
    t_p = prefill_ms(dep, prompt, slack)
    rows = []
    for c in CONCURRENCY:
        n = min(c, cap)
        s = step_ms(dep, n, prompt, output, slack)
        share = t_p * (1 + n / half)
        e2e = share / 2 + s / 2 + (output - 1) * s
        wait = (c - n) / n * (share + (output - 1) * s)
        ttft = share + s + wait
        rows.append((c, round(n * output / e2e * 1000), round(ttft), round(TPOT_JITTER * s)))
    return tuple(rows)


def describe(p: SweepParams):
    """The sweep's top row: the most sequences running, the highest token rates."""
    c, tok_s, _, _ = p.rows[-1]
    context = p.prompt_tokens + p.output_tokens / 2
    n = min(c, most_running(p.deployment, p.prompt_tokens + p.output_tokens))
    return system(
        p.deployment,
        n,
        context,
        decode_tok_s=tok_s,
        prefill_tok_s=tok_s * p.prompt_tokens / p.output_tokens,
        prompt=p.prompt_tokens,
    )


FEASIBILITY = Feasibility((COMPUTE, DECODE_STEP, MEMORY), describe)


def _nice_between(lo: int, hi: int, unit: int) -> int | None:
    """A multiple of `unit` at or above lo and below hi, the lowest one."""
    v = -(-lo // unit) * unit
    return v if v < hi else None


def draw_sweep(rng: random.Random) -> SweepParams | None:
    """A sweep and a chat SLO whose answer row is one of c = 4..128; None to redraw."""
    dep = rng.choice(tuple(DEPLOYMENTS))
    prompt, output = rng.choice(PROMPTS), rng.choice(OUTPUTS)
    rows = draw_rows(rng, dep, prompt, output)
    r = rng.randint(2, 7)
    nxt = rows[r + 1]
    binding = rng.choice(("ttft", "tpot", "both"))
    tpot_unit = 5 if rows[r][3] >= 20 else 1
    tpot_tight = _nice_between(rows[r][3], nxt[3], tpot_unit)
    ttft_tight = _nice_between(rows[r][2], nxt[2], 50)
    if binding in ("tpot", "both") and tpot_tight is None:
        return None
    if binding in ("ttft", "both") and ttft_tight is None:
        return None
    loose = min(len(rows) - 1, r + rng.randint(2, 3))
    tpot = tpot_tight if binding != "ttft" else _round_up(rows[loose][3], 5)
    ttft = ttft_tight if binding != "tpot" else _round_up(rows[loose][2], 50)
    try:
        return SweepParams(
            deployment=dep,
            prompt_tokens=prompt,
            output_tokens=output,
            rows=rows,
            slo_ttft_ms=ttft,
            slo_tpot_ms=tpot,
        )
    except ValueError:
        return None


def _round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit


def table(p: SweepParams) -> str:
    head = (
        f"{'concurrency':>11}  {'output tok/s':>12}  {'p99 TTFT (ms)':>13}  {'p99 TPOT (ms)':>13}"
    )
    lines = [head] + [f"{c:>11}  {t:>12,}  {a:>13,}  {b:>13,}" for c, t, a, b in p.rows]
    return "\n".join(lines)


def setup_sentence(p: SweepParams) -> str:
    """What was measured and what the columns mean, TTFT and TPOT defined."""
    return (
        f"A vLLM server serves {served_on(p.deployment)}. A benchmark ran `vllm bench "
        "serve` against it once per concurrency (`--max-concurrency`: that many requests "
        "in flight, a new one sent as each finishes), every request with "
        f"{p.prompt_tokens:,} prompt tokens and exactly {p.output_tokens:,} output tokens "
        "(`--ignore-eos`). Output tok/s counts generated tokens over the run; p99 TTFT is "
        "the 99th percentile of time to first token (from a request's arrival to its first "
        "output token); p99 TPOT is the 99th percentile over requests of time per output "
        "token (each request's mean time between two consecutive output tokens)."
    )
