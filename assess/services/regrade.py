"""Regrading stored responses with the current template, from their recorded parameters.

When a template's solution or tolerance is fixed, every stored answer to it can be
graded again: the question keeps its parameters, so the variant is rebuilt exactly and
only the template's code differs. For an authored template "the current template" is its
latest published version: a regrade moves every question that drew an older version to
it, which is only sound when the new version takes the parameters each question drew
(the same names, values still within its ranges and constraints). If any question's
parameters do not fit the current version, the whole regrade is refused with the reason
(`refused`) and nothing is stored: a regrade that moved some learners to the new answers
and left others on the old ones would grade one exam two ways.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction

from assess.models import Attempt, Question, Response
from assess.scoring import Rules, attempt_score
from assess.services.drills import drill_regraded
from assess.services.questions import solved_parts
from assess.signals import grade_released_on_commit
from assess.skills import is_drill
from audit.models import AuditEvent
from audit.services import audit_record
from problems.engine.variants import ParamError, Variant


@dataclass(frozen=True)
class ScoreChange:
    response_id: int
    question_id: int
    part: str
    old: float
    new: float


@dataclass
class RegradeReport:
    template: str
    dry_run: bool
    questions: int = 0
    responses: int = 0
    changes: list[ScoreChange] = field(default_factory=list)
    answers_changed: list[int] = field(default_factory=list)  # question ids
    attempts: list[tuple[int, float | None, float]] = field(default_factory=list)
    released: list[int] = field(default_factory=list)  # rescored attempts already released
    errors: list[str] = field(default_factory=list)
    refused: str = ""  # why nothing was stored, when the template cannot take a question


def responses_regrade(*, template_slug: str, dry_run: bool = False, actor=None) -> RegradeReport:
    """Re-solve every question of the template from its stored parameters and regrade
    every stored response's raw text. Unless dry_run, store the new grades, the new
    answers JSON and version, and rescore the closed attempts whose scores moved.

    Mastery estimates are not replayed: they are history, and fit_mastery reads the
    corrected log. An answer that the current reader cannot read scores 0 and is
    marked invalid (it stays stored, as it was once accepted).

    A stored regrade is audited (one event, `actor` None for the command line).
    """
    report = RegradeReport(template=template_slug, dry_run=dry_run)
    with transaction.atomic():
        questions = Question.objects.filter(template_slug=template_slug).order_by("id")
        if not dry_run:
            questions = questions.select_for_update()
        responses_by_question: dict[int, list[Response]] = {}
        for r in Response.objects.filter(question__template_slug=template_slug).order_by("id"):
            responses_by_question.setdefault(r.question_id, []).append(r)
        touched_responses: list[Response] = []
        touched_questions: list[Question] = []
        touched_attempts: set[int] = set()
        for question in questions:
            report.questions += 1
            try:
                variant = Variant.from_params(template_slug, question.params)
                answers = solved_parts(variant)
            except ParamError as err:
                report.errors.append(f"question {question.id}: {err}")
                report.refused = report.refused or (
                    f"question {question.id} drew parameters the current version of "
                    f"{template_slug} does not take ({err}); nothing was regraded"
                )
                continue
            if answers != question.answers or question.template_version != variant.template.version:
                question.answers = answers
                question.template_version = variant.template.version
                touched_questions.append(question)
                report.answers_changed.append(question.id)
            responses = responses_by_question.get(question.id, [])
            drill = drill_regraded(question, responses, variant) if is_drill(template_slug) else {}
            for response in responses:
                report.responses += 1
                if response.part not in variant.parts:
                    report.errors.append(
                        f"response {response.id}: part {response.part!r} no longer exists"
                    )
                    continue
                result = variant.grade(response.part, response.raw)
                new = drill.get(response.part) or {
                    "valid": result.valid,
                    "correct": result.correct if result.valid else False,
                    "score": result.score if result.valid else 0.0,
                    "misconception": (result.misconception or "") if result.valid else "",
                    "feedback": result.feedback,
                }
                if all(getattr(response, k) == v for k, v in new.items()):
                    continue
                if new["score"] != response.score:
                    report.changes.append(
                        ScoreChange(
                            response.id, question.id, response.part, response.score, new["score"]
                        )
                    )
                    touched_attempts.add(response.attempt_id)
                for k, v in new.items():
                    setattr(response, k, v)
                touched_responses.append(response)
        if touched_questions:
            touched_attempts.update(q.attempt_id for q in touched_questions)
        closed = Attempt.objects.filter(pk__in=touched_attempts).exclude(status=Attempt.Status.OPEN)
        if report.refused and not dry_run:
            return report
        if dry_run:
            _rescore(closed, touched_responses, touched_questions, report, save=False)
            return report
        Response.objects.bulk_update(
            touched_responses, ["raw", "valid", "correct", "score", "misconception", "feedback"]
        )
        Question.objects.bulk_update(touched_questions, ["answers", "template_version"])
        _rescore(closed, touched_responses, touched_questions, report, save=True)
        audit_record(
            actor=actor,
            action=AuditEvent.Action.REGRADE,
            target_type="problems.template",
            target_id=template_slug,
            target_label=template_slug,
            detail={
                "responses": len(touched_responses),
                "questions": len(touched_questions),
                # Whose grade must reach their LMS again: lti.reconcile reads it when the
                # after-commit passback of this regrade was lost.
                "released_attempts": report.released,
            },
        )
    return report


def _rescore(attempts, responses, questions, report: RegradeReport, *, save: bool) -> None:
    """Recompute closed attempts' scores with the regraded (possibly unsaved) rows."""
    new_responses = {r.id: r for r in responses}
    new_questions = {q.id: q for q in questions}
    for attempt in (attempts.select_for_update() if save else attempts).select_related("quiz"):
        qs = []
        for q in attempt.questions.filter(active=True).select_related("slot"):
            if q.id in new_questions:
                q.answers = new_questions[q.id].answers
            qs.append(q)
        rs = [new_responses.get(r.id, r) for r in attempt.responses.filter(question__active=True)]
        result = attempt_score(qs, rs, Rules.of(attempt.quiz))
        if result.score != attempt.score:
            report.attempts.append((attempt.id, attempt.score, result.score))
            if save:
                attempt.score, attempt.points = result.score, result.points
                attempt.save(update_fields=["score", "points"])
                if attempt.mastery_applied_at is not None:  # a grade already released
                    report.released.append(attempt.pk)
                    grade_released_on_commit(
                        attempt_id=attempt.pk, quiz_id=attempt.quiz_id, user_id=attempt.learner_id
                    )
