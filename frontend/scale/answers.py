"""Attempts with their questions and answers, written chunk by chunk (frontend.scale.work
says what is drawn and why).

How many answers a part gets is a Poisson draw capped by its quiz's mode; its mean is
chosen so the whole institution holds plan.responses answers: a pilot of the first
attempts (their own generator, so the real draw is unchanged) is answered at candidate
means and the mean bisected, since early right answers close immediate-feedback parts
and no formula says how many answers that leaves.
"""

from __future__ import annotations

import math
import random
from datetime import datetime, timedelta

from assess.models import Quiz, SkillMastery
from frontend.scale.plan import Plan
from frontend.scale.rows import Table
from frontend.scale.work import (
    CHUNK,
    PRIOR,
    Totals,
    Writers,
    _answer,
    _bkt,
    _tries,
    _typed,
)


def _batch() -> dict[str, list]:
    """The rows one round of attempts adds, by table."""
    return {"attempts": [], "questions": [], "responses": [], "events": []}


class Answerer:
    """Answers one attempt's questions: pure but for the ids it hands out."""

    def __init__(self, pool, lam: float, next_ids: dict, totals: Totals):
        self.pool, self.lam, self.ids, self.totals = pool, lam, next_ids, totals

    def attempt(self, rng, learner, theta, quiz, number, started: datetime, out: dict):
        attempt_id = self.ids["attempt"]
        self.ids["attempt"] += 1
        deferred = quiz.mode == Quiz.Mode.EXAM
        clock = started
        earned = 0.0
        for order, (slot_id, slug) in enumerate(quiz.slots, start=1):
            variants, b = self.pool[slug]
            v = variants[rng.randrange(len(variants))]
            qid = self.ids["question"]
            self.ids["question"] += 1
            out["questions"].append((
                qid, attempt_id, slot_id, order, v.values["template_slug"],
                v.values["template_version"], v.values["seed"], 1, v.values["params"],
                v.values["answers"], v.values["statement_html"],
                v.values["statement_markdown"], True, started, {},
            ))  # fmt: skip
            chance = 1.0 / (1.0 + math.exp(-(theta - b)))
            got = 0.0
            for part in v.parts:
                right, clock = self._part(rng, out, attempt_id, qid, learner, part, v,
                                          chance, deferred, quiz.mode, clock)  # fmt: skip
                got += float(part.get("weight") or 1.0) * right
            weights = sum(float(p.get("weight") or 1.0) for p in v.parts) or 1.0
            earned += got / weights
        score = earned / len(quiz.slots)
        deadline = started + timedelta(minutes=60) if deferred else None
        finished = max(clock, started + timedelta(minutes=3))
        if deadline is not None:
            finished = min(finished, deadline)
        out["attempts"].append((attempt_id, quiz.pk, learner, number, "finished", started,
                                deadline, finished, score, earned))  # fmt: skip
        self.totals.attempts += 1

    def _part(self, rng, out, attempt_id, qid, learner, part, variant, chance, deferred,
              mode, clock):  # fmt: skip
        skills, slips = variant.skills, variant.slips
        tries = _tries(mode, rng, self.lam)
        right = False
        for k in range(tries):
            # later tries follow feedback (or a second look): a little likelier right
            correct = rng.random() < min(0.97, chance + 0.12 * k)
            right = correct if deferred else (right or correct)  # the last save counts
            raw, value, unit = _answer(part, correct, k)
            slip = ""
            named = slips.get(part["name"])
            if not correct and named and rng.random() < 0.3:  # a named mistake, its answer
                slip, wrong = named[rng.randrange(len(named))]
                raw, value, unit = _typed(part, wrong)
            rid = self.ids["response"]
            self.ids["response"] += 1
            clock += timedelta(seconds=rng.uniform(20, 240))
            evidence = not deferred and k == 0
            out["responses"].append((
                rid, attempt_id, qid, part["name"], raw, value, unit, True, correct,
                1.0 if correct else 0.0, slip, "Correct." if correct else "Not correct.",
                clock, rng.randrange(5_000, 300_000), f"s{rid}", evidence,
            ))  # fmt: skip
            self.totals.responses += 1
            if evidence:
                for skill in skills:
                    state = self.totals.mastery.setdefault((learner, skill), [PRIOR, 0, clock])
                    after = _bkt(state[0], correct)
                    out["events"].append((learner, skill, state[0], after, rid, clock))
                    state[0], state[1], state[2] = after, state[1] + 1, clock
                    self.totals.events += 1
            if not deferred and correct:
                break
        return (1.0 if right else 0.0), clock


def _pilot_responses(plan_rows, pool, lam: float, thetas, seed: int) -> int:
    rng = random.Random(f"pilot-{seed}")
    totals = Totals()
    answerer = Answerer(pool, lam, {"attempt": 1, "question": 1, "response": 1}, totals)
    start = datetime(2026, 1, 1)
    for learner, quiz, number in plan_rows:  # only the counts are kept
        answerer.attempt(rng, learner, thetas[learner], quiz, number, start, _batch())
    return totals.responses


def mean_for(plan: Plan, plan_rows: list, pool, thetas) -> float:
    """The Poisson mean that gives plan.responses answers over every attempt."""
    pilot = plan_rows[:: max(1, len(plan_rows) // 1500)]
    target = plan.responses * len(pilot) / max(1, len(plan_rows))
    low, high = 0.0, 40.0
    for _ in range(14):
        mid = (low + high) / 2
        if _pilot_responses(pilot, pool, mid, thetas, plan.seed) < target:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def work_write(plan: Plan, plan_rows: list, pool, thetas, rng, now: datetime, log) -> Totals:
    lam = mean_for(plan, plan_rows, pool, thetas)
    log(f"answers per part: 1 + Poisson({lam:.2f}), capped per mode")
    writers = Writers()
    totals = Totals()
    answerer = Answerer(pool, lam, dict(writers.next), totals)
    for at in range(0, len(plan_rows), CHUNK):
        out = _batch()
        for learner, quiz, number in plan_rows[at : at + CHUNK]:
            started = now - timedelta(days=rng.uniform(1, 365), minutes=rng.uniform(0, 1440))
            answerer.attempt(rng, learner, thetas[learner], quiz, number, started, out)
        writers.attempts.write(out["attempts"])
        writers.questions.write(out["questions"])
        writers.responses.write(out["responses"])
        writers.events.write(out["events"])
        totals.questions += len(out["questions"])
        log(f"attempts {min(at + CHUNK, len(plan_rows)):,}/{len(plan_rows):,}, "
            f"answers {totals.responses:,}")  # fmt: skip
    Table(SkillMastery, ["learner_id", "skill", "p_mastery", "responses", "updated_at"]).write(
        (learner, skill, p, n, at) for (learner, skill), (p, n, at) in totals.mastery.items()
    )
    return totals
