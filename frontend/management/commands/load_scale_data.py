"""`manage.py load_scale_data --learners N --seed S`: an institution's worth of data, for
the scale bench (issue 43; bench/README.md says what it holds and how long it takes).

Idempotent per seed: everything it writes is named after the seed (`scaleS-...`), and
a seed already loaded is left as it is. One transaction: a run that fails leaves
nothing, so running it again starts clean. Needs load_curricula and load_tracks first
(the courses, lessons and tracks are the real ones).
"""

from __future__ import annotations

import random
import time

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from frontend.scale.answers import work_write
from frontend.scale.credentials import certificates_write, memos_write
from frontend.scale.people import people_load, prefix
from frontend.scale.plan import Plan
from frontend.scale.rows import sequences_reset
from frontend.scale.work import attempt_plan, quizzes_load, variant_pool
from orgs.models import Organization

MAX_LEARNERS = 200_000


class Command(BaseCommand):
    help = "Load an institution's worth of synthetic data (learners, attempts, answers, ...)."

    def add_arguments(self, parser):
        parser.add_argument("--learners", type=int, required=True)
        parser.add_argument("--seed", type=int, default=1)

    def handle(self, *args, learners: int, seed: int, **options):
        if not 10 <= learners <= MAX_LEARNERS:
            raise CommandError(f"--learners must be from 10 to {MAX_LEARNERS:,}", returncode=2)
        plan = Plan(learners=learners, seed=seed)
        if Organization.objects.filter(slug=f"{prefix(plan)}-org-0").exists():
            self.stdout.write(f"seed {seed} is loaded already: nothing to do")
            return
        began = time.monotonic()

        def log(message: str) -> None:
            self.stderr.write(f"[{time.monotonic() - began:7.1f} s] {message}")

        rng = random.Random(f"scale:{seed}:{learners}")
        now = timezone.now()
        try:
            with transaction.atomic():
                counts = self._load(plan, rng, now, log)
        except ValueError as err:
            raise CommandError(str(err), returncode=2) from err
        counts["seconds"] = round(time.monotonic() - began, 1)
        self.stdout.write(" ".join(f"{k}={v}" for k, v in counts.items()))

    def _load(self, plan: Plan, rng: random.Random, now, log) -> dict:
        from django.contrib.auth import get_user_model

        from assess.models import Attempt, Question, Response
        from capstone.models import Capstone, Memo, MemoVersion
        from orgs.models import Team

        people = people_load(plan, rng, now)
        log(f"{len(people.learners):,} learners, {len(people.engineers):,} engineers")
        quizzes = quizzes_load(plan, people)
        log(f"{sum(len(q) for q in quizzes.values())} quizzes")
        pool = variant_pool(plan, quizzes, rng)
        log(f"{sum(len(v) for v, _ in pool.values())} variants of {len(pool)} templates")
        rows = list(attempt_plan(plan, people, quizzes, rng))
        thetas = {u: rng.gauss(0, 1) for u in people.learners}
        totals = work_write(plan, rows, pool, thetas, rng, now, log)
        certificates = certificates_write(plan, people, rng, now)
        versions = memos_write(plan, people, rng, now)
        log(f"{certificates:,} certificates, {versions:,} memo versions")
        sequences_reset([get_user_model(), Attempt, Question, Response, Team, Organization,
                         Capstone, Memo, MemoVersion])  # fmt: skip
        return {
            "learners": len(people.learners),
            "quizzes": sum(len(q) for q in quizzes.values()),
            "attempts": totals.attempts,
            "questions": totals.questions,
            "responses": totals.responses,
            "mastery_events": totals.events,
            "skill_rows": len(totals.mastery),
            "organisations": plan.organisations,
            "teams": len(people.teams),
            "engineers": len(people.engineers),
            "certificates": certificates,
            "memo_versions": versions,
        }
