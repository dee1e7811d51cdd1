"""A lesson practice attempt as its page shows it: progress ("Question x of n"), each
question's outcome in words, and once the session is over its summary: how many were
right and wrong, the mistakes named in words, each skill's estimate before and after,
and what to practise next.

Correctness shows only where the one feedback policy (assess.policy.question_policy)
lets it; the summary reads mastery from the MasteryEvents the answers wrote (only
honest evidence writes any) and writes nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.utils import timezone

from assess import selectors
from assess.mastery import bkt
from assess.models import Attempt, MasteryEvent, Question, Response, Reveal
from assess.policy import QuestionPolicy, attempt_over, grades_visible, question_policy
from assess.scoring import Rules, tries_by_part
from assess.services.drills import CHOSEN
from assess.skills import is_drill
from curricula import selectors as curricula_selectors
from curricula.models import Lesson
from frontend.queries.attempts import rules_note
from frontend.queries.common import template_title, weakest_estimate
from problems.engine.misconception_names import misconception_name

VERDICT_WORDS = {
    "right": "Right first time",
    "corrected": "Wrong at first, then right",
    "wrong": "Not right",
    "shown": "Answer shown without a try",
    "unanswered": "Not answered",
    "hidden": "Answered; graded later",
}


@dataclass(frozen=True)
class QuestionOutcome:
    question: Question
    title: str
    verdict: str  # a key of VERDICT_WORDS
    slips: tuple[str, ...]  # the mistakes its tries were told, in words, first seen first

    @property
    def words(self) -> str:
        return VERDICT_WORDS[self.verdict]

    @property
    def right(self) -> bool:
        return self.verdict == "right"

    @property
    def wrong(self) -> bool:
        return self.verdict in ("corrected", "wrong")


def outcome_verdict(
    parts: Sequence[str],
    tries: Mapping[str, Sequence[Response]],
    revealed: set[str],
    policy: QuestionPolicy,
) -> str:
    """One question's outcome from its parts' tries. Right means every part right at
    its first try, the answer mastery counts; a question put right after feedback is
    still a wrong first answer."""
    if not any(tries.get(p) for p in parts):
        return "shown" if revealed else "unanswered"
    if not policy.show_score:
        return "hidden"
    if all(tries.get(p) and tries[p][0].correct for p in parts):
        return "right"
    if all(any(r.correct for r in tries.get(p, ())) for p in parts):
        return "corrected"
    return "wrong"


@dataclass(frozen=True)
class NamedSlip:
    name: str  # in words (misconception_names), never the code
    count: int  # tries told this mistake
    example: str  # the feedback one of them was given


@dataclass(frozen=True)
class SkillChange:
    skill: str
    before: float
    after: float
    answers: int  # answers of the session that moved it

    @property
    def mastered(self) -> bool:
        return bkt.is_mastered(self.after)

    @property
    def points(self) -> int:
        """The change in percentage points, as the page rounds the two estimates."""
        return abs(round(self.after * 100) - round(self.before * 100))

    @property
    def direction(self) -> str:
        if not self.points:
            return "unchanged"
        return "up" if self.after > self.before else "down"


@dataclass(frozen=True)
class NextStep:
    lesson: selectors.LessonMastery
    skill: str
    estimate: float | None  # None: the skill has no answer yet
    same_lesson: bool


@dataclass(frozen=True)
class PracticePage:
    attempt: Attempt
    own: bool
    lesson: Lesson | None  # None once its lesson was unloaded from the curriculum
    length: int | None  # the session's n; None for open-ended practice
    outcomes: list[QuestionOutcome]  # one per question number, its current variant
    finished: bool  # the session is over: the summary shows
    rules: str
    slips: list[NamedSlip]
    changes: list[SkillChange]
    next: NextStep | None
    course_done: bool  # every skill of the course is mastered: nothing left to suggest

    @property
    def drawn(self) -> int:
        return len(self.outcomes)

    @property
    def current(self) -> QuestionOutcome | None:
        return self.outcomes[-1] if self.outcomes else None

    @property
    def complete(self) -> bool:
        """Every question of the session drawn: next is the finish."""
        return self.length is not None and self.drawn >= self.length

    def count(self, *verdicts: str) -> int:
        return sum(o.verdict in verdicts for o in self.outcomes)

    @property
    def right(self) -> int:
        return self.count("right")

    @property
    def wrong(self) -> int:
        return self.count("corrected", "wrong")

    @property
    def corrected(self) -> int:
        return self.count("corrected")

    @property
    def shown(self) -> int:
        return self.count("shown")

    @property
    def unanswered(self) -> int:
        return self.count("unanswered")


def named_slips(responses: Sequence[Response]) -> list[NamedSlip]:
    """Tries told a named mistake, counted by its name (two codes that mean one slip
    count together), most frequent first."""
    counts: Counter[str] = Counter()
    example: dict[str, str] = {}
    for r in responses:
        name = misconception_name(r.misconception)
        if name:
            counts[name] += 1
            example.setdefault(name, r.feedback)
    return [NamedSlip(n, c, example[n]) for n, c in sorted(counts.items(), key=lambda i: -i[1])]


def skill_changes(events: Sequence[tuple[str, float, float]]) -> list[SkillChange]:
    """(skill, p_before, p_after) in the order applied -> each skill's first estimate
    and its last, with how many answers moved it; most moved first."""
    first: dict[str, float] = {}
    last: dict[str, float] = {}
    n: Counter[str] = Counter()
    for skill, before, after in events:
        first.setdefault(skill, before)
        last[skill] = after
        n[skill] += 1
    changes = [SkillChange(s, first[s], last[s], n[s]) for s in first]
    return sorted(changes, key=lambda c: (-abs(c.after - c.before), c.skill))


def next_step(lessons: Sequence[selectors.LessonMastery], current: str | None) -> NextStep | None:
    """This lesson again while one of its skills is unmastered; else the unmastered
    lesson of the course whose weakest practised skill is lowest; else the first
    lesson not started, in course order. None: everything is mastered."""
    this = next((m for m in lessons if m.lesson == current), None)
    if this is not None and not this.summary.complete:
        return NextStep(this, this.summary.weakest, weakest_estimate(this), True)
    open_ = [m for m in lessons if not m.summary.complete]
    # Practised by skill evidence, from this lesson or another sharing its skills: the
    # weakest measured skill is what to work on, wherever it was measured.
    started = [(weakest_estimate(m), i, m) for i, m in enumerate(open_)]
    started = [(p, i, m) for p, i, m in started if p is not None]
    if started:
        p, _, m = min(started)
        return NextStep(m, m.summary.weakest, p, False)
    if open_:
        m = open_[0]
        return NextStep(m, m.summary.weakest, weakest_estimate(m), False)
    return None


def _outcomes(attempt: Attempt, own: bool, now) -> tuple[list[QuestionOutcome], list[Response]]:
    questions = list(attempt.questions.filter(active=True).order_by("order", "variant_number"))
    responses = list(attempt.responses.order_by("created_at", "id"))
    reveals = list(Reveal.objects.filter(question__attempt=attempt))
    rules = Rules.of(attempt.quiz)
    over = attempt_over(attempt=attempt, now=now)
    grades = not own or grades_visible(attempt=attempt, now=now)
    tries = tries_by_part(responses)
    revealed: dict[int, set[str]] = {}
    for r in reveals:
        revealed.setdefault(r.question_id, set()).add(r.part)
    outcomes = []
    for q in questions:
        names = [p["name"] for p in q.answers]
        its = {n: tries.get((q.pk, n), []) for n in names}
        policy = question_policy(
            parts=q.answers,
            tries=its,
            revealed=revealed.get(q.pk, ()),
            rules=rules,
            over=over,
            grades=grades,
            learner=own,
            hints=q.hints,
            drill=is_drill(q.template_slug),
        )
        slips: tuple[str, ...] = ()
        if policy.show_score:
            told = (misconception_name(r.misconception) for n in names for r in its[n])
            slips = tuple(dict.fromkeys(s for s in told if s))
        # A drill is right on what its learner chose (fault, location, remedy); time and
        # safety are findings read from the steps, shown in its own block.
        chosen = [n for n in names if n in CHOSEN] if is_drill(q.template_slug) else names
        verdict = outcome_verdict(chosen, its, revealed.get(q.pk, set()), policy)
        outcomes.append(QuestionOutcome(q, template_title(q.template_slug), verdict, slips))
    # What question_policy decides per part, for the whole attempt: grades show with
    # immediate feedback, once released, or to a reader who is not the learner.
    graded = not rules.deferred or grades or not own
    return outcomes, [r for r in responses if r.valid] if graded else []


def practice_page(*, user, attempt: Attempt) -> PracticePage:
    """An adaptive practice attempt from attempt_get_for_user. Reads do not grow with
    its questions or answers, nor with the course's lessons: questions, answers and
    reveals once; once the session is over its mastery events, the course's lessons
    and the learner's skills once each."""
    now = timezone.now()
    own = attempt.learner_id == user.pk
    outcomes, responses = _outcomes(attempt, own, now)
    lesson = None
    if attempt.quiz.practice_lesson_id:
        lesson = (
            Lesson.objects.select_related("module__course")
            .filter(pk=attempt.quiz.practice_lesson_id)
            .first()
        )
    finished = not attempt.is_open
    changes: list[SkillChange] = []
    step = None
    course_done = False
    if finished:
        events = MasteryEvent.objects.filter(response__attempt=attempt).order_by("created_at", "id")
        changes = skill_changes(list(events.values_list("skill", "p_before", "p_after")))
        if lesson is not None:
            course = curricula_selectors.course_get(slug=lesson.module.course.slug)
            lessons = [les for m in course.modules.all() for les in m.lessons.all()]
            rows = selectors.skill_rows_for_user(user=attempt.learner)
            answered = selectors.answers_by_template(learner_ids=[attempt.learner_id])
            masteries = selectors.lesson_masteries(
                lessons=lessons, rows=rows, answered=answered.get(attempt.learner_id, {})
            )
            step = next_step(masteries, lesson.slug)
            course_done = step is None and bool(masteries)
    return PracticePage(
        attempt=attempt,
        own=own,
        lesson=lesson,
        length=attempt.practice_length,
        outcomes=outcomes,
        finished=finished,
        rules=rules_note(attempt.quiz),
        slips=named_slips(responses) if finished else [],
        changes=changes,
        next=step,
        course_done=course_done,
    )
