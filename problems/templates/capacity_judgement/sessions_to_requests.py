"""sessions-to-requests: from the people signed in to a chat product to the requests its
model servers see. Of U signed-in users a share a is active in the peak hour, and an
active user sends m messages an hour; each message is one request that takes W seconds
from arrival to its last token. The parts are the peak arrival rate, lambda = U a m /
3600 requests per second, and the sequences in flight at once by Little's law, L =
lambda W: what a model server's batch and KV cache must hold, which is neither the
signed-in nor the active users.

Realism: internal assistants and customer chat products with 2,000-100,000 signed-in
users, 5-30% of them active in the busiest hour, 4-30 messages an hour from an active
user (a conversation's turns arrive a minute or a few apart while someone reads and
types), and 6-40 s per request (a few hundred output tokens streamed at 20-60 tokens/s
after the first token). Rates and sequences then land where single deployments live:
about 1 to 500 requests/s, tens to a few thousand sequences.

Misconceptions, on the rate: every signed-in user sending at the active rate
(all-users-active), the hourly message count read per second (per-hour-as-per-second)
or per minute (hour-as-minute); on the sequences: the signed-in users
(signed-in-as-concurrent) or the active users (active-users-as-sequences) taken as
sequences in flight, and Little's law turned upside down, lambda / W
(littles-law-inverted). A variant is redrawn unless every slip lies at least 2.5% from
its part's answer and from the part's other slips.
"""

from __future__ import annotations

import random

from pydantic import Field

from problems.engine.numbers import sig
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import parts_separated, sig15, tex15

PRODUCTS = (
    "an internal coding assistant",
    "a customer-support chat",
    "a company-wide research assistant",
    "an IDE chat for a developer platform",
    "a chat assistant in a banking app",
)


class SessionParams(Params):
    product: int = Field(ge=0, lt=len(PRODUCTS))
    signed_in: int = Field(ge=100, le=10_000_000)
    active_pct: float = Field(gt=0, le=100)
    messages_per_hour: float = Field(gt=0, le=600)
    request_seconds: float = Field(gt=0, le=600)


RATE = formula(
    r"\lambda",
    lambda s: s.U * s.a * s.m / 3600,
    U="U",
    a="a",
    m="m",
)
IN_FLIGHT = formula("L", lambda s: s.lam * s.W, lam=r"\lambda", W="W")

_USERS = (2_000, 3_000, 5_000, 8_000, 12_000, 20_000, 30_000, 50_000, 80_000, 100_000)
_ACTIVE = (5, 8, 10, 12, 15, 20, 25, 30)
_MESSAGES = (4, 6, 8, 10, 12, 15, 20, 24, 30)
_SECONDS = (6, 8, 10, 12, 15, 18, 20, 25, 30, 40)


def rate(p: SessionParams) -> float:
    return p.signed_in * p.active_pct / 100 * p.messages_per_hour / 3600


@register
class SessionsToRequests(Template):
    slug = "sessions-to-requests"
    title = "From signed-in users to requests and sequences in flight"
    family = "capacity_judgement"
    lessons = ("from-sessions-to-requests",)
    skills = ("demand-modelling", "littles-law")
    difficulty = 1
    Params = SessionParams
    version = 1

    def generate(self, rng: random.Random) -> SessionParams:
        for _ in range(10_000):
            p = SessionParams(
                product=rng.randrange(len(PRODUCTS)),
                signed_in=rng.choice(_USERS),
                active_pct=float(rng.choice(_ACTIVE)),
                messages_per_hour=float(rng.choice(_MESSAGES)),
                request_seconds=float(rng.choice(_SECONDS)),
            )
            if 0.5 <= rate(p) <= 500 and parts_separated(self.solve(p), self.misconceptions(p)):
                return p
        raise RuntimeError("sessions-to-requests: no separated variant")  # pragma: no cover

    def solve(self, p: SessionParams) -> dict[str, Part]:
        lam = rate(p)
        return {
            "arrival_rate": Part(
                "arrival_rate", lam, "request/s", label="Peak arrival rate of requests"
            ),
            "in_flight": Part(
                "in_flight", lam * p.request_seconds, "", label="Sequences in flight at once"
            ),
        }

    def statement(self, p: SessionParams) -> str:
        return (
            f"{PRODUCTS[p.product].capitalize()} has $U = {tex15(p.signed_in)}$ signed-in users. "
            f"In the busiest hour $a = {tex15(p.active_pct)}\\%$ of them are active, and an "
            f"active user sends $m = {tex15(p.messages_per_hour)}$ messages an hour; every "
            "message is one request to the model servers, which takes "
            f"$W = {tex15(p.request_seconds)}$ s from its arrival to its last streamed token."
            "\n\n"
            "1. What is the peak arrival rate of requests, in requests per second?\n"
            "2. How many sequences are in flight at once (being prefilled or decoded) at "
            "that rate? This is what the servers' batches and KV cache must hold."
        )

    def solution(self, p: SessionParams) -> str:
        lam = rate(p)
        active = p.signed_in * p.active_pct / 100
        return (
            f"Only the active users send: ${tex15(p.signed_in)} \\times "
            f"{tex15(p.active_pct / 100)} = {sig(active, 6)}$ people, "
            f"each {sig15(p.messages_per_hour)} messages an hour. "
            "An hour has 3600 seconds:\n\n"
            + step(
                RATE,
                {"U": p.signed_in, "a": p.active_pct / 100, "m": p.messages_per_hour},
                lam,
                "request/s",
            )
            + "\n\nEach request stays in the system for W seconds, so by Little's law the "
            "number in flight is the arrival rate times that time:\n\n"
            + step(IN_FLIGHT, {"lam": lam, "W": p.request_seconds}, lam * p.request_seconds)
            + f"\n\nThat is far fewer than the {sig(active, 6)} active users, let alone the "
            f"{p.signed_in:,} signed in: a user spends most of the hour reading and typing, "
            "not waiting on a token. Sizing the servers' concurrency by users would buy "
            "many times the GPUs the demand needs."
        )

    def misconceptions(self, p: SessionParams) -> list[Misconception]:
        lam, w = rate(p), p.request_seconds
        active = p.signed_in * p.active_pct / 100
        wrong_rates = [
            (
                "all-users-active",
                p.signed_in * p.messages_per_hour / 3600,
                "That lets every signed-in user send at the active rate. Only the share "
                "active in the peak hour sends messages.",
            ),
            (
                "per-hour-as-per-second",
                lam * 3600,
                "That reads m messages an hour as m a second. Divide the hourly count by "
                "3600 to get requests per second.",
            ),
            (
                "hour-as-minute",
                lam * 60,
                "That divides by 60, as if m were per minute. An hour has 3600 seconds.",
            ),
        ]
        out = [Misconception(c, "arrival_rate", v, fb) for c, v, fb in wrong_rates]
        out += [
            Misconception(
                "signed-in-as-concurrent",
                "in_flight",
                float(p.signed_in),
                "Signed-in users are not requests. A request is in flight only for the W "
                "seconds it takes: Little's law, L = lambda W.",
            ),
            Misconception(
                "active-users-as-sequences",
                "in_flight",
                active,
                "Active users spend most of the hour between messages. Only the requests "
                "being served are sequences in flight: L = lambda W.",
            ),
            Misconception(
                "littles-law-inverted",
                "in_flight",
                lam / w,
                "Little's law multiplies: requests in flight are the arrival rate times the "
                "time each one spends in the system.",
            ),
        ]
        return out
