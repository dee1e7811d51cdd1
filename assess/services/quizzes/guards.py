"""Who may write a quiz, which quizzes are managed elsewhere, and the lock every change
takes before it counts attempts.

A quiz belongs to its whole Burn-in course: creating, editing, duplicating, publishing
and closing it change what every learner of the course sees. So they take staff or a
course-wide instructor; an instructor scoped to an LMS course (assess.selectors.access)
may read the quiz but not change it (NotPermitted, the API's 403).
"""

from __future__ import annotations

from api_common.service_errors import Conflict, NotPermitted
from assess.models import Attempt, Quiz
from assess.selectors import (
    SCOPED_WRITE_REFUSED,
    quiz_author_roles,
    user_is_course_instructor,
    user_is_instructor,
)

SCOPED_CHANGE_REFUSED = (
    "Instructors from an LMS course see and manage only that LMS course's learners; "
    "editing, publishing, unpublishing, closing or copying a quiz changes it for the "
    "whole Burn-in course: ask a Burn-in administrator or a course-wide instructor."
)


def check_quiz_author(user) -> None:
    """NotPermitted unless the user may create a quiz in some course: staff, or a
    course-wide instructor of one (an instructor scoped to an LMS course is told why).
    Asked before a new quiz's body is read, so a learner is refused for who they are,
    never told what is wrong with the quiz they may not make."""
    if user.is_staff:
        return
    roles = quiz_author_roles(user=user)
    if not any(roles):
        raise NotPermitted(
            SCOPED_WRITE_REFUSED if roles else "Only a course's instructors create its quizzes."
        )


def check_course_write(user, *, course_id: int | None, creating: bool = False) -> None:
    """NotPermitted unless the user is staff or a course-wide instructor of the course
    (a quiz with no course: staff only)."""
    if user.is_staff:
        return
    verb = "create" if creating else "change"
    if course_id is None:
        raise NotPermitted(f"Only staff may {verb} a quiz outside a course.")
    if not user_is_course_instructor(user=user, course_id=course_id):
        if user_is_instructor(user=user, course_id=course_id):  # scoped to an LMS course
            raise NotPermitted(SCOPED_WRITE_REFUSED if creating else SCOPED_CHANGE_REFUSED)
        raise NotPermitted(f"Only instructors of this course may {verb} its quizzes.")


def check_managed_here(quiz: Quiz) -> None:
    """Conflict for a quiz whose settings come from elsewhere: lesson practice (made and
    kept by its lesson) and a certification track's exam (its data file, which
    load_tracks would write back over any change made here)."""
    if quiz.adaptive:
        raise Conflict(
            "Lesson practice follows its lesson: it has no draft, dates or settings of its own."
        )
    if quiz.mode == Quiz.Mode.CERTIFICATION and hasattr(quiz, "certification_track"):
        track = quiz.certification_track
        raise Conflict(
            f"This exam belongs to the certification track “{track.title}”: change "
            f"certify/data/{track.slug}.yaml and run load_tracks."
        )


def lock_counting_attempts(quiz: Quiz) -> tuple[Quiz, int]:
    """(the quiz row locked FOR UPDATE, its number of attempts): call inside
    transaction.atomic. Starting an attempt inserts its row and takes a key-share lock
    on the quiz (selectors.locked.attempt_insert_sharing_quiz) that FOR UPDATE waits
    for, so the count includes every start that holds the lock and no start commits
    until the change does (the start then re-reads the quiz:
    services.attempts._slots_after_insert)."""
    locked = Quiz.objects.select_for_update().get(pk=quiz.pk)
    return locked, Attempt.objects.filter(quiz_id=quiz.pk).count()


def attempts_phrase(n: int) -> str:
    return f"{n} attempt{'s have' if n != 1 else ' has'} been started"
