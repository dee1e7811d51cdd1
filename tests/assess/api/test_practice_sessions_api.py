"""The API's lesson practice next to the web's sessions: API practice stays open-ended,
and a session started on the web that has all its questions answers 409, saying why,
until it is finished."""

from __future__ import annotations

import pytest

from assess.services.attempts import attempt_finish
from assess.services.practice_sessions import practice_session_start
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def lesson():
    return LessonFactory(slug="sizing", templates=["weights-memory"])


def test_api_practice_is_open_ended(api, lesson):
    for _ in range(6):
        assert api.post("/api/lessons/sizing/practice/").status_code == 201


def test_a_full_web_session_is_a_409_until_finished(api, learner, lesson):
    session = practice_session_start(learner=learner, lesson=lesson, length=5)
    for _ in range(4):
        assert api.post("/api/lessons/sizing/practice/").status_code == 201
    full = api.post("/api/lessons/sizing/practice/")
    assert full.status_code == 409
    assert "all its 5 questions" in full.json()["errors"][0]["detail"]
    attempt_finish(attempt=session.attempt)
    assert api.post("/api/lessons/sizing/practice/").status_code == 201
