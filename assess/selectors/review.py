"""An attempt as its reader may see it, decided by the one feedback policy."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from assess.models import Attempt, Question, Response, Reveal
from assess.policy import (
    QuestionPolicy,
    attempt_over,
    grades_visible,
    hints_offered,
    question_policy,
)
from assess.scoring import AttemptScore, Rules, attempt_score, tries_by_part
from assess.selectors.attempt_rows import active_rows
from assess.selectors.drills import DrillView, drill_of, drill_view, steps_by_question
from problems.engine.render import render_markdown
from problems.engine.variants import ParamError, Variant


@dataclass(frozen=True)
class QuestionReview:
    question: Question
    responses: list[Response]
    policy: QuestionPolicy
    solution_html: str | None  # only when the policy shows every part's answer
    solution_markdown: str | None = None  # the same solution as Markdown with LaTeX
    drill: DrillView | None = None  # an incident drill's actions and steps (else None)

    @property
    def score(self) -> float:
        return self.policy.score


@dataclass(frozen=True)
class AttemptReview:
    attempt: Attempt
    visible: bool  # grades (correctness, scores) may show to this reader now
    own: bool  # the reader is the attempt's learner
    score: AttemptScore
    questions: list[QuestionReview]

    @property
    def passed(self) -> bool:
        return self.score.score >= self.attempt.quiz.pass_mark


def solution_markdown(question: Question) -> str | None:
    """The worked solution as Markdown with LaTeX, regenerated from the stored variant;
    None where its template is gone. Callers ask the feedback policy first."""
    try:
        return Variant.from_params(
            question.template_slug, question.params, question.template_version
        ).solution_markdown()
    except (ParamError, KeyError):
        return None


def solution_html(question: Question) -> str | None:
    """The worked solution as HTML with MathML (rendered from solution_markdown)."""
    markdown = solution_markdown(question)
    return None if markdown is None else render_markdown(markdown)


def question_reviews(
    *,
    attempt: Attempt,
    questions: list[Question],
    responses: list[Response],
    reveals: list[Reveal],
    own: bool,
    now: datetime,
) -> list[QuestionReview]:
    """The policy applied to rows already read; no query of its own except rendering
    the worked solutions the policy lets through, and one for the steps of the incident
    drills among the questions, if any."""
    rules = Rules.of(attempt.quiz)
    over = attempt_over(attempt=attempt, now=now)
    grades = not own or grades_visible(attempt=attempt, now=now)
    tries = tries_by_part(responses)
    offered = hints_offered(quiz=attempt.quiz)
    revealed: dict[int, set[str]] = {}
    for r in reveals:
        revealed.setdefault(r.question_id, set()).add(r.part)
    by_question: dict[int, list[Response]] = {}
    for r in responses:
        by_question.setdefault(r.question_id, []).append(r)
    drill_steps = steps_by_question(questions)
    reviews = []
    for q in questions:
        is_drill = q.pk in drill_steps
        policy = question_policy(
            parts=q.answers,
            tries={p["name"]: tries.get((q.pk, p["name"]), []) for p in q.answers},
            revealed=revealed.get(q.pk, ()),
            rules=rules,
            over=over,
            grades=grades,
            learner=own,
            hints=q.hints,
            offered=offered,
            drill=is_drill,
        )
        markdown = solution_markdown(q) if policy.show_solution else None
        drill = None
        if is_drill:
            drill = drill_view(
                drill=drill_of(q),
                steps=drill_steps[q.pk],
                submitted=any(tries.get((q.pk, p["name"])) for p in q.answers),
                accepts=own and not over and q.active,
                show_solution=policy.show_solution,
            )
        reviews.append(
            QuestionReview(
                question=q,
                responses=by_question.get(q.pk, []),
                policy=policy,
                solution_html=None if markdown is None else render_markdown(markdown),
                solution_markdown=markdown,
                drill=drill,
            )
        )
    return reviews


def attempt_review(
    *, user, attempt: Attempt, now: datetime | None = None, rows: tuple | None = None
) -> AttemptReview:
    """The attempt as its reader may see it. `attempt` must come from
    attempt_get_for_user. Three queries however many questions there are, none when
    the caller has the attempt's active (questions, responses, reveals) as `rows`
    already (the finish read them: Attempt.closed_rows)."""
    now = now or timezone.now()
    own = attempt.learner_id == user.pk
    questions, responses, reveals = rows if rows is not None else active_rows(attempt.pk)
    return AttemptReview(
        attempt=attempt,
        visible=not own or grades_visible(attempt=attempt, now=now),
        own=own,
        score=attempt_score(questions, responses, Rules.of(attempt.quiz)),
        questions=question_reviews(
            attempt=attempt,
            questions=questions,
            responses=responses,
            reveals=reveals,
            own=own,
            now=now,
        ),
    )


def question_review(
    *,
    user,
    attempt: Attempt,
    question: Question,
    responses: list[Response] | None = None,
    reveals: list[Reveal] | None = None,
) -> QuestionReview:
    """One question of a gated attempt, as its reader may see it now; pass its responses
    and reveals when the caller has them already (a submission does)."""
    if responses is None:
        responses = list(question.responses.order_by("created_at", "id"))
    if reveals is None:
        reveals = list(question.reveals.all())
    (review,) = question_reviews(
        attempt=attempt,
        questions=[question],
        responses=responses,
        reveals=reveals,
        own=attempt.learner_id == user.pk,
        now=timezone.now(),
    )
    return review
