"""admission-limit: the concurrency limit an LLM service admits at, and the queue length
at which it sheds load, from the arrival rate, the service time and the waits users
accept, in a stated M/M/c model.

The model (stated in the question; Kleinrock, Queueing Systems vol. 1, sec. 3.5, the
Erlang C formula; any queueing text has it): requests arrive at random (Poisson, rate
lambda), each holds one of c slots (a sequence in the engine's running batch; vLLM's
`--max-num-seqs` summed over the replicas) for a random (exponential) time of mean S,
independent of how full the batch is, and wait in one FIFO queue when every slot is busy.
With offered load a = lambda S (Little's law: the mean number of busy slots), the queue is
stable only for c > a, a request waits with probability C(c, a) (Erlang C) and on average
W_q = C(c, a) S / (c - a).

- Concurrency limit: the fewest slots c whose mean queueing wait W_q is within the target.
- Shedding: while every slot is busy, requests leave the queue at c / S per second, so a
  request arriving behind Q others waits (Q + 1) S / c on average; it can start within the
  longest acceptable wait W_max when Q + 1 <= W_max c / S, and the queue limit is
  K = floor(W_max c / S): a request that finds K waiting is refused at once.

Slips named: slots at the offered load (Little's law alone, no room for randomness),
Little's law over the whole time in the system (slots for the queued requests too), and a
queue drained at the arrival rate or by one slot. Floats (the Erlang recursion is stable in
floating point); the generator skips variants whose wait lies within 1e-6 of the target,
where the rounding could decide the answer.

Realism: fleets of LLM serving slots: 0.5-20 requests/s, 2-20 s per request (a few hundred
output tokens at 20-100 tokens/s), an offered load of 4 to 300 busy slots; a mean queueing
wait target of 0.25-2 s and a longest acceptable wait of 5-30 s (a client timeout).
"""

from __future__ import annotations

import math
import random

from pydantic import Field

from problems.engine.numbers import sig, tex
from problems.engine.registry import register
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import drop_close_counts, tex15

_RATES = (0.5, 1, 1.5, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20)
_SERVICE = (2, 3, 4, 5, 6, 8, 10, 12, 15, 20)
_TARGETS = (0.25, 0.5, 1, 2)
_MAX_WAITS = (5, 10, 15, 20, 30)
_MAX_SLOTS = 100_000


class AdmissionParams(Params):
    arrival_rps: float = Field(gt=0, le=1e4)
    service_s: float = Field(gt=0, le=1e4)
    target_wait_s: float = Field(gt=0, le=1e4)
    max_wait_s: float = Field(gt=0, le=1e5)


def erlang_c(c: int, a: float) -> float:
    """Probability that an arrival waits in M/M/c with offered load a < c, by the stable
    Erlang B recursion B_k = a B_{k-1} / (k + a B_{k-1}), then C = c B / (c - a (1 - B))."""
    b = 1.0
    for k in range(1, c + 1):
        b = a * b / (k + a * b)
    return c * b / (c - a * (1 - b))


def mean_wait(c: int, p: AdmissionParams) -> float:
    """Mean queueing wait W_q in seconds with c slots (infinite when c <= a)."""
    a = p.arrival_rps * p.service_s
    if c <= a:
        return math.inf
    return erlang_c(c, a) * p.service_s / (c - a)


def slots(p: AdmissionParams) -> int:
    a = p.arrival_rps * p.service_s
    c = math.floor(a) + 1
    while mean_wait(c, p) > p.target_wait_s:
        c += 1
        if c > _MAX_SLOTS:
            raise ValueError("more than 100,000 slots: the target is out of reach")
    return c


def queue_limit(p: AdmissionParams, c: int | None = None) -> int:
    c = slots(p) if c is None else c
    return math.floor(p.max_wait_s * c / p.service_s + 1e-9)


def _count(name: str, value: int, label: str) -> Part:
    return Part(name, value, "", kind=Kind.INTEGER, tolerance=Exact(), label=label)


@register
class AdmissionLimit(Template):
    slug = "admission-limit"
    title = "Admission and load-shedding limits from an M/M/c model"
    family = "serving"
    lessons = ("admission-departure-and-overload",)
    skills = ("admission-control", "load-shedding", "littles-law")
    difficulty = 4
    version = 1
    Params = AdmissionParams

    def generate(self, rng: random.Random) -> AdmissionParams:
        while True:
            p = AdmissionParams(
                arrival_rps=float(rng.choice(_RATES)),
                service_s=float(rng.choice(_SERVICE)),
                target_wait_s=float(rng.choice(_TARGETS)),
                max_wait_s=float(rng.choice(_MAX_WAITS)),
            )
            a = p.arrival_rps * p.service_s
            if not 4 <= a <= 300:
                continue
            c = slots(p)
            if abs(mean_wait(c, p) - p.target_wait_s) <= 1e-6 * p.target_wait_s:
                continue
            if len({m.part for m in self.misconceptions(p)}) == 2:
                return p

    def solve(self, p: AdmissionParams) -> dict[str, Part]:
        c = slots(p)
        return {
            "slots": _count("slots", c, "Concurrency limit (slots)"),
            "queue_limit": _count("queue_limit", queue_limit(p, c), "Queue limit"),
        }

    def statement(self, p: AdmissionParams) -> str:
        return (
            f"An LLM service receives $\\lambda = {tex15(p.arrival_rps)}$ requests/s. Each "
            "request holds one slot (one sequence of the engines' running batches) for "
            f"$S = {tex15(p.service_s)}$ s on average, whatever else is running. Requests "
            "beyond the slots wait in one first-come, first-served queue.\n\n"
            "Model it as an M/M/c queue: Poisson arrivals, exponential service times, "
            "$c$ identical slots. Product wants the mean wait in the queue to be at most "
            f"$W_{{\\mathrm{{t}}}} = {tex15(p.target_wait_s)}$ s, and no admitted request "
            "to face an expected wait before it starts above "
            f"$W_{{\\max}} = {tex15(p.max_wait_s)}$ s: a request that would has to be "
            "refused on arrival (HTTP 429) instead.\n\n"
            "What is the smallest number of slots $c$ (the concurrency limit to admit at) "
            "that meets the mean-wait target? With that many slots, how many requests may "
            "wait in the queue before new arrivals are shed (while every slot is busy, "
            "requests leave the queue at the slots' combined rate)?"
        )

    def solution(self, p: AdmissionParams) -> str:
        a = p.arrival_rps * p.service_s
        c = slots(p)
        k = queue_limit(p, c)
        below = c - 1
        prev = (
            f"with $c - 1 = {below}$ slots, $c - 1 \\le a$ and the queue grows without end"
            if below <= a
            else f"with $c - 1 = {below}$ slots the mean wait is "
            f"{sig(mean_wait(below, p), 4)} s, over the target"
        )
        return (
            "By Little's law the slots busy on average are the offered load "
            f"$a = \\lambda S = {tex(a)}$; the queue is stable only with more slots than "
            "that. In M/M/c a request waits with the Erlang C probability, for $k$ running "
            "over $0, \\dots, c - 1$:\n\n"
            "$$C(c, a) = \\frac{\\frac{a^{c}}{c!} \\frac{c}{c - a}}{\\sum_{k=0}^{c-1} "
            "\\frac{a^{k}}{k!} + \\frac{a^{c}}{c!} \\frac{c}{c - a}}, \\qquad "
            "W_{\\mathrm{q}} = \\frac{C(c, a)\\, S}{c - a}$$\n\n"
            f"Trying $c$ upwards from {math.floor(a) + 1}: with $c = {c}$ slots "
            f"$C = {tex(erlang_c(c, a), 4)}$ and $W_{{\\mathrm{{q}}}} = "
            f"{tex(mean_wait(c, p), 4)}$ s, within the target; {prev}. "
            f"Admit at **{c} slots**.\n\n"
            "While every slot is busy the queue moves at $c / S$ requests per second, so a "
            "request that finds $Q$ waiting starts after $(Q + 1) S / c$ on average. It can "
            "start in time when $Q + 1 \\le W_{\\max} c / S = "
            f"{tex(p.max_wait_s * c / p.service_s, 6)}$. So at most "
            f"$K = \\lfloor W_{{\\max}} c / S \\rfloor$ = **{k}** may wait; with $K$ "
            "already queued a new request is refused at once."
        )

    def misconceptions(self, p: AdmissionParams) -> list[Misconception]:
        a = p.arrival_rps * p.service_s
        c = slots(p)
        raw = [
            Misconception(
                "offered-load-slots",
                "slots",
                math.ceil(a),
                f"That is the offered load a = lambda S = {sig(a)} rounded up: the slots busy "
                "on average. With no spare slots the random bursts queue up and the wait "
                "grows without bound; Erlang C says how many more the target needs.",
            ),
            Misconception(
                "queue-counted-as-slots",
                "slots",
                math.ceil(p.arrival_rps * (p.service_s + p.target_wait_s)),
                "That applies Little's law to the whole time in the system, service plus "
                "the wait. Requests waiting in the queue hold no slot; the slots needed "
                "come from the Erlang C wait, not from lambda (S + W).",
            ),
            Misconception(
                "arrival-rate-drain",
                "queue_limit",
                math.floor(p.arrival_rps * p.max_wait_s),
                "That drains the queue at the arrival rate. Requests leave the queue only "
                "as slots free up: c / S per second while every slot is busy.",
            ),
            Misconception(
                "one-slot-drain",
                "queue_limit",
                math.floor(p.max_wait_s / p.service_s),
                f"That drains the queue through one slot. All c = {c} slots free up in "
                "turn, so the queue moves c / S requests per second.",
            ),
        ]
        solved = self.solve(p)
        counts = {name: int(part.value) for name, part in solved.items()}
        return drop_close_counts([m for m in raw if m.value != counts[m.part]], counts)
