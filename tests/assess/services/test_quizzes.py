"""quiz_create: who may, and what it refuses."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from api_common.service_errors import NotPermitted
from assess.models import Quiz
from assess.services.quizzes import QuizSpec, SlotSpec, quiz_create
from assess.services.quizzes.spec import MAX_POOL_ENTRIES
from problems.engine import registry
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db


def spec(**kw) -> QuizSpec:
    base = {"title": "Q", "mode": "homework", "slots": [SlotSpec(["gb-gib"], 2)]}
    return QuizSpec(**{**base, **kw})


def test_instructor_creates_with_lessons(instructor, course):
    lesson = LessonFactory(slug="memory-math")
    quiz = quiz_create(
        user=instructor,
        spec=spec(course_slug=course.slug, lesson_slugs=["memory-math"], attempts_allowed=3),
    )
    assert quiz.course == course and list(quiz.lessons.all()) == [lesson]
    assert quiz.feedback == Quiz.Feedback.IMMEDIATELY
    assert [(s.order, s.points, s.templates) for s in quiz.slots.all()] == [(1, 2, ["gb-gib"])]
    assert quiz.created_by == instructor
    assert quiz.counting_attempt == Quiz.Counting.BEST


def test_last_attempt_counting_is_kept(staff):
    quiz = quiz_create(user=staff, spec=spec(counting_attempt="last"))
    assert quiz.counting_attempt == Quiz.Counting.LAST


def test_learner_may_not(learner, course):
    with pytest.raises(NotPermitted):
        quiz_create(user=learner, spec=spec(course_slug=course.slug))


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        ({"slots": []}, "slots"),
        ({"slots": [SlotSpec(["nope"])]}, "slots"),
        ({"slots": [SlotSpec(["gb-gib", "gb-gib"])]}, "slots"),
        ({"mode": "exam", "feedback": "immediately"}, "feedback"),
        ({"feedback": "after_close"}, "feedback"),
        ({"pass_mark": 1.5}, "pass_mark"),
        ({"lesson_slugs": ["missing"]}, "lessons"),
        ({"time_limit": timedelta(0)}, "time_limit"),
        ({"time_limit": timedelta(days=7, seconds=1)}, "time_limit"),
        ({"attempts_allowed": 101}, "attempts_allowed"),
        ({"tries_per_part": 101}, "tries_per_part"),
        ({"tries_per_part": 0}, "tries_per_part"),
        ({"penalty_per_try": 1.5}, "penalty_per_try"),
        ({"mode": "exam", "tries_per_part": 3}, "tries_per_part"),
        ({"mode": "exam", "penalty_per_try": 0.5}, "penalty_per_try"),
        ({"feedback": "after_attempt", "tries_per_part": 2}, "tries_per_part"),
        ({"slots": [SlotSpec(["gb-gib"], 1001)]}, "slots"),
        ({"slots": [SlotSpec(["gb-gib"])] * 101}, "slots"),
        ({"counting_attempt": "first"}, "counting_attempt"),
    ],
)
def test_refuses(staff, kw, field):
    with pytest.raises(ValidationError) as err:
        quiz_create(user=staff, spec=spec(**kw))
    assert field in err.value.message_dict


def test_window_order(staff):
    now = timezone.now()
    with pytest.raises(ValidationError):
        quiz_create(user=staff, spec=spec(opens_at=now, closes_at=now - timedelta(hours=1)))


@pytest.mark.parametrize(
    ("mode", "feedback", "tries"),
    [("homework", None, 3), ("practice", None, None), ("exam", None, None)],
)
def test_mode_defaults_for_tries(staff, mode, feedback, tries):
    quiz = quiz_create(user=staff, spec=spec(mode=mode, feedback=feedback))
    assert quiz.tries_per_part == tries and quiz.penalty_per_try == 0.0


def test_templates_across_slots_are_bounded_and_refused_before_any_is_looked_up(
    staff, django_assert_max_num_queries
):
    """Each listed template is looked up when a quiz is saved and when an attempt starts
    (an authored one in the database): 100 slots of 100 made 20,000 queries a start."""
    slugs = registry.slugs()[:100]
    slots = [SlotSpec(slugs)] * (MAX_POOL_ENTRIES // len(slugs) + 1)
    with django_assert_max_num_queries(5), pytest.raises(ValidationError) as err:
        quiz_create(user=staff, spec=spec(slots=slots))
    assert f"at most {MAX_POOL_ENTRIES} templates across its slots" in str(err.value)
    assert quiz_create(user=staff, spec=spec(slots=[SlotSpec(slugs)] * 5)).pk
