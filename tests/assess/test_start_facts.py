"""The start's gate reads what attempt_start decides on about its learner in the gate's
own statement (selectors.quiz_get_for_start): it must say what the two reads it spares
say (accounts.selectors.email_confirmed, selectors.access.extension_of) for every
sign-up state, every extension and every kind of quiz, and gate as quiz_get_for_user
does."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import SignUp
from accounts.selectors import email_confirmed
from api_common.service_errors import NotPermitted
from assess.models import Extension, Quiz
from assess.selectors import extension_of, quiz_get_for_start, quiz_get_for_user
from assess.services.attempts import attempt_start
from tests.factories import CourseFactory, EnrolmentFactory, QuizFactory, UserFactory
from tests.sql_twins import assert_same

pytestmark = pytest.mark.django_db

SIGN_UPS = ["none", "unconfirmed", "confirmed"]
EXTENSIONS = ["none", "own", "another learner's"]
QUIZZES = {
    "untimed": {},
    "timed": {"time_limit": timedelta(minutes=45)},
    "closes": {"closes_at": timezone.now() + timedelta(days=2)},
}


@pytest.mark.parametrize(
    ("sign_up", "extension", "shape"), list(itertools.product(SIGN_UPS, EXTENSIONS, QUIZZES))
)
def test_the_facts_say_what_the_reads_they_spare_say(sign_up, extension, shape):
    course = CourseFactory()
    learner, other = UserFactory(), UserFactory()
    for user in (learner, other):
        EnrolmentFactory(user=user, course=course)
    SignUp.objects.create(user=other)  # another account's pending sign-up
    if sign_up != "none":
        confirmed_at = timezone.now() if sign_up == "confirmed" else None
        SignUp.objects.create(user=learner, confirmed_at=confirmed_at)
    quiz = QuizFactory(course=course, mode=Quiz.Mode.EXAM, **QUIZZES[shape])
    if extension != "none":
        holder = learner if extension == "own" else other
        Extension.objects.create(
            quiz=quiz,
            learner=holder,
            extra_time=timedelta(minutes=15),
            closes_at=timezone.now() + timedelta(days=3),
        )

    got, facts = quiz_get_for_start(user=learner, pk=quiz.pk)

    assert_same(got, quiz_get_for_user(user=learner, pk=quiz.pk))
    assert facts.learner_id == learner.pk
    assert facts.confirmed is email_confirmed(user=learner) is (sign_up != "unconfirmed")
    want = extension_of(quiz=quiz, learner=learner)
    if want is None:
        assert facts.extension is None
    else:
        assert_same(facts.extension, want)
    # An extension changes something on a timed quiz or one that closes, only the own.
    assert (want is not None) is (extension == "own" and shape != "untimed")


def test_the_facts_gate_as_the_quiz_gate_does():
    quiz = QuizFactory(course=CourseFactory(), mode=Quiz.Mode.EXAM)
    stranger = UserFactory()
    for read in (quiz_get_for_start, quiz_get_for_user):
        with pytest.raises(Quiz.DoesNotExist):
            read(user=stranger, pk=quiz.pk)


def test_a_start_takes_no_facts_read_for_another_learner():
    course = CourseFactory()
    learner, other = UserFactory(), UserFactory()
    for user in (learner, other):
        EnrolmentFactory(user=user, course=course)
    quiz = QuizFactory(course=course, mode=Quiz.Mode.EXAM)
    _quiz, facts = quiz_get_for_start(user=other, pk=quiz.pk)
    with pytest.raises(ValueError, match="another learner"):
        attempt_start(quiz=quiz, learner=learner, facts=facts)
    assert not quiz.attempts.exists()


def test_a_start_decides_on_the_facts_it_is_given():
    """The facts are what the start decides on (it reads neither again): an extension's
    extra time in the deadline, an unconfirmed sign-up refused."""
    course = CourseFactory()
    learner = UserFactory()
    EnrolmentFactory(user=learner, course=course)
    quiz = QuizFactory(course=course, mode=Quiz.Mode.EXAM, time_limit=timedelta(minutes=45))
    Extension.objects.create(quiz=quiz, learner=learner, extra_time=timedelta(minutes=15))
    _quiz, facts = quiz_get_for_start(user=learner, pk=quiz.pk)
    now = timezone.now()
    attempt, created = attempt_start(quiz=quiz, learner=learner, now=now, facts=facts)
    assert created and attempt.deadline == now + timedelta(minutes=60)

    newcomer = UserFactory()
    EnrolmentFactory(user=newcomer, course=course)
    SignUp.objects.create(user=newcomer)
    _quiz, facts = quiz_get_for_start(user=newcomer, pk=quiz.pk)
    assert not facts.confirmed
    with pytest.raises(NotPermitted):
        attempt_start(quiz=quiz, learner=newcomer, facts=facts)
