"""Attempts and questions as a page may show them.

What shows (correctness, a part's answer, the worked solution, whether a part still
takes tries) is decided by assess.policy through selectors.question_reviews, the same
review the API serializes; this module only reads the rows once and shapes the policy's
verdict for the templates. It holds no rule of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from assess import selectors
from assess.mastery.practice import change_note
from assess.models import Attempt, Hint, MasteryEvent, Question, Quiz, Response, Reveal
from assess.policy import attempt_over, grades_visible, hints_offered
from assess.scoring import Rules
from assess.selectors.attempt_rows import active_rows
from assess.selectors.hints import question_hint_total, question_hints
from curricula.models import Lesson
from frontend.hints import unit_hint
from frontend.queries.common import answer_text, template_title
from frontend.queries.drills import DrillBlock, drill_block
from problems.engine.skill_names import skill_name


@dataclass(frozen=True)
class PartView:
    """What the page may show of a part: never its value unless `answer` is set."""

    name: str
    label: str
    unit: str
    kind: str
    choices: tuple[str, ...]
    hint: str
    text: str  # what the box shows: a draft, else the latest saved answer
    error: str
    latest: Response | None  # the latest saved answer (its grade only if show_grades)
    tries: int
    show_grades: bool  # correctness, score and misconception of its tries may show
    answer: str  # the correct value, only when the policy shows it
    accepts: bool  # an answer box: the learner may send a try now
    tries_left: int | None  # immediate feedback with a limit; else None
    closed_message: str  # why the part takes no more tries (PartPolicy.closed_message)
    can_reveal: bool  # a "Show the answer" button
    can_hint: bool = False  # a "Hint" button (practice and homework, the part still open)
    hints: tuple = ()  # the problems.engine.hints.Hint shown when asked from this part
    hint_total: int = 0  # how many hints the question has
    hints_left: int = 0  # how many more a "Hint" button would show
    hint_next: int = 0  # the number of the hint the button shows next
    mastery_note: str = ""  # how the latest answer moved the learner's mastery, in words


@dataclass(frozen=True)
class QuestionView:
    question: Question
    title: str
    parts: list[PartView]
    visible: bool  # every part's grades may show
    open: bool  # some part takes an answer now: the page shows a form
    live: bool  # the learner's own active question in an attempt that takes answers
    autosave: bool  # deferred feedback: answers are saved, graded and hidden
    answered: bool
    solution_html: str | None  # only when the policy shows every part's answer
    saved_at: datetime | None
    # An incident drill: its actions, steps and verdicts (frontend.queries.drills); its
    # parts are its grading criteria, never answer boxes, so `open` is False.
    drill: DrillBlock | None = None

    @property
    def can_reveal(self) -> bool:
        return any(p.can_reveal for p in self.parts)


def rules_note(quiz: Quiz) -> str:
    """The quiz's rules in a sentence, from the same Rules the scores use."""
    rules = Rules.of(quiz)
    if rules.deferred:
        when = (
            "when the quiz closes"
            if quiz.feedback == Quiz.Feedback.AFTER_CLOSE
            else "when you finish"
        )
        return (
            "Answers are saved as you go and may be changed until you finish; the last saved "
            f"answer counts. Whether they are right shows {when}."
        )
    parts = ["Each answer is checked at once."]
    if rules.tries is not None:
        parts.append(f"Each part takes up to {rules.tries} tr{'y' if rules.tries == 1 else 'ies'}.")
    if rules.penalty:
        parts.append(
            f"Each wrong try before the right one costs {rules.penalty:.0%} of the part's credit."
        )
    parts.append("Showing a part's answer ends its tries.")
    if hints_offered(quiz=quiz):
        parts.append(
            f"Each hint costs {rules.hint_penalty:.0%} of the part's credit."
            if rules.hint_penalty
            else "Hints are free."
        )
        parts.append("An answer given after a hint does not count towards your mastery.")
    return " ".join(parts)


def _mastery_note(
    latest: Response | None, tries: int, question: Question, moved, counted: bool
) -> str:
    """The words beside a checked answer for how it moved the learner's mastery, from
    what the answer service stored with it (its evidence mark, its MasteryEvents);
    `counted`: an exam's, explained once its grades are released."""
    if latest is None:
        return ""
    return change_note(
        counted=counted,
        correct=bool(latest.correct),
        evidence=latest.evidence,
        try_number=tries,
        hinted=question.hinted_at is not None and latest.created_at >= question.hinted_at,
        steps=moved.get(latest.pk, {}),
        names={s: skill_name(s) for s in moved.get(latest.pk, {})},
    )


def _latest(review, name: str) -> Response | None:
    return next((r for r in reversed(review.responses) if r.part == name), None)


def _moved(reviews) -> dict[int, dict[str, tuple[float, float]]]:
    """{response id: {skill: (p before, p after)}} of each part's latest answer that was
    evidence and whose grade shows: one query, none when there is nothing to explain."""
    ids = []
    for review in reviews:
        for part in review.question.answers:
            latest = _latest(review, part["name"])
            shows = review.policy.parts[part["name"]].show_grades
            if latest is not None and latest.evidence and shows:
                ids.append(latest.pk)
    moved: dict[int, dict[str, tuple[float, float]]] = {}
    events = MasteryEvent.objects.filter(response_id__in=ids) if ids else ()
    for e in events:
        moved.setdefault(e.response_id, {})[e.skill] = (e.p_before, e.p_after)
    return moved


def _part_view(
    part: dict, policy, review, question, drafts, errors, steps, moved=None, counted=False
) -> PartView:
    """`steps`: {(question id, part): [hint steps asked from it]}; `moved`: the mastery
    steps of latest answers (_moved), None where no note is shown (another reader's
    view); `counted`: deferred feedback, where the last saved answer is what counts."""
    key = f"{question.pk}:{part['name']}"
    pp = policy.parts[part["name"]]
    latest = _latest(review, part["name"])
    choices = tuple(part.get("choices") or ())
    accepts = pp.accepts and question.active
    return PartView(
        name=part["name"],
        label=part.get("label") or part["name"],
        unit=part.get("unit") or "",
        kind=part["kind"],
        choices=choices,
        hint=unit_hint(part.get("unit") or "", part["kind"], choices),
        text=drafts.get(key, latest.raw if latest else ""),
        error=errors.get(key, ""),
        latest=latest,
        tries=pp.tries,
        show_grades=pp.show_grades,
        answer=answer_text(part) if pp.show_answer else "",
        accepts=accepts,
        tries_left=pp.tries_left,
        closed_message=pp.closed_message,
        can_reveal=accepts and policy.can_reveal,
        mastery_note=(
            _mastery_note(latest, pp.tries, question, moved, counted)
            if moved is not None and pp.show_grades
            else ""
        ),
        **_hint_fields(question, part["name"], pp, accepts, steps),
    )


def _hint_fields(question, name: str, pp, accepts: bool, steps) -> dict:
    """The part's hints as the page shows them: the engine's hints only when the policy
    lets this reader ask for some or some were shown (no engine work otherwise)."""
    asked = steps.get((question.pk, name), [])
    can = accepts and pp.can_hint
    if not (can or asked):
        return {}
    total = question_hint_total(question)
    shown = ()
    if asked:  # the texts only where some are shown: the count is stored
        hints = question_hints(question)
        shown = tuple(hints[s - 1] for s in asked if s <= len(hints))
    used = sum(int(n) for n in question.hints.values())
    return {
        "can_hint": can and bool(total),
        "hints": shown,
        "hint_total": total,
        "hints_left": max(0, total - used),
        "hint_next": min(used + 1, total),
    }


def question_views(
    *,
    attempt: Attempt,
    questions: Sequence[Question],
    drafts: dict[str, str],
    errors: dict[str, str],
    own: bool = True,
    now: datetime | None = None,
    rows: tuple[list[Response], list[Reveal]] | None = None,
) -> list[QuestionView]:
    """Questions of an attempt already gated by attempt_get_for_user, under the policy;
    two queries (responses, reveals) for all of them, unless the caller read them with
    the questions (`rows`). A reader who is not the learner (an instructor, staff) sees
    what the API's review shows them, and no answer form."""
    now = now or timezone.now()
    if rows is None:
        ids = [q.pk for q in questions]
        responses = list(Response.objects.filter(question__in=ids).order_by("created_at", "id"))
        reveals = list(Reveal.objects.filter(question__in=ids))
    else:
        responses, reveals = rows
    # Which hint was asked from which part: read only when some question had hints.
    hinted = [q.pk for q in questions if q.hinted_at is not None]
    steps: dict[tuple[int, str], list[int]] = {}
    for h in Hint.objects.filter(question__in=hinted).order_by("step") if hinted else ():
        steps.setdefault((h.question_id, h.part), []).append(h.step)
    reviews = selectors.question_reviews(
        attempt=attempt,
        questions=list(questions),
        responses=responses,
        reveals=reveals,
        own=own,
        now=now,
    )
    over = attempt_over(attempt=attempt, now=now)
    # The learner's own answers say how they moved mastery (an exam's once released).
    moved = _moved(reviews) if own else None
    counted = attempt.quiz.feedback_deferred
    views = []
    for review in reviews:
        q, policy = review.question, review.policy
        parts = [
            _part_view(p, policy, review, q, drafts, errors, steps, moved, counted)
            for p in q.answers
        ]
        saved = [r.created_at for r in review.responses]
        drill = None
        if review.drill is not None:
            score = policy.score if policy.show_score else None
            drill = drill_block(review.drill, parts, q.answers, score)
        views.append(
            QuestionView(
                question=q,
                title=template_title(q.template_slug),
                parts=parts,
                visible=policy.show_score,
                open=drill is None and any(p.accepts for p in parts),
                live=own and q.active and not over,
                autosave=attempt.quiz.feedback_deferred,
                answered=bool(review.responses),
                solution_html=review.solution_html,
                saved_at=max(saved) if saved else None,
                drill=drill,
            )
        )
    return views


@dataclass(frozen=True)
class AttemptPage:
    attempt: Attempt
    visible: bool
    own: bool
    questions: list[QuestionView]
    rules: str
    # The attempt's possible points (its active questions' slots); None for adaptive
    # practice, a history of variants rather than a paper with a total.
    total_points: int | None = None
    # The learner's extension on the quiz (extra time, a later close): the page says it
    # beside the time taken, so 13:34 on a 10-minute exam explains itself.
    extension: object | None = None

    @property
    def time_taken_text(self) -> str:
        """ "13:34" (minutes:seconds, or h:mm:ss) for a closed attempt; "" otherwise."""
        a = self.attempt
        if a.finished_at is None:
            return ""
        minutes, seconds = divmod(int((a.finished_at - a.started_at).total_seconds()), 60)
        hours, minutes = divmod(minutes, 60)
        return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"

    @property
    def extra_time(self):
        return getattr(self.extension, "extra_time", None)

    @property
    def time_limit_with_extension(self):
        limit = self.attempt.quiz.time_limit
        return limit + self.extra_time if limit and self.extra_time else limit


def attempt_page(*, user, attempt: Attempt, drafts, errors) -> AttemptPage:
    """An attempt from attempt_get_for_user: its active questions (every variant, for
    adaptive practice, which is a history rather than a paper); a paper's rows are read
    by the statements every read of an attempt makes (assess.selectors.attempt_rows)."""
    rows = None
    if attempt.quiz.adaptive:
        questions = list(
            attempt.questions.select_related("slot").order_by("order", "variant_number")
        )
    else:
        questions, responses, reveals = active_rows(attempt.pk)
        rows = (responses, reveals)
    own = attempt.learner_id == user.pk
    now = timezone.now()
    views = question_views(
        attempt=attempt,
        questions=questions,
        drafts=drafts,
        errors=errors,
        own=own,
        now=now,
        rows=rows,
    )
    total = None if attempt.quiz.adaptive else sum(q.slot.points for q in questions)
    extension = (
        None
        if attempt.quiz.adaptive
        else selectors.extension_of(quiz=attempt.quiz, learner=attempt.learner_id)
    )
    return AttemptPage(
        attempt=attempt,
        visible=not own or grades_visible(attempt=attempt, now=now),
        own=own,
        questions=views,
        rules=rules_note(attempt.quiz),
        total_points=total,
        extension=extension,
    )


def blank_parts(page: AttemptPage) -> list[str]:
    """The parts of a (non-adaptive) attempt with no saved answer, as the finish
    confirmation names them: "Question 2, Memory per GPU". A draft still in the
    session is not an answer: only saved answers count at the finish."""
    blanks = []
    for qv in page.questions:
        if not qv.question.active:
            continue
        if qv.drill is not None:  # one submission answers all its criteria, or none
            if not qv.drill.submitted:
                blanks.append(f"Question {qv.question.order}, the incident drill's diagnosis")
            continue
        blanks += [f"Question {qv.question.order}, {p.label}" for p in qv.parts if p.latest is None]
    return blanks


@dataclass(frozen=True)
class QuestionPage:
    attempt: Attempt
    view: QuestionView
    own: bool
    lesson: Lesson | None  # adaptive practice: the lesson to practise next
    replacement: Question | None  # the variant that replaced this one
    can_vary: bool
    rules: str


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
        can_vary=view.live and attempt.quiz.mode == Quiz.Mode.PRACTICE,
        rules=rules_note(attempt.quiz),
    )
