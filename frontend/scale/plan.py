"""How much an institution of N learners holds, and how unevenly (pure: no database).

The figures are issue 43's for N = 20,000 and scale with N: 200 quizzes, 50,000
attempts, 2,000,000 responses, 3 organisations with 50 teams and 2,000 engineers, 5,000
certificates, 20,000 memo versions. Real data is skewed, and the pages that break at
scale are the ones that meet the skew, so the plan plants it: a few quizzes take most
attempts (Zipf over each course's quizzes), one learner in a hundred practises
relentlessly (50-150 attempts, thousands of answers; the first heavy learner the
most), each course has about a quarter of the learners (the first course at least
5,000 at full size), and one team is 200 engineers. Everything drawn follows the seed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

FULL = 20_000  # the institution


@dataclass(frozen=True)
class Plan:
    learners: int
    seed: int

    def _scaled(self, at_full: int, least: int) -> int:
        return max(least, round(at_full * self.learners / FULL))

    @property
    def quizzes(self) -> int:
        return self._scaled(200, 8)

    @property
    def attempts(self) -> int:
        return self._scaled(50_000, 20)

    @property
    def responses(self) -> int:
        return self._scaled(2_000_000, 400)

    @property
    def teams(self) -> int:
        return self._scaled(50, 3)

    @property
    def engineers(self) -> int:
        return min(self.learners, self._scaled(2_000, 12))

    @property
    def biggest_team(self) -> int:
        return min(self.engineers // 2, self._scaled(200, 3))

    @property
    def certificates(self) -> int:
        return self._scaled(5_000, 10)

    @property
    def memo_versions(self) -> int:
        return self._scaled(20_000, 10)

    @property
    def heavy(self) -> int:
        """Learners who practise relentlessly: one in a hundred, at least one."""
        return max(1, self.learners // 100)

    organisations: int = 3
    questions_per_quiz: int = 5
    variants_per_template: int = 8


def zipf(n: int, s: float = 1.1) -> list[float]:
    """Weights 1/rank^s for n items: the first few take most of the draws."""
    return [1.0 / math.pow(rank, s) for rank in range(1, n + 1)]


def heavy_attempts(plan: Plan) -> list[int]:
    """Attempts of each heavy learner: 150 for the first, down to 50; the budget for
    everyone else is what is left of plan.attempts (never below one each)."""
    n = plan.heavy
    budget = max(0, plan.attempts - (plan.learners - n))
    counts = [150] if n == 1 else [round(150 - 100 * i / (n - 1)) for i in range(n)]
    scale = min(1.0, budget / max(1, sum(counts)))
    return [max(1, round(c * scale)) for c in counts]
