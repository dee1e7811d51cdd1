"""The API's lesson practice next to the web's sessions: API practice stays open-ended;
a session started on the web takes the API's questions as its own until it has all of
them, and then is finished (its summary kept) so the API's practice goes on afresh: a
client that knows nothing of sessions is never refused for one."""

from __future__ import annotations

import pytest

from assess.models import Attempt
from assess.services.practice_sessions import practice_session_start
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def lesson():
    return LessonFactory(slug="sizing", templates=["weights-memory"])


def test_api_practice_is_open_ended(api, lesson):
    for _ in range(6):
        assert api.post("/api/lessons/sizing/practice/").status_code == 201


def test_a_full_web_session_is_finished_and_api_practice_goes_on(api, learner, lesson):
    session = practice_session_start(learner=learner, lesson=lesson, length=5)
    for _ in range(4):  # questions 2 to 5 of the web's session
        got = api.post("/api/lessons/sizing/practice/")
        assert got.status_code == 201 and got.json()["attempt"] == session.attempt.pk
    after = api.post("/api/lessons/sizing/practice/")
    assert after.status_code == 201
    assert after.json()["attempt"] != session.attempt.pk
    session.attempt.refresh_from_db()
    assert session.attempt.status == Attempt.Status.FINISHED
    assert session.attempt.questions.count() == 5  # the session kept its five, no more
    new = Attempt.objects.get(pk=after.json()["attempt"])
    assert new.practice_length is None and new.is_open
