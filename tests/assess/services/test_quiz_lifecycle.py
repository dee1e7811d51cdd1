"""A quiz's life: drafts no learner can see or start, edits until the first attempt,
copies, publish, unpublish until the first attempt, and closing now."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from api_common.service_errors import Conflict, NotPermitted
from assess import selectors
from assess.models import Attempt, Extension, Quiz
from assess.services.attempts import attempt_start
from assess.services.quizzes import (
    QuizSpec,
    SlotSpec,
    quiz_close,
    quiz_create,
    quiz_duplicate,
    quiz_publish,
    quiz_unpublish,
    quiz_update,
)
from tests.factories import CourseRoleFactory, EnrolmentFactory, LessonFactory, QuizFactory

pytestmark = pytest.mark.django_db


def spec(course, **kw) -> QuizSpec:
    base = {
        "title": "Week 1",
        "mode": "homework",
        "course_slug": course.slug,
        "slots": [SlotSpec(["gb-gib"], 2), SlotSpec(["weights-memory", "kv-cache-total"])],
    }
    return QuizSpec(**{**base, **kw})


@pytest.fixture
def enrolled(learner, course):
    EnrolmentFactory(user=learner, course=course)
    return learner


@pytest.fixture
def draft(instructor, course):
    return quiz_create(user=instructor, spec=spec(course), status=Quiz.Status.DRAFT)


@pytest.fixture
def scoped_instructor(course, lms_context):
    """An instructor made by an LTI launch: scoped to one LMS course's learners."""
    return CourseRoleFactory(course=course, lti_context=lms_context).user


# ------------------------------------------------------------------------------ drafts


def test_a_quiz_is_published_unless_made_a_draft(instructor, course):
    assert quiz_create(user=instructor, spec=spec(course)).status == "published"
    with pytest.raises(ValidationError) as err:
        quiz_create(user=instructor, spec=spec(course), status="closed")
    assert "status" in err.value.message_dict


def test_a_learner_neither_sees_nor_starts_a_draft(draft, enrolled):
    assert draft not in selectors.quiz_list_for_user(user=enrolled)
    with pytest.raises(Quiz.DoesNotExist):
        selectors.quiz_get_for_user(user=enrolled, pk=draft.pk)
    # The start service refuses it too, whoever calls it (an LMS launch does directly).
    with pytest.raises(Conflict, match="draft"):
        attempt_start(quiz=draft, learner=enrolled)
    assert not Attempt.objects.exists()


def test_its_instructors_see_a_draft_but_cannot_start_it(draft, instructor, staff):
    assert draft in selectors.quiz_list_for_user(user=instructor)
    assert selectors.quiz_get_for_user(user=instructor, pk=draft.pk) == draft
    assert selectors.quiz_get_for_user(user=staff, pk=draft.pk) == draft
    with pytest.raises(Conflict):
        attempt_start(quiz=draft, learner=instructor)


def test_a_start_rereads_the_quiz_once_its_attempt_is_in(draft, enrolled, instructor):
    """A start that read the quiz while published, racing an unpublish that committed
    before its insert, is refused on the row it re-reads, and stores nothing."""
    quiz_publish(user=instructor, quiz=draft)
    stale = Quiz.objects.get(pk=draft.pk)
    quiz_unpublish(user=instructor, quiz=draft)
    with pytest.raises(Conflict, match="draft"):
        attempt_start(quiz=stale, learner=enrolled)
    assert not Attempt.objects.exists()


def test_a_start_takes_the_deadline_of_the_quiz_it_rereads(draft, enrolled, instructor):
    quiz_publish(user=instructor, quiz=draft)
    stale = Quiz.objects.get(pk=draft.pk)
    closes = timezone.now() + timedelta(hours=2)
    Quiz.objects.filter(pk=draft.pk).update(closes_at=closes)
    attempt, _ = attempt_start(quiz=stale, learner=enrolled)
    assert Attempt.objects.get(pk=attempt.pk).deadline == closes


# ----------------------------------------------------------------------------- editing


def test_a_draft_is_edited_in_full(draft, instructor, course):
    lesson = LessonFactory(slug="kv")
    opens = timezone.now() + timedelta(days=1)
    edited = quiz_update(
        user=instructor,
        quiz=draft,
        spec=spec(
            course,
            title="Week 1, revised",
            mode="exam",
            slots=[SlotSpec(["kv-cache-total"], 5)],
            lesson_slugs=["kv"],
            opens_at=opens,
            closes_at=opens + timedelta(hours=1),
            time_limit=timedelta(minutes=20),
        ),
    )
    quiz = Quiz.objects.get(pk=draft.pk)
    assert edited.pk == quiz.pk and quiz.status == "draft"
    assert (quiz.title, quiz.mode, quiz.feedback) == ("Week 1, revised", "exam", "after_attempt")
    assert (quiz.opens_at, quiz.time_limit) == (opens, timedelta(minutes=20))
    assert [(s.order, s.points, s.templates) for s in quiz.slots.all()] == [
        (1, 5, ["kv-cache-total"])
    ]
    assert list(quiz.lessons.all()) == [lesson]


def test_an_edit_is_checked_as_a_creation_is(draft, instructor, course):
    with pytest.raises(ValidationError) as err:
        quiz_update(
            user=instructor, quiz=draft, spec=spec(course, mode="exam", feedback="immediately")
        )
    assert "feedback" in err.value.message_dict
    assert Quiz.objects.get(pk=draft.pk).mode == "homework"


def test_a_published_quiz_is_edited_until_its_first_attempt(draft, instructor, enrolled, course):
    quiz_publish(user=instructor, quiz=draft)
    quiz_update(user=instructor, quiz=draft, spec=spec(course, title="Still editable"))
    attempt_start(quiz=Quiz.objects.get(pk=draft.pk), learner=enrolled)
    with pytest.raises(Conflict) as err:
        quiz_update(user=instructor, quiz=draft, spec=spec(course, title="Too late"))
    assert "1 attempt has been started" in str(err.value) and "Duplicate" in str(err.value)
    quiz = Quiz.objects.get(pk=draft.pk)
    assert quiz.title == "Still editable" and quiz.slots.count() == 2


def test_who_may_edit(draft, learner, scoped_instructor, course, staff):
    with pytest.raises(NotPermitted):
        quiz_update(user=learner, quiz=draft, spec=spec(course))
    with pytest.raises(NotPermitted, match="LMS course"):
        quiz_update(user=scoped_instructor, quiz=draft, spec=spec(course))
    quiz_update(user=staff, quiz=draft, spec=spec(course, title="By staff"))


def test_lesson_practice_and_track_exams_are_managed_elsewhere(instructor, course):
    practice = QuizFactory(course=course, adaptive=True)
    with pytest.raises(Conflict, match="Lesson practice"):
        quiz_update(user=instructor, quiz=practice, spec=spec(course))
    with pytest.raises(Conflict):
        quiz_unpublish(user=instructor, quiz=practice)
    with pytest.raises(Conflict):
        quiz_duplicate(user=instructor, quiz=practice)


# ---------------------------------------------------------------------------- copying


def test_a_copy_is_a_new_draft_with_the_same_slots(draft, instructor, enrolled, course, staff):
    quiz_publish(user=instructor, quiz=draft)
    attempt_start(quiz=Quiz.objects.get(pk=draft.pk), learner=enrolled)
    Extension.objects.create(quiz=draft, learner=enrolled, extra_time=timedelta(minutes=5))
    copy = quiz_duplicate(user=staff, quiz=draft)
    assert copy.pk != draft.pk and copy.status == "draft" and copy.created_by == staff
    assert copy.title == "Week 1 (copy)" and copy.course == course
    assert (copy.mode, copy.feedback, copy.tries_per_part) == ("homework", "immediately", 3)
    assert [(s.order, s.points, s.templates) for s in copy.slots.all()] == [
        (s.order, s.points, s.templates) for s in draft.slots.all()
    ]
    assert not copy.attempts.exists() and not Extension.objects.filter(quiz=copy).exists()
    # The copy has no attempt, so it is editable where the original is not.
    quiz_update(user=instructor, quiz=copy, spec=spec(course, title="Week 1, v2"))


def test_a_long_title_stays_within_bounds_when_copied(instructor, course):
    quiz = quiz_create(user=instructor, spec=spec(course, title="x" * 200))
    assert len(quiz_duplicate(user=instructor, quiz=quiz).title) == 200


def test_a_scoped_instructor_may_not_copy(draft, scoped_instructor):
    with pytest.raises(NotPermitted):
        quiz_duplicate(user=scoped_instructor, quiz=draft)


# ---------------------------------------------------------------- publish, unpublish


def test_publish_then_unpublish_while_no_one_started(draft, instructor, enrolled):
    assert quiz_publish(user=instructor, quiz=draft).status == "published"
    assert draft in selectors.quiz_list_for_user(user=enrolled)
    assert quiz_publish(user=instructor, quiz=draft).status == "published"  # no change
    assert quiz_unpublish(user=instructor, quiz=draft).status == "draft"
    assert draft not in selectors.quiz_list_for_user(user=enrolled)
    assert quiz_unpublish(user=instructor, quiz=draft).status == "draft"  # no change


def test_unpublish_is_refused_once_an_attempt_exists(draft, instructor, enrolled):
    quiz_publish(user=instructor, quiz=draft)
    attempt_start(quiz=Quiz.objects.get(pk=draft.pk), learner=enrolled)
    with pytest.raises(Conflict) as err:
        quiz_unpublish(user=instructor, quiz=draft)
    assert "hide the quiz" in str(err.value) and "Close it instead" in str(err.value)
    assert Quiz.objects.get(pk=draft.pk).status == "published"
    assert selectors.quiz_get_for_user(user=enrolled, pk=draft.pk)  # still theirs to read


def test_a_quiz_past_its_close_is_not_published(instructor, course):
    past = timezone.now() - timedelta(hours=1)
    quiz = quiz_create(
        user=instructor,
        spec=spec(course, opens_at=past - timedelta(hours=1), closes_at=past),
        status=Quiz.Status.DRAFT,
    )
    with pytest.raises(Conflict, match="later close"):
        quiz_publish(user=instructor, quiz=quiz)


def test_who_may_publish(draft, learner, scoped_instructor):
    for user in (learner, scoped_instructor):
        with pytest.raises(NotPermitted):
            quiz_publish(user=user, quiz=draft)
        with pytest.raises(NotPermitted):
            quiz_unpublish(user=user, quiz=draft)
    assert Quiz.objects.get(pk=draft.pk).status == "draft"


# ------------------------------------------------------------------------------ closed


def test_status_reads_closed_once_the_close_has_passed_for_everyone(draft, instructor):
    now = timezone.now()
    assert draft.status_at(now) == "draft"
    quiz_publish(user=instructor, quiz=draft)
    quiz = Quiz.objects.get(pk=draft.pk)
    quiz.closes_at = now + timedelta(hours=1)
    assert quiz.status_at(now) == "published"
    assert quiz.status_at(now + timedelta(hours=1)) == "closed"
    quiz.extended_until = now + timedelta(hours=2)  # a learner's extension
    assert quiz.status_at(now + timedelta(hours=1)) == "published"


def test_closing_now_ends_open_attempts_but_not_an_extended_learner(
    instructor, course, enrolled, other_learner
):
    quiz = quiz_create(user=instructor, spec=spec(course, time_limit=timedelta(hours=1)))
    EnrolmentFactory(user=other_learner, course=course)
    mine, _ = attempt_start(quiz=quiz, learner=enrolled)
    later = timezone.now() + timedelta(days=1)
    quiz.closes_at = timezone.now() + timedelta(hours=3)
    quiz.save()
    Extension.objects.create(quiz=quiz, learner=other_learner, closes_at=later)
    theirs, _ = attempt_start(quiz=quiz, learner=other_learner)
    now = timezone.now()
    closed = quiz_close(user=instructor, quiz=quiz, now=now)
    assert closed.closes_at == now
    mine.refresh_from_db()
    theirs.refresh_from_db()
    assert (mine.status, mine.finished_at) == ("expired", now)
    assert theirs.status == "open" and theirs.deadline > now
    with pytest.raises(Conflict, match="closed"):
        attempt_start(quiz=Quiz.objects.get(pk=quiz.pk), learner=enrolled)
    assert quiz_close(user=instructor, quiz=quiz).closes_at == now  # closed already


def test_a_draft_or_a_quiz_not_yet_open_is_not_closed(draft, instructor, course):
    with pytest.raises(Conflict, match="draft"):
        quiz_close(user=instructor, quiz=draft)
    soon = timezone.now() + timedelta(hours=1)
    scheduled = quiz_create(user=instructor, spec=spec(course, opens_at=soon))
    with pytest.raises(Conflict, match="not opened"):
        quiz_close(user=instructor, quiz=scheduled)
