"""review_memo: a capacity memo against its brief, as a rubric with a score.

Pure and deterministic: the same brief and text give the same Review, field for field
(no clock, no randomness, no I/O; floats rounded once, here). The rubric, in order:

    sections            4   every required section present (1 off per missing one)
    accelerator         1   the choice is one of the brief's candidates
    tensor-parallel     2   a power of two within one instance, at or above the minimum
    context             1   holds the p99 prompt plus the p99 output, within the window
    weights             2   weights-memory, graded by the engine
    kv-per-token        2   kv-cache-per-token, graded by the engine
    seqs-per-replica    2   kv-max-sequences at the memo's choices, graded by the engine
    peak-concurrency    2   littles-law (concurrency) at the peak rate, by the engine
    replicas            2   at or above the reference floor at the memo's choices: littles-law
                            at the batch memory and TPOT allow, and the compute floor
                            (headroom is the memo's call)
    gpus                1   replicas x tensor parallel
    monthly-cost        2   GPUs x price x 730, within 2%
    feasibility         3   the memo's fleet passes compute (<= 60% of dense peak), memory,
                            TTFT and TPOT at the peak (feasible.py); names the one it fails
    consistency         4   the memo's own figures agree (1 per check)
    measurement-plan    3   a tool, a load at the brief's peak, thresholds at its SLO (TTFT
                            p99 and TPOT), a pass/fail rule (all 3, three 2, two 1), found by
                            content, never by length (plan_text, plan_content)
    failure-test        3   the fault injected, the behaviour expected, a threshold, a rule

Figures are graded where a template part exists, so their misconception codes are the
engine's (gb-vs-gib, missing-kv-factor-2, floor-not-ceil, ...). 34 points in all.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import partial
from typing import Any

from capstone.memo_review.brief import Brief
from capstone.memo_review.checks import quote, sizing_criteria
from capstone.memo_review.fleet import check_consistency, feasibility_criterion, fleet_criteria
from capstone.memo_review.memo import SECTIONS, parse_memo
from capstone.memo_review.plan_text import check_plan_text, failure_parts, measurement_parts

SECTION_POINTS = 4


@dataclass(frozen=True)
class Criterion:
    code: str
    title: str
    points: float
    max_points: float
    evidence: str = ""
    comment: str = ""
    misconception: str | None = None


@dataclass(frozen=True)
class Review:
    criteria: tuple[Criterion, ...]
    score: float
    max_score: float
    notes: tuple[str, ...] = ()

    def criterion(self, code: str) -> Criterion:
        return next(c for c in self.criteria if c.code == code)

    def as_dict(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "max_score": self.max_score,
            "criteria": [asdict(c) for c in self.criteria],
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Review:
        return cls(
            criteria=tuple(Criterion(**c) for c in data["criteria"]),
            score=data["score"],
            max_score=data["max_score"],
            notes=tuple(data.get("notes", ())),
        )


def _sections(parsed) -> Criterion:
    missing = parsed.missing_sections()
    points = max(0, SECTION_POINTS - len(missing))
    comment = (
        "All required sections are present."
        if not missing
        else "Missing section" + ("s: " if len(missing) > 1 else ": ") + "; ".join(missing) + "."
    )
    return Criterion("sections", "Required sections", points, SECTION_POINTS, "", comment)


def review_memo(brief: Brief, text: str) -> Review:
    parsed = parse_memo(text)
    raw: list[dict[str, Any]] = [asdict(_sections(parsed))]
    raw += sizing_criteria(brief, parsed)
    raw += fleet_criteria(brief, parsed)
    raw.append(feasibility_criterion(brief, parsed))
    raw.append(check_consistency(brief, parsed))
    replicas = parsed.figures.get("replicas")
    measure = partial(
        measurement_parts,
        peak_rps=brief.peak_rps,
        replicas=int(replicas.value) if replicas and replicas.value else None,
        ttft_ms=brief.ttft_p99_ms,
        tpot_ms=brief.tpot_ms,
    )
    for code, title, section, parts_of in (
        ("measurement-plan", "Measurement plan is concrete", "Measurement plan", measure),
        ("failure-test", "Failure-case test is concrete", "Failure-case test", failure_parts),
    ):
        raw.append(check_plan_text(code, title, parsed.sections.get(section), parts_of))
    criteria = tuple(
        Criterion(**dict(c, points=round(float(c["points"]), 2), evidence=quote(c["evidence"])))
        for c in raw
    )
    return Review(
        criteria=criteria,
        score=round(sum(c.points for c in criteria), 2),
        max_score=round(sum(c.max_points for c in criteria), 2),
        notes=parsed.notes,
    )


__all__ = ["SECTIONS", "Criterion", "Review", "review_memo"]
