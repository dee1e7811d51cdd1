"""The responses calibration reads: one per learner and template, the honest first try in
practice and homework, the counted (last saved) answer in ended exams, through the real
services (attempt_start, response_submit, hint_request, part_reveal, attempt_finish)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from assess.services.attempts import attempt_finish, attempt_start
from assess.services.hints import hint_request
from assess.services.responses import response_submit
from assess.services.reveals import part_reveal
from certify import calibration_responses as cr
from certify.calibration_responses import calibration_responses
from tests.assess.helpers import correct_text, wrong_text
from tests.factories import QuizFactory, UserFactory

pytestmark = pytest.mark.django_db
T = "weights-memory"


def _start(learner, mode, **quiz):
    attempt, _ = attempt_start(quiz=QuizFactory(mode=mode, slots=[[T]], **quiz), learner=learner)
    question = attempt.questions.get()
    return attempt, question, question.answers[0]


def _answer(attempt, question, part, text, key):
    return response_submit(
        attempt=attempt, question=question, part=part["name"], text=text, idempotency_key=key
    )


def test_practice_counts_the_first_try_not_the_corrected_one():
    learner = UserFactory()
    attempt, question, part = _start(learner, "practice")
    _answer(attempt, question, part, wrong_text(part), "a")
    _answer(attempt, question, part, correct_text(part), "b")
    assert calibration_responses() == [(learner.pk, T, 0)]


def test_an_exam_counts_the_last_saved_answer_once_the_attempt_has_ended():
    learner = UserFactory()
    attempt, question, part = _start(learner, "exam")
    _answer(attempt, question, part, wrong_text(part), "a")
    _answer(attempt, question, part, correct_text(part), "b")
    assert calibration_responses() == []  # open: the answer may still change
    attempt_finish(attempt=attempt)
    assert calibration_responses() == [(learner.pk, T, 1)]


def test_the_template_first_met_decides_and_each_learner_counts_once():
    ada, bob = UserFactory(), UserFactory()
    a1, q1, p1 = _start(ada, "practice")
    _answer(a1, q1, p1, correct_text(p1), "a")
    a2, q2, p2 = _start(ada, "exam")
    _answer(a2, q2, p2, wrong_text(p2), "b")
    attempt_finish(attempt=a2)
    b1, q3, p3 = _start(bob, "exam")
    attempt_finish(attempt=b1)  # not reached: nothing
    assert calibration_responses() == [(ada.pk, T, 1)]


def test_a_try_after_a_hint_is_not_evidence_and_one_before_a_reveal_is():
    hinted, revealed = UserFactory(), UserFactory()
    attempt, question, part = _start(hinted, "homework")
    hint_request(attempt=attempt, question=question, part=part["name"])
    _answer(attempt, question, part, correct_text(part), "a")
    attempt, question, part = _start(revealed, "practice")
    _answer(attempt, question, part, wrong_text(part), "b")
    part_reveal(attempt=attempt, question=question, part=part["name"])
    assert calibration_responses() == [(revealed.pk, T, 0)]


def test_the_rule_on_plain_rows():
    now = timezone.now()
    later = now + timedelta(minutes=1)

    def q(qid, mode, ended=True, hinted=None, revealed=None, at=now, learner=1):
        return cr.QuestionRow(qid, learner, T, mode, ended, "w", at, hinted, revealed)

    def a(qid, correct, at, rid, part="w"):
        return cr.AnswerRow(qid, part, correct, at, rid)

    rows = [q(1, "practice", hinted=later), q(2, "certification", at=later, learner=2)]
    answers = [a(1, True, now, 1), a(1, False, later, 2), a(2, False, now, 3), a(2, True, later, 4)]
    answers += [a(2, False, later + timedelta(1), 5, part="other")]  # not the first part
    assert cr.pick_responses(rows, answers) == [(1, T, 1), (2, T, 1)]
    assert cr.pick_responses([q(1, "practice", hinted=now)], answers) == []
    assert cr.pick_responses([q(2, "exam", ended=False)], answers) == []
