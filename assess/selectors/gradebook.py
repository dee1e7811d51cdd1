"""Gradebooks for instructors: per learner, each quiz's counted attempt, every attempt.

Instructors always see grades: like the item analysis, a gradebook reads every closed,
scored attempt, whether or not the feedback policy has released it to the learner yet
(an exam graded "after the quiz closes" still shows its scores here, marked as not yet
shown to the learner, as assess.policy.grades_visible says). The LMS passback
(selectors.grades.counted_attempt) waits for the release; this page does not, so the
rule of which attempt counts is written here once more, as a pure function over rows
already read.

Which learners: the course's enrolled learners the user may see
(access.learners_of_course: a course-wide instructor or staff see all, an instructor
scoped to an LMS context only its members). A quiz with no course (staff-made) lists
whoever attempted it. Every reader costs a fixed number of queries, however many
learners, quizzes or attempts there are.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from functools import cached_property

from django.contrib.auth import get_user_model
from django.core.paginator import Page, Paginator
from django.db.models import Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from assess.models import Attempt, Extension, Quiz
from assess.policy import grades_visible
from assess.selectors.access import (
    extensions_for_instructor,
    learners_of_course,
    quiz_get_for_instructor,
    user_is_instructor,
)
from curricula.models import Course

PAGE_SIZE = 50  # learners per page of the course gradebook
LISTED_ATTEMPTS = 5  # the latest attempts a quiz gradebook's row links (with the counted)


def counted_of(attempts: Iterable[Attempt], counting: str) -> Attempt | None:
    """The attempt that is the grade among the learner's attempts on one quiz: of the
    closed, scored ones, the best score (the earlier on a tie) or the last closed, per
    Quiz.counting_attempt. Released or not: instructors see grades at once."""
    closed = [a for a in attempts if a.status != Attempt.Status.OPEN and a.score is not None]
    if not closed:
        return None
    if counting == Quiz.Counting.LAST:
        return max(closed, key=lambda a: (a.finished_at or a.started_at, a.number))
    return min(closed, key=lambda a: (-a.score, a.finished_at or a.started_at, a.number))


@dataclass(frozen=True)
class Cell:
    """One learner on one quiz: all their attempts (by number) and the one that counts."""

    quiz: Quiz
    attempts: list[Attempt] = field(default_factory=list)

    @cached_property
    def counted(self) -> Attempt | None:
        """Chosen once: the percent, time taken, released note and CSV all read it."""
        return counted_of(self.attempts, self.quiz.counting_attempt)

    @property
    def in_progress(self) -> bool:
        return any(a.status == Attempt.Status.OPEN for a in self.attempts)

    @cached_property
    def listed(self) -> list[Attempt]:
        """The attempts the page links for review: the latest LISTED_ATTEMPTS and the one
        that counts, by number. A practice quiz with no limit gave one learner 150
        attempts, and a page of such learners 4,700 links (650 kB, half a second to
        render); the CSV and the learner's own pages keep every attempt."""
        shown = self.attempts[-LISTED_ATTEMPTS:]
        counted = self.counted
        if counted is not None and counted not in shown:
            shown = [counted, *shown]
        return shown

    @property
    def unlisted(self) -> int:
        return len(self.attempts) - len(self.listed)

    @property
    def max_points(self) -> float:
        return float(self.quiz.max_points or 0)

    @property
    def percent(self) -> float | None:
        counted = self.counted
        return None if counted is None else round(counted.score * 100, 1)

    @property
    def time_taken(self) -> timedelta | None:
        counted = self.counted
        return None if counted is None else time_taken(counted)

    @property
    def time_taken_text(self) -> str:
        """ "12:05" (minutes:seconds) or "1:02:05"; "" when there is no counted attempt."""
        taken = self.time_taken
        if taken is None:
            return ""
        minutes, seconds = divmod(int(taken.total_seconds()), 60)
        hours, minutes = divmod(minutes, 60)
        return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"

    @property
    def released(self) -> bool:
        """The learner may see this grade now (assess.policy decides); the pages add a
        note where they may not yet (an exam graded after the quiz closes)."""
        counted = self.counted
        return counted is not None and grades_visible(attempt=counted, now=timezone.now())


def time_taken(attempt: Attempt) -> timedelta | None:
    if attempt.finished_at is None:
        return None
    return attempt.finished_at - attempt.started_at


@dataclass(frozen=True)
class Row:
    learner: object  # a user
    cells: list[Cell]
    # A quiz's gradebook: the learner's extension on it (extra time, a later close).
    extension: Extension | None = None

    @property
    def limit_with_extension(self) -> timedelta | None:
        """The learner's own time limit on the (one) quiz: its limit plus their extra
        time; None when the quiz has no limit."""
        quiz = self.cells[0].quiz if self.cells else None
        if quiz is None or not quiz.time_limit:
            return None
        extra = self.extension.extra_time if self.extension else None
        return quiz.time_limit + (extra or timedelta(0))

    @property
    def name(self) -> str:
        return self.learner.get_full_name() or self.learner.username


@dataclass(frozen=True)
class QuizGradebook:
    quiz: Quiz
    rows: list[Row]  # one cell each
    page: Page | None = None  # the page of learners shown; None: every learner (the CSV)


@dataclass(frozen=True)
class CourseGradebook:
    course: Course
    quizzes: list[Quiz]
    rows: list[Row]  # one cell per quiz, in the order of `quizzes`
    page: Page | None = None  # the page of learners shown; None: every learner (the CSV)


def _with_max_points(quizzes):
    """Each quiz's points possible (the sum of its slots' points), in the same query."""
    return quizzes.annotate(max_points=Coalesce(Sum("slots__points"), 0))


def _rows(
    *, user, course_id: int | None, quizzes: list[Quiz], page: int | str | None = None
) -> tuple[list[Row], Page | None]:
    """Two queries: the learners, then all their attempts on the quizzes. With `page`
    (a number, or anything a pager link may carry), PAGE_SIZE learners by username and
    their attempts only, after a count: the same queries for a class of 5,000."""
    users = get_user_model().objects.order_by("username", "id")
    attempts = Attempt.objects.filter(quiz__in=quizzes).order_by("number")
    shown = None
    if course_id is None:  # a quiz with no course: staff only, whoever attempted it
        learners = list(users.filter(pk__in=attempts.values("learner_id")))
    else:
        # The scoped learners (a subquery of each query, not a query of its own).
        seen = learners_of_course(user=user, course_id=course_id)
        if page is None:
            learners = list(users.filter(pk__in=seen))
            attempts = attempts.filter(learner_id__in=seen)
        else:
            shown = Paginator(users.filter(pk__in=seen), PAGE_SIZE).get_page(page)
            learners = list(shown.object_list)
            attempts = attempts.filter(learner_id__in=[u.pk for u in learners])
    by_cell: dict[tuple[int, int], list[Attempt]] = defaultdict(list)
    quiz_by_id = {q.pk: q for q in quizzes}
    for attempt in attempts:
        attempt.quiz = quiz_by_id[attempt.quiz_id]  # no query per attempt
        by_cell[(attempt.learner_id, attempt.quiz_id)].append(attempt)
    rows = [
        Row(
            learner=u,
            cells=[Cell(quiz=q, attempts=by_cell.get((u.pk, q.pk), [])) for q in quizzes],
        )
        for u in learners
    ]
    return rows, shown


def quiz_gradebook(*, user, pk: int, page: int | str | None = None) -> QuizGradebook:
    """The quiz's gradebook for its instructors and staff; Quiz.DoesNotExist (404) for
    anyone else. Five queries: the gate, the points possible, learners, attempts, and
    the extensions of the learners the user may see (each on its learner's row), and with
    `page` one page of PAGE_SIZE learners after a count (as course_gradebook)."""
    quiz = quiz_get_for_instructor(user=user, pk=pk)
    quiz.max_points = (
        _with_max_points(Quiz.objects.filter(pk=quiz.pk)).values_list("max_points", flat=True)
    )[0]
    rows, shown = _rows(user=user, course_id=quiz.course_id, quizzes=[quiz], page=page)
    extensions = {e.learner_id: e for e in extensions_for_instructor(user=user, quiz=quiz)}
    rows = [
        Row(learner=r.learner, cells=r.cells, extension=extensions.get(r.learner.pk)) for r in rows
    ]
    return QuizGradebook(quiz=quiz, rows=rows, page=shown)


def course_gradebook(*, user, slug: str, page: int | str | None = None) -> CourseGradebook:
    """The course's gradebook (its learners × its quizzes, adaptive lesson practice
    and drafts left out) for its instructors and staff; Course.DoesNotExist (404) for anyone else.
    Five queries at most, however many learners and quizzes. With `page`, one page of
    PAGE_SIZE learners (the page: a course of 5,000 rendered whole took 20 s); without,
    every learner (the CSV)."""
    course = Course.objects.get(slug=slug)
    if not (user.is_staff or user_is_instructor(user=user, course_id=course.pk)):
        raise Course.DoesNotExist
    quizzes = list(
        # Drafts have no attempts (unpublishing is refused once one exists): no column.
        _with_max_points(
            Quiz.objects.filter(course=course, adaptive=False).exclude(status=Quiz.Status.DRAFT)
        )
        .select_related("course")
        .order_by("created_at", "id")
    )
    rows, shown = _rows(user=user, course_id=course.pk, quizzes=quizzes, page=page)
    return CourseGradebook(course=course, quizzes=quizzes, rows=rows, page=shown)


__all__ = [
    "Cell",
    "CourseGradebook",
    "QuizGradebook",
    "Row",
    "counted_of",
    "course_gradebook",
    "quiz_gradebook",
    "time_taken",
]
