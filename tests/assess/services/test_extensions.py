"""extension_grant and extension_revoke: extra time, a later close for one learner, and
"after the quiz closes" waiting for the latest close of anyone."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from api_common.service_errors import Conflict, NotPermitted
from assess.models import Attempt, Extension, Quiz
from assess.policy import grades_visible
from assess.selectors import quiz_list_for_user
from assess.services.attempts import attempt_finish, attempt_start
from assess.services.extensions import extension_grant, extension_revoke
from assess.services.mastery import mastery_release_due
from assess.services.responses import response_submit
from tests.assess.helpers import correct_text
from tests.factories import CourseFactory, CourseRoleFactory, EnrolmentFactory, QuizFactory

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


@pytest.fixture
def enrolled(course, learner, other_learner):
    for user in (learner, other_learner):
        EnrolmentFactory(user=user, course=course)


def exam(course, **kw) -> Quiz:
    kw.setdefault("time_limit", timedelta(minutes=30))
    return QuizFactory(mode=Quiz.Mode.EXAM, course=course, slots=[["gb-gib"]], **kw)


def answer_first(attempt, now=None):
    question = attempt.questions.get()
    part = question.answers[0]
    return response_submit(
        attempt=attempt,
        question=question,
        part=part["name"],
        text=correct_text(part),
        idempotency_key=f"{attempt.pk}-{part['name']}",
        now=now,
    )


# ------------------------------------------------------------------------ extra time


def test_extra_time_lengthens_a_new_attempt(instructor, learner, other_learner, course, enrolled):
    quiz = exam(course)
    extension_grant(user=instructor, quiz=quiz, learner=learner, extra_time=timedelta(minutes=15))
    mine, _ = attempt_start(quiz=quiz, learner=learner)
    theirs, _ = attempt_start(quiz=quiz, learner=other_learner)
    assert mine.deadline - mine.started_at == timedelta(minutes=45)
    assert theirs.deadline - theirs.started_at == timedelta(minutes=30)


def test_extra_time_lengthens_an_open_attempt_at_once(instructor, learner, course, enrolled):
    quiz = exam(course)
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    extension_grant(user=instructor, quiz=quiz, learner=learner, extra_time=timedelta(minutes=20))
    attempt.refresh_from_db()
    assert attempt.deadline - attempt.started_at == timedelta(minutes=50)
    # Answers are taken in the extra time.
    late = attempt.started_at + timedelta(minutes=40)
    assert not answer_first(attempt, now=late).replayed


def test_extra_time_never_passes_the_close(instructor, learner, course, enrolled):
    closes = timezone.now() + timedelta(minutes=40)
    quiz = exam(course, closes_at=closes)
    extension_grant(user=instructor, quiz=quiz, learner=learner, extra_time=timedelta(hours=2))
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    assert attempt.deadline == closes


def test_revoking_ends_an_overrunning_attempt_now_not_in_the_past(
    instructor, learner, course, enrolled
):
    quiz = exam(course)
    start = timezone.now() - timedelta(minutes=40)
    extension_grant(user=instructor, quiz=quiz, learner=learner, extra_time=timedelta(minutes=30))
    attempt, _ = attempt_start(quiz=quiz, learner=learner, now=start)
    assert attempt.deadline == start + timedelta(minutes=60)
    now = timezone.now()
    assert extension_revoke(user=instructor, quiz=quiz, learner=learner, now=now)
    attempt.refresh_from_db()
    assert attempt.deadline == now  # the quiz alone would have ended it 10 minutes ago
    assert not Extension.objects.exists()
    assert not extension_revoke(user=instructor, quiz=quiz, learner=learner)


def test_revoking_restores_the_time_limit_of_an_attempt_in_time(
    instructor, learner, course, enrolled
):
    quiz = exam(course)
    extension_grant(user=instructor, quiz=quiz, learner=learner, extra_time=timedelta(minutes=30))
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    extension_revoke(user=instructor, quiz=quiz, learner=learner)
    attempt.refresh_from_db()
    assert attempt.deadline - attempt.started_at == timedelta(minutes=30)


def test_an_attempt_already_past_its_deadline_is_not_reopened(
    instructor, learner, course, enrolled
):
    quiz = exam(course)
    attempt, _ = attempt_start(quiz=quiz, learner=learner, now=timezone.now() - HOUR)
    before = attempt.deadline
    extension_grant(user=instructor, quiz=quiz, learner=learner, extra_time=timedelta(hours=2))
    attempt.refresh_from_db()
    assert attempt.deadline == before


# -------------------------------------------------------------------------- the close


def test_a_later_close_lets_that_learner_start_and_answer_after_the_close(
    instructor, learner, other_learner, course, enrolled
):
    now = timezone.now()
    quiz = exam(course, time_limit=None, closes_at=now + HOUR)
    extension_grant(user=instructor, quiz=quiz, learner=learner, closes_at=now + 3 * HOUR)
    after_close = now + 2 * HOUR
    attempt, created = attempt_start(quiz=quiz, learner=learner, now=after_close)
    assert created and attempt.deadline == now + 3 * HOUR
    assert not answer_first(attempt, now=after_close + timedelta(minutes=1)).replayed
    with pytest.raises(Conflict, match="closed"):
        attempt_start(quiz=quiz, learner=other_learner, now=after_close)
    # The learner's quiz list keeps the quiz while their close lasts; not the others'.
    assert quiz in quiz_list_for_user(user=learner, now=after_close)
    assert quiz not in quiz_list_for_user(user=other_learner, now=after_close)


def test_a_later_close_moves_an_open_attempt_bounded_by_the_close(
    instructor, learner, course, enrolled
):
    now = timezone.now()
    quiz = exam(course, time_limit=None, closes_at=now + HOUR)
    attempt, _ = attempt_start(quiz=quiz, learner=learner, now=now)
    assert attempt.deadline == now + HOUR
    extension_grant(user=instructor, quiz=quiz, learner=learner, closes_at=now + 2 * HOUR)
    attempt.refresh_from_db()
    assert attempt.deadline == now + 2 * HOUR


def test_after_close_feedback_waits_for_the_latest_extended_close(
    instructor, learner, other_learner, course, enrolled
):
    """Nobody's grades show, and mastery_release_due applies nothing, until the quiz
    has closed for everyone: the extended learner's close included."""
    now = timezone.now()
    quiz = exam(course, time_limit=None, closes_at=now + HOUR, feedback=Quiz.Feedback.AFTER_CLOSE)
    extension_grant(user=instructor, quiz=quiz, learner=learner, closes_at=now + 3 * HOUR)
    attempts = []
    for user in (other_learner, learner):
        attempt, _ = attempt_start(quiz=quiz, learner=user, now=now)
        answer_first(attempt, now=now)
        attempts.append(attempt_finish(attempt=attempt, now=now + timedelta(minutes=5)))

    quiz.refresh_from_db()
    assert quiz.extended_until == now + 3 * HOUR
    between = now + 2 * HOUR  # the quiz's own close has passed, the extension's not
    for attempt in Attempt.objects.select_related("quiz"):
        assert not grades_visible(attempt=attempt, now=between)
    assert mastery_release_due(now=between) == 0
    assert not Attempt.objects.filter(mastery_applied_at__isnull=False).exists()

    after = now + 3 * HOUR
    for attempt in Attempt.objects.select_related("quiz"):
        assert grades_visible(attempt=attempt, now=after)
    assert mastery_release_due(now=after) == 2
    assert not Attempt.objects.filter(mastery_applied_at__isnull=True).exists()


def test_revoking_the_latest_close_brings_the_release_back(instructor, learner, course, enrolled):
    now = timezone.now()
    quiz = exam(course, closes_at=now + HOUR, feedback=Quiz.Feedback.AFTER_CLOSE)
    extension_grant(user=instructor, quiz=quiz, learner=learner, closes_at=now + 5 * HOUR)
    assert quiz.closed_for_all_at == now + 5 * HOUR
    extension_revoke(user=instructor, quiz=quiz, learner=learner)
    quiz.refresh_from_db()
    assert quiz.extended_until is None and quiz.closed_for_all_at == now + HOUR


def test_the_latest_of_several_extensions_counts(
    instructor, learner, other_learner, course, enrolled
):
    now = timezone.now()
    quiz = exam(course, closes_at=now + HOUR, feedback=Quiz.Feedback.AFTER_CLOSE)
    extension_grant(user=instructor, quiz=quiz, learner=learner, closes_at=now + 4 * HOUR)
    extension_grant(user=instructor, quiz=quiz, learner=other_learner, closes_at=now + 2 * HOUR)
    quiz.refresh_from_db()
    assert quiz.closed_for_all_at == now + 4 * HOUR
    # Upsert: the learner's extension is replaced, and the latest close with it.
    extension_grant(user=instructor, quiz=quiz, learner=learner, extra_time=timedelta(minutes=5))
    quiz.refresh_from_db()
    assert quiz.closed_for_all_at == now + 2 * HOUR
    assert Extension.objects.filter(quiz=quiz).count() == 2


# ----------------------------------------------------------------- who, and what input


def test_only_the_quizs_instructors_and_staff_grant(
    instructor, staff, learner, other_learner, course, enrolled
):
    quiz = exam(course)
    stranger = CourseRoleFactory(course=CourseFactory()).user
    for user in (learner, stranger):
        with pytest.raises(NotPermitted):
            extension_grant(user=user, quiz=quiz, learner=learner, extra_time=HOUR)
        with pytest.raises(NotPermitted):
            extension_revoke(user=user, quiz=quiz, learner=learner)
    assert not Extension.objects.exists()
    got = extension_grant(user=staff, quiz=quiz, learner=other_learner, extra_time=HOUR)
    assert got.granted_by == staff


def fields_of(err: pytest.ExceptionInfo) -> set[str]:
    return set(err.value.message_dict)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({}, "extra_time"),
        ({"extra_time": timedelta(minutes=-5)}, "extra_time"),
        ({"extra_time": timedelta(0)}, "extra_time"),
        ({"extra_time": timedelta(days=8)}, "extra_time"),
        ({"closes_at": "quiz"}, "closes_at"),  # the quiz's own close: not later
        ({"closes_at": "past"}, "closes_at"),
    ],
)
def test_bad_input_names_its_field(instructor, learner, course, enrolled, kwargs, field):
    now = timezone.now()
    quiz = exam(course, opens_at=now - 3 * HOUR, closes_at=now - HOUR)
    if kwargs.get("closes_at") == "quiz":
        kwargs = {"closes_at": quiz.closes_at}
    elif kwargs.get("closes_at") == "past":
        kwargs = {"closes_at": now - timedelta(minutes=1)}  # after the close, but gone
    with pytest.raises(ValidationError) as err:
        extension_grant(user=instructor, quiz=quiz, learner=learner, **kwargs)
    assert fields_of(err) == {field}
    assert not Extension.objects.exists()


def test_extensions_need_what_they_extend(instructor, learner, course, enrolled):
    quiz = QuizFactory(mode=Quiz.Mode.EXAM, course=course)  # no time limit, never closes
    with pytest.raises(ValidationError) as err:
        extension_grant(
            user=instructor,
            quiz=quiz,
            learner=learner,
            extra_time=HOUR,
            closes_at=timezone.now() + HOUR,
        )
    assert fields_of(err) == {"extra_time", "closes_at"}


def test_the_learner_must_be_enrolled(instructor, course):
    quiz = exam(course)
    outsider = CourseRoleFactory(course=CourseFactory()).user
    with pytest.raises(ValidationError) as err:
        extension_grant(user=instructor, quiz=quiz, learner=outsider, extra_time=HOUR)
    assert fields_of(err) == {"learner"}


def test_the_database_refuses_an_empty_or_negative_extension(learner):
    quiz = QuizFactory()
    for bad in ({}, {"extra_time": timedelta(minutes=-1)}):
        with pytest.raises(IntegrityError), transaction.atomic():
            Extension.objects.create(quiz=quiz, learner=learner, **bad)


def test_no_one_grants_or_revokes_their_own_extension(instructor, staff, learner, course):
    """Separation of duties: an instructor enrolled in their own course, or staff,
    cannot give themselves (or take back) extra time; a colleague can."""
    quiz = exam(course, closes_at=timezone.now() + HOUR)
    for user in (instructor, staff):
        EnrolmentFactory(user=user, course=course)
        with pytest.raises(NotPermitted, match="for yourself"):
            extension_grant(user=user, quiz=quiz, learner=user, extra_time=HOUR)
        assert not Extension.objects.filter(learner=user).exists()
    colleague = CourseRoleFactory(course=course).user
    extension_grant(user=colleague, quiz=quiz, learner=instructor, extra_time=HOUR)
    with pytest.raises(NotPermitted, match="for yourself"):
        extension_revoke(user=instructor, quiz=quiz, learner=instructor)
    assert Extension.objects.filter(learner=instructor).exists()
    assert extension_revoke(user=colleague, quiz=quiz, learner=instructor)
