"""The item analysis an instructor reads is kept between changes (assess.selectors.
items): read again with nothing changed it is not recomputed; a newly closed attempt,
a regrade, or another instructor's view reads afresh."""

from __future__ import annotations

import pytest

from assess.selectors import items as items_selector
from assess.services.attempts import attempt_finish, attempt_start
from audit.models import AuditEvent
from audit.services import audit_record
from tests.factories import (
    CourseFactory,
    CourseRoleFactory,
    EnrolmentFactory,
    QuizFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def computed(monkeypatch):
    """How many times the analysis itself ran."""
    runs = []
    real = items_selector.item_analysis

    def counting(**kwargs):
        runs.append(kwargs["quiz"].pk)
        return real(**kwargs)

    monkeypatch.setattr(items_selector, "item_analysis", counting)
    return runs


def finished(quiz, username: str):
    learner = UserFactory(username=username)
    EnrolmentFactory(user=learner, course=quiz.course)
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    return attempt_finish(attempt=attempt)


def test_it_is_computed_once_per_state_and_again_after_a_change(computed):
    quiz = QuizFactory(course=CourseFactory(), slots=[["weights-memory"]])
    teacher = CourseRoleFactory(course=quiz.course).user
    finished(quiz, "ann")
    read = lambda user=teacher: items_selector.item_analysis_for_instructor(user=user, quiz=quiz)  # noqa: E731
    first = read()
    assert first.attempts == 1 and [i.template for i in first.items] == ["weights-memory"]
    assert read() == first and len(computed) == 1  # nothing changed: kept
    finished(quiz, "bob")
    assert read().attempts == 2 and len(computed) == 2  # a closed attempt moves the key
    read()
    assert len(computed) == 2
    audit_record(actor=None, action=AuditEvent.Action.REGRADE, target_type="problems.template",
                 target_id="weights-memory")  # fmt: skip
    read()
    assert len(computed) == 3  # a regrade rewrites closed answers: read afresh
    other = CourseRoleFactory(course=quiz.course).user
    assert read(other).attempts == 2 and len(computed) == 4  # each instructor's own view
