"""retry-amplification: what client retries do to an overloaded LLM endpoint. Each user
request makes a first attempt and, after each failure, another one, up to r retries;
every attempt fails (times out) with probability p independently. The parts are the
expected attempts per request, 1 + p + ... + p^r = (1 - p^(r+1)) / (1 - p), the load the
server is offered (the users' rate times that), and the share of requests that still
fail after the last retry, p^(r+1), in %.

Realism: user rates of 5-200 requests/s for one endpoint; 10-60% of attempts failing,
which is what an overloaded endpoint whose queue has grown past the client timeout shows
(a healthy one fails far less, and there the retries hardly matter); 1-5 retries, 2
being the default of the OpenAI Python SDK, which retries timeouts, 429s and 5xx
errors. The statement says that p is measured at the current (already amplified) load
and that independence is the simplifying assumption; the solution points out that in a
real overload p itself grows with the retried load.

Misconceptions: every request making all r + 1 attempts (always-max-attempts); retrying
forever, 1/(1 - p) (unbounded-retries); p x r extra attempts, as if each retry happened
with probability p (linear-retries, r >= 2 only: for r = 1 it is the right answer);
only the first retry counted, 1 + p (one-retry-only, r >= 2); the server seeing only
the users' rate (retries-not-counted); for the failing share, p (retries-ignored) and
p^r (counts retries, not attempts). A variant is redrawn unless every slip lies at
least 2.5% from its part's answer and from the part's other slips.
"""

from __future__ import annotations

import random

from pydantic import Field

from problems.engine.numbers import sig
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import parts_separated, sig15, tex15


class RetryParams(Params):
    client_rps: float = Field(gt=0, le=1e6)
    fail_pct: float = Field(gt=0, lt=100)
    max_retries: int = Field(ge=1, le=20)


ATTEMPTS = formula(r"\bar{A}", lambda s: (1 - s.p ** (s.r + 1)) / (1 - s.p), p="p", r="r")
LOAD = formula(r"\lambda_{\mathrm{server}}", lambda s: s.lam * s.A, lam=r"\lambda", A=r"\bar{A}")
FAILED = formula(r"f", lambda s: s.p ** (s.r + 1), p="p", r="r")

_RATES = (5, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 120, 150, 200)
_FAIL_PCTS = (10, 12, 15, 18, 20, 25, 30, 35, 40, 45, 50, 60)
_RETRIES = (1, 2, 2, 2, 3, 3, 4, 5)


def _p(params: RetryParams) -> float:
    return params.fail_pct / 100


def attempts(p: float, r: int) -> float:
    """Expected attempts per request: attempt k+1 happens only after k failures."""
    return sum(p**k for k in range(r + 1))


@register
class RetryAmplification(Template):
    slug = "retry-amplification"
    title = "How client retries amplify load on an overloaded endpoint"
    family = "planning"
    lessons = (
        "cancellation-retries-and-stream-integrity",
        "admission-departure-and-overload",
        "from-sessions-to-requests",
    )
    skills = ("retry-semantics", "load-shedding", "demand-modelling", "retry-amplification")
    difficulty = 2
    Params = RetryParams
    version = 1

    def generate(self, rng: random.Random) -> RetryParams:
        for _ in range(10_000):
            p = RetryParams(
                client_rps=float(rng.choice(_RATES)),
                fail_pct=float(rng.choice(_FAIL_PCTS)),
                max_retries=rng.choice(_RETRIES),
            )
            if parts_separated(self.solve(p), self.misconceptions(p)):
                return p
        raise RuntimeError("retry-amplification: no separated variant")  # pragma: no cover

    def solve(self, p: RetryParams) -> dict[str, Part]:
        a = attempts(_p(p), p.max_retries)
        return {
            "attempts": Part("attempts", a, "", label="Expected attempts per user request"),
            "offered_load": Part(
                "offered_load", p.client_rps * a, "request/s", label="Attempts the server sees"
            ),
            "failed": Part(
                "failed",
                _p(p) ** (p.max_retries + 1) * 100,
                "%",
                label="User requests that still fail",
            ),
        }

    def statement(self, p: RetryParams) -> str:
        r = p.max_retries
        retries = "one retry" if r == 1 else f"{r} retries"
        return (
            "A chat endpoint serving an LLM is overloaded: its queue has grown so long that "
            f"at the current load **{sig15(p.fail_pct)}%** of attempts hit the client's "
            "60-second timeout and fail. The client library retries a failed attempt "
            f"after a short backoff, up to $r = {r}$ times: a first attempt "
            f"plus at most {retries}. Users send $\\lambda = {tex15(p.client_rps)}$ "
            "requests per second. Treat every attempt as failing independently with the "
            "same probability.\n\n"
            "1. How many attempts does one user request make on average?\n"
            "2. How many attempts per second does the endpoint receive?\n"
            "3. What share of user requests fail even after the last retry, in %?"
        )

    def solution(self, p: RetryParams) -> str:
        q, r = _p(p), p.max_retries
        a = attempts(q, r)
        failed = q ** (r + 1)
        terms = " + ".join(
            ["1"] + [f"{sig(q)}^{{{k}}}" if k > 1 else sig(q) for k in range(1, r + 1)]
        )
        return (
            "A retry is made only after a failure, so attempt $k + 1$ happens with "
            f"probability $p^k$ (the first $k$ all failed). With $p = {tex15(q)}$ the expected "
            f"count is the sum ${terms}$, a geometric series cut off after $r = {r}$ "
            "retries:\n\n"
            + step(ATTEMPTS, {"p": q, "r": r}, a)
            + "\n\nEvery attempt reaches the server, so the load it is offered is the users' "
            "rate times that:\n\n"
            + step(LOAD, {"lam": p.client_rps, "A": a}, p.client_rps * a, "request/s")
            + "\n\nA user request fails only when all of its $r + 1$ attempts fail:\n\n"
            + step(FAILED, {"p": q, "r": r}, failed)
            + f"\n\nthat is **{sig(failed * 100, 4)}%**. Not every request makes $r + 1 = {r + 1}$ "
            f"attempts (that would be {r + 1} per request), and the retries are capped, so "
            f"$1/(1 - p) = {sig(1 / (1 - q), 4)}$ overstates the count. In a real overload "
            "the retries are part of the load that causes the timeouts, so p climbs as they "
            "pile on: this is why servers shed load early with a fast 429 or 503 and clients "
            "use backoff and retry budgets."
        )

    def misconceptions(self, p: RetryParams) -> list[Misconception]:
        q, r, lam = _p(p), p.max_retries, p.client_rps
        slips: list[tuple[str, float, str]] = [
            (
                "always-max-attempts",
                r + 1.0,
                f"That counts all {r + 1} attempts for every request. A retry only follows "
                "a failure, so attempt k + 1 happens with probability p^k.",
            ),
            (
                "unbounded-retries",
                1 / (1 - q),
                f"1/(1 - p) is the count for retrying forever. The client stops after {r} "
                "retries, so the series ends at p^r.",
            ),
        ]
        if r >= 2:
            slips += [
                (
                    "linear-retries",
                    1 + r * q,
                    "That gives every retry probability p. The second retry needs two "
                    "failures in a row (p^2), the third three (p^3), and so on.",
                ),
                (
                    "one-retry-only",
                    1 + q,
                    f"That stops after the first retry. Up to {r} retries follow one another "
                    "while attempts keep failing: add p^2 and the later terms.",
                ),
            ]
        out = [Misconception(code, "attempts", v, fb) for code, v, fb in slips]
        out += [
            Misconception(
                code,
                "offered_load",
                lam * v,
                fb + " The server's load is the users' rate times the attempts per request.",
            )
            for code, v, fb in slips
        ]
        out += [
            Misconception(
                "retries-not-counted",
                "offered_load",
                lam,
                "That is the users' rate. Every retry is another request the server must "
                "queue and start on, so the endpoint sees the attempts, not the users.",
            ),
            Misconception(
                "retries-ignored",
                "failed",
                q * 100,
                "That is the share of attempts that fail. A user request fails only when its "
                "first attempt and every retry fail: p raised to the number of attempts.",
            ),
        ]
        if r >= 2:  # for one retry p^r is p itself, named above
            out.append(
                Misconception(
                    "counts-retries-not-attempts",
                    "failed",
                    q**r * 100,
                    f"That raises p to the {r} retries only. The first attempt failed as "
                    f"well, so the request fails with p^(r + 1), {r + 1} failures in a row.",
                )
            )
        return out
