"""gpu-chargeback: a shared GPU pool's monthly bill charged back to the teams that use
it, the pool's utilisation, and whether a team's next job runs on its guaranteed quota,
on borrowed GPUs or waits.

Realism the generator enforces: pools of 32-256 GPUs (whole 8-GPU nodes) costing 1.5-3
USD per GPU-hour fully loaded, billed per month of 730 h (8,760 h / 12, stated); 3-5
teams whose pods held 55-90% of the pool's GPU-hours between them and kept 50-95% of
their own allocated hours busy, in whole GPU-hours. The policy is either the idle
capacity spread over the teams in proportion to their use, or charged to the platform
(teams pay a flat rate per used GPU-hour). Quotas follow Kueue's model: a guaranteed
(nominal) quota that the owner gets back by preemption when others borrow it, and
borrowing beyond it up to a limit from GPUs idle now, reclaimable at any time.

Misconceptions: on the charge, allocated hours used where the policy says used
(allocated-not-used), idle split equally between teams (idle-split-equally, spread
policy only), the idle policy applied the other way round (idle-policy-swapped) and a
month of 30 days (month-as-30-days, 720 h; platform policy); on the utilisation,
allocated hours (allocated-not-used) and 720 h; on the admission, the team's running
GPUs left out (running-usage-ignored), the quota taken as a hard cap (quota-as-hard-cap),
a full pool taken to block a team's own quota (quota-not-reclaimed), and borrowing past
the limit (borrowing-limit-ignored) or past the idle GPUs (borrowing-beyond-idle). Slips
land at least 1.2% from the answer and each other (720 h against 730 h is 1.4%).
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field, model_validator

from problems.engine.numbers import sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import parts_separated
from problems.templates.platform._family import HOURS_PER_MONTH, usd
from problems.templates.platform._quota import ADMISSIONS, admission, admission_slips, draw_quota

TEAMS = ("search", "recsys", "llm-research", "speech", "vision")
_GAP = 0.012
GpuHours = int


class ChargebackParams(Params):
    n_gpus: int = Field(ge=1, le=100_000)
    monthly_cost_usd: float = Field(gt=0, le=1e9)
    allocated: tuple[GpuHours, ...] = Field(min_length=2, max_length=len(TEAMS))
    used: tuple[GpuHours, ...] = Field(min_length=2, max_length=len(TEAMS))
    team: int = Field(ge=0, lt=len(TEAMS))
    policy: Literal["spread", "platform"]
    quota_gpus: int = Field(ge=0, le=100_000)
    running_gpus: int = Field(ge=0, le=100_000)
    job_gpus: int = Field(ge=1, le=100_000)
    borrow_limit: int = Field(ge=0, le=100_000)
    idle_gpus: int = Field(ge=0, le=100_000)

    @model_validator(mode="after")
    def _consistent(self) -> ChargebackParams:
        if len(self.used) != len(self.allocated) or self.team >= len(self.used):
            raise ValueError("one allocated and one used figure per team, and a listed team")
        if any(u < 0 or u > a for u, a in zip(self.used, self.allocated, strict=True)):
            raise ValueError("used hours must lie between 0 and the allocated hours")
        if sum(self.used) == 0 or sum(self.allocated) > self.n_gpus * HOURS_PER_MONTH:
            raise ValueError("allocated hours cannot exceed the pool's hours in a month")
        if self.quota_gpus > self.n_gpus or self.idle_gpus > self.n_gpus - self.running_gpus:
            raise ValueError("quota and idle GPUs must fit in the pool")
        return self


RATE = formula("r", lambda s: s.C / (s.G * s.h), C="C", G="G", h="h")
SPREAD = formula(r"C_t", lambda s: s.C * s.u / s.S, C="C", u="u_t", S=r"\sum u")
FLAT = formula(r"C_t", lambda s: s.r * s.u, r="r", u="u_t")
UTIL = formula("U", lambda s: s.S / (s.G * s.h), S=r"\sum u", G="G", h="h")


def _rate(p: ChargebackParams, hours: int = HOURS_PER_MONTH) -> float:
    return p.monthly_cost_usd / (p.n_gpus * hours)


def _charge(p: ChargebackParams, policy: str, hours_of: tuple[int, ...], h: int) -> float:
    mine = hours_of[p.team]
    if policy == "spread":
        return p.monthly_cost_usd * mine / sum(hours_of)
    return _rate(p, h) * mine


@register
class GpuChargeback(Template):
    slug = "gpu-chargeback"
    version = 1
    title = "Charging a shared GPU pool back to its teams"
    family = "platform"
    lessons = ("platform-and-operations", "reliability-cost-at-scale")
    skills = ("multi-tenancy", "gpu-hours", "cost-attribution", "gpu-quotas")
    difficulty = 3
    Params = ChargebackParams

    def generate(self, rng: random.Random) -> ChargebackParams:
        for _ in range(10_000):
            g = rng.choice((32, 64, 96, 128, 256))
            n = rng.randint(3, 5)
            capacity = g * HOURS_PER_MONTH
            weights = [rng.uniform(0.5, 3) for _ in range(n)]
            held = capacity * rng.uniform(0.55, 0.9)
            allocated = tuple(round(held * w / sum(weights)) for w in weights)
            used = tuple(round(a * rng.uniform(0.5, 0.95)) for a in allocated)
            team = rng.randrange(n)
            p = ChargebackParams(
                n_gpus=g,
                monthly_cost_usd=float(round(capacity * rng.uniform(1.5, 3.0), -3)),
                allocated=allocated,
                used=used,
                team=team,
                policy=rng.choice(("spread", "platform")),
                **draw_quota(rng, g, allocated[team]),
            )
            numeric = {k: v for k, v in self.solve(p).items() if k != "admission"}
            if parts_separated(numeric, self.misconceptions(p), _GAP):
                return p
        raise RuntimeError("no acceptable gpu-chargeback variant")  # pragma: no cover

    def solve(self, p: ChargebackParams) -> dict[str, Part]:
        charge = _charge(p, p.policy, p.used, HOURS_PER_MONTH)
        util = sum(p.used) / (p.n_gpus * HOURS_PER_MONTH) * 100
        return {
            "charge": Part("charge", charge, "USD", label=f"Charge to {TEAMS[p.team]}"),
            "utilisation": Part("utilisation", util, "%", label="Pool utilisation"),
            "admission": Part(
                "admission",
                admission(p),
                kind=Kind.CHOICE,
                tolerance=Exact(),
                choices=ADMISSIONS,
                label="Where the new job runs",
            ),
        }

    def _report(self, p: ChargebackParams) -> str:
        rows = [f"{'TEAM':<14}{'ALLOCATED_GPU_H':>17}{'USED_GPU_H':>13}"]
        for name, a, u in zip(TEAMS, p.allocated, p.used, strict=False):
            rows.append(f"{name:<14}{a:>17,}{u:>13,}")
        return "```text\n" + "\n".join(rows) + "\n```"

    def statement(self, p: ChargebackParams) -> str:
        name = TEAMS[p.team]
        if p.policy == "spread":
            policy = (
                "The whole bill is charged back: each team pays a share of it in proportion "
                "to its **used** GPU-hours, so idle capacity is spread over the teams by "
                "their share of use."
            )
        else:
            policy = (
                "Teams pay a flat rate for each **used** GPU-hour: the bill divided by every "
                "GPU-hour the pool offers in the month. Idle capacity stays with the "
                "platform team as its overhead."
            )
        if p.idle_gpus:
            idle = f"the other teams leave {p.idle_gpus} GPUs of the pool idle"
        else:
            idle = "every GPU in the pool is busy, some with other teams' borrowed jobs"
        return (
            f"A platform team runs a shared pool of $G = {p.n_gpus}$ GPUs whose fully loaded "
            f"cost (hardware write-off, power, hosting, staff) is $C = "
            f"{tex(p.monthly_cost_usd, 12)}$ USD per month. A month counts as $h = "
            f"{HOURS_PER_MONTH}$ h (8,760 h / 12). The metering reports each team's "
            "**allocated** GPU-hours (hours GPUs were bound to its pods) and **used** "
            "GPU-hours (the allocated hours in which the GPU was busy):\n\n"
            + self._report(p)
            + f"\n\n{policy}\n\n"
            "Quotas: each team has a guaranteed quota of GPUs. GPUs of a quota that its "
            "owner leaves unused may be lent to other teams, and the owner gets them back "
            "at once by preempting the borrowers. A team may run beyond its quota by "
            "borrowing GPUs that are idle right now, up to its borrowing limit; borrowed "
            f"GPUs can be reclaimed at any time. Team {name} has a quota of "
            f"{p.quota_gpus} GPUs and a borrowing limit of {p.borrow_limit}; it runs "
            f"{p.running_gpus} GPUs now and submits a job that needs {p.job_gpus} more. "
            f"Right now {idle}.\n\n"
            f"1. What is team {name}'s charge for the month, in USD?\n"
            "2. What was the pool's utilisation (used GPU-hours over the GPU-hours it "
            "offered), in %?\n"
            "3. Does the new job run on guaranteed quota, on borrowed GPUs, or wait in the "
            "queue (guaranteed, borrowed or queued)?"
        )

    def solution(self, p: ChargebackParams) -> str:
        name = TEAMS[p.team]
        total = sum(p.used)
        mine = p.used[p.team]
        charge = _charge(p, p.policy, p.used, HOURS_PER_MONTH)
        rate = _rate(p)
        util = total / (p.n_gpus * HOURS_PER_MONTH)
        if p.policy == "spread":
            how = (
                f"The teams used $\\sum u = {tex(total)}$ GPU-hours (each team's used hours "
                f"$u$, summed); {name} used $u_t = {tex(mine)}$ of them and pays that share of "
                "the whole bill:\n\n"
                + step(SPREAD, {"C": p.monthly_cost_usd, "u": mine, "S": total}, charge, "USD")
            )
        else:
            how = (
                "The rate is the bill over every GPU-hour the pool offers:\n\n"
                + step(
                    RATE,
                    {"C": p.monthly_cost_usd, "G": p.n_gpus, "h": HOURS_PER_MONTH},
                    rate,
                    "USD/GPU-h",
                )
                + f"\n\nand {name} pays it on its used hours, $u_t = {tex(mine)}$ of the "
                f"$\\sum u = {tex(total)}$ GPU-hours all teams used (each team's used hours "
                "$u$, summed):\n\n" + step(FLAT, {"r": rate, "u": mine}, charge, "USD")
            )
        need = p.running_gpus + p.job_gpus - p.quota_gpus
        verdict = admission(p)
        if verdict == "guaranteed":
            why = (
                f"{p.running_gpus} + {p.job_gpus} = {p.running_gpus + p.job_gpus} GPUs is "
                f"within the quota of {p.quota_gpus}, so the job runs on guaranteed quota; "
                "any of those GPUs lent to other teams are reclaimed by preempting them."
            )
        else:
            why = (
                f"{p.running_gpus} + {p.job_gpus} = {p.running_gpus + p.job_gpus} GPUs is "
                f"{need} past the quota of {p.quota_gpus}. Borrowing is possible up to the "
                f"smaller of the limit ({p.borrow_limit}) and the idle GPUs "
                f"({p.idle_gpus}), that is {min(p.borrow_limit, p.idle_gpus)}: "
                + (
                    "enough, so the job runs on borrowed GPUs that may be reclaimed."
                    if verdict == "borrowed"
                    else "not enough, so the job waits in the queue."
                )
            )
        return (
            how + f"\n\nthat is **{usd(charge)} USD**. The pool offered "
            f"${p.n_gpus} \\times {HOURS_PER_MONTH} = {tex(p.n_gpus * HOURS_PER_MONTH)}$ "
            "GPU-hours:\n\n"
            + step(UTIL, {"S": total, "G": p.n_gpus, "h": HOURS_PER_MONTH}, util)
            + f"\n\nthat is **{sig(util * 100, 4)}%**. For the job: {why} Answer: "
            f"**{verdict}**."
        )

    def misconceptions(self, p: ChargebackParams) -> list[Misconception]:
        h, n = HOURS_PER_MONTH, len(p.used)
        other = "platform" if p.policy == "spread" else "spread"
        out = [
            Misconception(
                "allocated-not-used",
                "charge",
                _charge(p, p.policy, p.allocated, h),
                "That charges the allocated hours. The policy bills used GPU-hours: the "
                "hours the team's GPUs were actually busy.",
            ),
            Misconception(
                "idle-policy-swapped",
                "charge",
                _charge(p, other, p.used, h),
                "That leaves the idle capacity with the platform; this policy spreads the "
                "whole bill over the teams by their share of use."
                if p.policy == "spread"
                else "That spreads the idle capacity over the teams; this policy charges "
                "only a flat rate per used hour and leaves the idle hours with the platform.",
            ),
        ]
        if p.policy == "spread":
            idle_cost = p.monthly_cost_usd - _rate(p) * sum(p.used)
            out.append(
                Misconception(
                    "idle-split-equally",
                    "charge",
                    _rate(p) * p.used[p.team] + idle_cost / n,
                    f"That splits the idle capacity equally between the {n} teams. The "
                    "policy spreads it by each team's share of the used hours.",
                )
            )
        else:
            out.append(
                Misconception(
                    "month-as-30-days",
                    "charge",
                    _charge(p, p.policy, p.used, 720),
                    "That counts 720 h (30 days) in the month. The statement bills a month "
                    "as 730 h, 8,760 h / 12.",
                )
            )
        capacity = p.n_gpus * h
        out += [
            Misconception(
                "allocated-not-used",
                "utilisation",
                sum(p.allocated) / capacity * 100,
                "That is the share of GPU-hours bound to pods. Utilisation counts the hours "
                "the GPUs were busy: the used column.",
            ),
            Misconception(
                "month-as-30-days",
                "utilisation",
                sum(p.used) / (p.n_gpus * 720) * 100,
                "That counts 720 h (30 days) in the month. The statement counts 730 h.",
            ),
        ]
        return out + admission_slips(p)
