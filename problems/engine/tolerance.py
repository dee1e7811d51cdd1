"""Tolerance kinds, declared per part as typed values.

Each kind is its own frozen pydantic model with its own settings, so a part cannot give
one kind another kind's settings (SigFigs(rel=...) is a validation error).
`score(answer, correct)` returns credit in [0, 1]; 1.0 means correct.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Tol(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RelAbs(_Tol):
    """Within `rel` of the correct value (relative), or within `abs` (absolute floor)."""

    kind: Literal["relabs"] = "relabs"
    rel: float = Field(default=0.01, ge=0, lt=1)
    abs: float = Field(default=0.0, ge=0)

    def score(self, answer: float, correct: float) -> float:
        allowed = max(self.rel * abs(correct), self.abs)
        return 1.0 if abs(answer - correct) <= allowed else 0.0


class SigFigs(_Tol):
    """Correct when the answer agrees with the value to `figures` significant figures."""

    kind: Literal["sigfigs"] = "sigfigs"
    figures: int = Field(default=3, ge=1, le=15)

    def score(self, answer: float, correct: float) -> float:
        if correct == 0:
            return 1.0 if answer == 0 else 0.0
        exponent = math.floor(math.log10(abs(correct)))
        half_ulp = 0.5 * 10 ** (exponent - self.figures + 1)
        return 1.0 if abs(answer - correct) <= half_ulp * (1 + 1e-9) else 0.0


class Estimate(_Tol):
    """Order-of-magnitude credit on a log scale.

    Full credit while the ratio to the correct value is within `full` (1.1 = 10%), falling
    linearly in log-ratio to half credit at `half` (a factor of 2), and to nothing at
    `half` squared. A wrong sign earns nothing.
    """

    kind: Literal["estimate"] = "estimate"
    full: float = Field(default=1.1, gt=1)
    half: float = Field(default=2.0, gt=1)

    def score(self, answer: float, correct: float) -> float:
        if correct == 0 or answer == 0:
            return 1.0 if answer == correct else 0.0
        if (answer > 0) != (correct > 0):
            return 0.0
        r = abs(math.log(answer / correct))
        lf, lh = math.log(self.full), math.log(max(self.half, self.full))
        if r <= lf:
            return 1.0
        if r <= lh:
            return 1.0 - 0.5 * (r - lf) / (lh - lf) if lh > lf else 0.5
        if r <= 2 * lh:
            return 0.5 * (2 * lh - r) / lh
        return 0.0


class Exact(_Tol):
    """Integer parts: the exact value and nothing else."""

    kind: Literal["exact"] = "exact"

    def score(self, answer: float, correct: float) -> float:
        return 1.0 if answer == correct else 0.0


Tolerance = Annotated[RelAbs | SigFigs | Estimate | Exact, Field(discriminator="kind")]
