"""The quota model of gpu-chargeback, after Kueue's: a guaranteed (nominal) quota that
its owner gets back at once by preempting borrowers, and borrowing beyond it from GPUs
idle now, up to a borrowing limit, reclaimable at any time. A new job is admitted on
guaranteed quota, on borrowed GPUs, or waits in the queue.
"""

from __future__ import annotations

import random
from typing import Any

from problems.engine.template import Misconception
from problems.templates.platform._family import HOURS_PER_MONTH

ADMISSIONS = ("guaranteed", "borrowed", "queued")


def admission(p: Any) -> str:
    """Guaranteed within the quota; borrowed when the excess fits both the borrowing limit
    and the idle GPUs; queued otherwise."""
    need = p.running_gpus + p.job_gpus - p.quota_gpus
    if need <= 0:
        return "guaranteed"
    return "borrowed" if need <= min(p.borrow_limit, p.idle_gpus) else "queued"


def draw_quota(rng: random.Random, g: int, team_hours: int) -> dict[str, int]:
    """A quota near the GPUs the team held on average, and a job that lands in one of the
    three cases (each a third of the time)."""
    case = rng.choice(ADMISSIONS)
    held = max(8, round(team_hours / HOURS_PER_MONTH / 8) * 8)
    for _ in range(1000):
        q = rng.choice([x for x in (held - 8, held, held + 8) if 8 <= x <= g // 2] or [8])
        k = rng.choice((8, 16, 24, 32))
        b = rng.choice((8, 16, 24, 32))
        u = rng.randrange(max(0, q - 32), min(q + b, g - 8) + 1, 8)
        f = rng.choice([x for x in (0, 8, 16, 24, 32, 48) if x <= g - u])
        out = dict(quota_gpus=q, running_gpus=u, job_gpus=k, borrow_limit=b, idle_gpus=f)
        need = u + k - q
        if case == "guaranteed" and need <= 0 and (f < k or rng.random() < 0.2):
            return out
        if case == "borrowed" and 0 < need <= min(b, f):
            return out
        if case == "queued" and need > min(b, f) and need <= max(b, f):
            return out
    raise RuntimeError("no quota scenario")  # pragma: no cover


def admission_slips(p: Any) -> list[Misconception]:
    """The wrong words a named misreading of the quota rules gives, one per wrong word."""
    verdict = admission(p)
    out = []
    if verdict != "guaranteed" and p.job_gpus <= p.quota_gpus:
        out.append(
            Misconception(
                "running-usage-ignored",
                "admission",
                "guaranteed",
                f"The job alone fits the quota, but the team already runs {p.running_gpus} "
                "GPUs: the quota covers the running and the new GPUs together.",
            )
        )
    if verdict == "guaranteed" and p.idle_gpus < p.job_gpus:
        out.append(
            Misconception(
                "quota-not-reclaimed",
                "admission",
                "queued",
                "Too few GPUs are idle, but the team's unused quota is lent to other teams, and "
                "a guaranteed quota is taken back at once by preempting the borrowers.",
            )
        )
    if verdict == "borrowed":
        out.append(
            Misconception(
                "quota-as-hard-cap",
                "admission",
                "queued",
                "The quota is a guarantee, not a ceiling: the job may borrow idle GPUs up to "
                "the borrowing limit, at the risk of being reclaimed.",
            )
        )
    if verdict == "queued":
        need = p.running_gpus + p.job_gpus - p.quota_gpus
        code = "borrowing-limit-ignored" if need > p.borrow_limit else "borrowing-beyond-idle"
        text = (
            f"The team would need {need} GPUs beyond its quota, more than its borrowing "
            f"limit of {p.borrow_limit}."
            if need > p.borrow_limit
            else f"The team would need {need} borrowed GPUs, but only {p.idle_gpus} are "
            "idle: borrowing takes idle GPUs only."
        )
        out.append(Misconception(code, "admission", "borrowed", text))
    return out
