"""Attempts and questions as a page may show them, under the feedback policy."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from assess import selectors
from assess.models import Attempt, Question, Quiz, Response
from assess.policy import feedback_visible
from curricula.models import Lesson
from frontend.hints import unit_hint
from frontend.queries.common import answer_text, template_title
from problems.engine.variants import ParamError, Variant


@dataclass(frozen=True)
class PartView:
    """What the page may show of a part: never its value unless `answer` is allowed."""

    name: str
    label: str
    unit: str
    kind: str
    choices: tuple[str, ...]
    hint: str
    text: str  # what the box shows: a draft, else the latest saved answer
    error: str
    latest: Response | None
    answer: str  # the correct value, only once the policy and progress allow


@dataclass(frozen=True)
class QuestionView:
    question: Question
    title: str
    parts: list[PartView]
    visible: bool  # feedback policy allows correctness now
    open: bool  # still takes answers
    autosave: bool  # answers are saved, graded and hidden (exam style)
    answered: bool
    solution_html: str | None
    saved_at: datetime | None


def question_views(
    *,
    attempt: Attempt,
    questions: Sequence[Question],
    drafts: dict[str, str],
    errors: dict[str, str],
    own: bool = True,
    now: datetime | None = None,
) -> list[QuestionView]:
    """Questions of an attempt already gated by attempt_get_for_user; one query for all
    their responses. Answers and worked solutions appear only when the policy shows
    feedback now and the learner has answered (or the attempt is over). A reader who is
    not the learner (an instructor, staff) sees what the API's review shows them, and
    no answer form."""
    now = now or timezone.now()
    visible = not own or feedback_visible(attempt=attempt, now=now)
    takes_answers = own and attempt.is_open and not attempt.past_deadline(now)
    latest: dict[tuple[int, str], Response] = {}
    for r in Response.objects.filter(question__in=[q.pk for q in questions]).order_by(
        "created_at", "id"
    ):
        latest[(r.question_id, r.part)] = r
    views = []
    for q in questions:
        answered = any((q.pk, p["name"]) in latest for p in q.answers)
        reveal = visible and (answered or not attempt.is_open)
        parts = []
        for p in q.answers:
            key = f"{q.pk}:{p['name']}"
            last = latest.get((q.pk, p["name"]))
            choices = tuple(p.get("choices") or ())
            parts.append(
                PartView(
                    name=p["name"],
                    label=p.get("label") or p["name"],
                    unit=p.get("unit") or "",
                    kind=p["kind"],
                    choices=choices,
                    hint=unit_hint(p.get("unit") or "", p["kind"], choices),
                    text=drafts.get(key, last.raw if last else ""),
                    error=errors.get(key, ""),
                    latest=last,
                    answer=answer_text(p) if reveal else "",
                )
            )
        solution = None
        if reveal:
            try:
                solution = Variant.from_params(q.template_slug, q.params).solution_html()
            except (ParamError, KeyError):
                solution = None
        saved = [r.created_at for (qid, _), r in latest.items() if qid == q.pk]
        views.append(
            QuestionView(
                question=q,
                title=template_title(q.template_slug),
                parts=parts,
                visible=visible,
                open=takes_answers and q.active,
                autosave=not visible,
                answered=answered,
                solution_html=solution,
                saved_at=max(saved) if saved else None,
            )
        )
    return views


@dataclass(frozen=True)
class AttemptPage:
    attempt: Attempt
    visible: bool
    own: bool
    questions: list[QuestionView]


def attempt_page(*, user, attempt: Attempt, drafts, errors) -> AttemptPage:
    """An attempt from attempt_get_for_user: its active questions (every variant, for
    adaptive practice, which is a history rather than a paper)."""
    questions = attempt.questions.select_related("slot").order_by("order", "variant_number")
    if not attempt.quiz.adaptive:
        questions = questions.filter(active=True)
    own = attempt.learner_id == user.pk
    views = question_views(
        attempt=attempt, questions=list(questions), drafts=drafts, errors=errors, own=own
    )
    return AttemptPage(
        attempt=attempt,
        visible=not own or feedback_visible(attempt=attempt, now=timezone.now()),
        own=own,
        questions=views,
    )


@dataclass(frozen=True)
class QuestionPage:
    attempt: Attempt
    view: QuestionView
    own: bool
    lesson: Lesson | None  # adaptive practice: the lesson to practise next
    replacement: Question | None  # the variant that replaced this one
    can_vary: bool


def question_page(*, user, attempt: Attempt, qid: int, drafts, errors) -> QuestionPage:
    """The attempt was gated already; a question outside it raises DoesNotExist, a 404
    like any other learner's question."""
    question = selectors.question_get_for_attempt(attempt=attempt, pk=qid)
    own = attempt.learner_id == user.pk
    (view,) = question_views(
        attempt=attempt, questions=[question], drafts=drafts, errors=errors, own=own
    )
    replacement = None
    if not question.active:
        replacement = (
            attempt.questions.filter(order=question.order, active=True).order_by("-id").first()
        )
    lesson = None
    if attempt.quiz.practice_lesson_id:
        lesson = Lesson.objects.filter(pk=attempt.quiz.practice_lesson_id).first()
    return QuestionPage(
        attempt=attempt,
        view=view,
        own=own,
        lesson=lesson,
        replacement=replacement,
        can_vary=own and view.open and attempt.quiz.mode == Quiz.Mode.PRACTICE,
    )
