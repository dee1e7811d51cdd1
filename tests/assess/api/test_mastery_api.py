"""GET /api/me/mastery/ and POST /api/lessons/{slug}/practice/."""

from __future__ import annotations

import json

import pytest

from assess.mastery import bkt
from assess.models import Attempt, Question
from tests.assess.helpers import answer, parts_of, rows_of
from tests.factories import LessonFactory

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.assess.urls")]


def test_practice_then_mastery(api):
    lesson = LessonFactory(slug="memory-math", title="Memory math", templates=["gb-gib"])
    LessonFactory(slug="untouched", templates=["training-time"])
    r = api.post("/api/lessons/memory-math/practice/")
    assert r.status_code == 201, r.content
    body = r.json()
    assert body["skill"] == "units-gb-gib"
    assert set(body["question"]) == {
        "id",
        "order",
        "statement_html",
        "statement_markdown",
        "parts",
    }
    qid = body["question"]["id"]
    question = Question.objects.get(pk=qid)
    assert str(question.seed) not in json.dumps(body)
    part = parts_of(qid)[0]
    result = answer(api, body["attempt"], qid, part).json()
    assert result["correct"] is True  # practice: immediate feedback

    body = api.get("/api/me/mastery/").json()
    p = bkt.update(bkt.DEFAULT_PARAMS.p_init, True)
    skill = {"skill": "units-gb-gib", "p_mastery": pytest.approx(p), "mastered": False}
    assert body["skills"] == [{**skill, "evidence": 1}]
    # Practice enrolled the learner in the lesson's course; "untouched" is another
    # course's lesson, so it is not listed.
    assert body["lessons"] == [
        {
            "course": lesson.module.course.slug,
            "lesson": lesson.slug,
            "title": "Memory math",
            "skills_total": 1,
            "skills_mastered": 0,
            "share_mastered": 0.0,
            "mastered": False,
            "weakest_skill": "units-gb-gib",
            "weakest_p_mastery": pytest.approx(p),
            "evidence": 1,
            "skills": [{**skill, "evidence": 1}],
        }
    ]


def test_practice_unknown_lesson_is_404(api):
    assert api.post("/api/lessons/nope/practice/").status_code == 404


def test_adaptive_practice_quiz_is_not_listed_or_startable(api):
    LessonFactory(slug="l1", templates=["gb-gib"])
    attempt_id = api.post("/api/lessons/l1/practice/").json()["attempt"]
    assert rows_of(api.get("/api/quizzes/")) == []
    quiz_id = Attempt.objects.get(pk=attempt_id).quiz_id
    assert api.post(f"/api/quizzes/{quiz_id}/attempts/").status_code == 404
