"""A track's certification exam starts only once its lessons are mastered (issue 36):
before that `POST /api/quizzes/{id}/attempts/` answers 409 with the code
`lesson_mastery_required`, naming the lessons still below the threshold, and starts
nothing. The code is documented on that operation alone."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from assess.models import Attempt, SkillMastery
from certify.selectors import track_rules
from tests.certify.api.conftest import master
from tests.factories import UserFactory
from tests.openapi import assert_documented, project

pytestmark = pytest.mark.django_db

START = "/api/quizzes/{id}/attempts/"


def start(user, quiz):
    client = APIClient()
    client.force_authenticate(user)
    response = client.post(f"/api/quizzes/{quiz.pk}/attempts/")
    return response.status_code, assert_documented(response, "post", START)


def test_an_exam_before_mastery_is_409_naming_every_missing_lesson(fleet):
    learner = UserFactory()
    status, body = start(learner, fleet.exam)
    assert status == 409
    [error] = body["errors"]
    assert error["code"] == "lesson_mastery_required"
    titles = [lesson.title for lesson in fleet.lessons.all()]
    assert titles and all(title in error["detail"] for title in titles)
    assert not Attempt.objects.filter(learner=learner).exists()


def test_only_the_lessons_still_below_the_threshold_are_named(fleet):
    learner = UserFactory()
    master(learner, fleet)
    rules = track_rules([fleet])[fleet.pk]
    weak = rules.lessons[-1]
    SkillMastery.objects.filter(learner=learner, skill=weak.skills[0]).update(p_mastery=0.1)
    status, body = start(learner, fleet.exam)
    assert status == 409
    detail = body["errors"][0]["detail"]
    assert weak.title in detail
    assert all(
        lesson.title not in detail
        for lesson in rules.lessons
        if weak.skills[0] not in lesson.skills
    )


def test_once_mastered_the_exam_starts_and_an_open_one_resumes_whatever_mastery_does(fleet):
    learner = UserFactory()
    master(learner, fleet)
    status, body = start(learner, fleet.exam)
    assert status == 201
    SkillMastery.objects.filter(learner=learner).update(p_mastery=0.1)
    again, resumed = start(learner, fleet.exam)
    assert again == 200 and resumed["id"] == body["id"]


def test_a_certification_quiz_of_no_track_has_no_mastery_gate(db):
    from tests.factories import QuizFactory

    quiz = QuizFactory(mode="certification", feedback="after_attempt", slots=[["weights-memory"]])
    status, _ = start(UserFactory(), quiz)
    assert status == 201


def _codes_409(method: str, path: str) -> set[str]:
    response = project().operation(method, path)["responses"]["409"]
    body = project().component(response["content"]["application/json"]["schema"]["$ref"])
    error = project().component(body["properties"]["errors"]["items"]["$ref"])
    code = error["properties"]["code"]
    code = code["allOf"][0] if "allOf" in code else code
    return set(project().component(code["$ref"])["enum"])


def test_the_start_operation_documents_the_code_and_other_operations_do_not():
    assert _codes_409("post", START) == {"conflict", "lesson_mastery_required"}
    op = project().operation("post", START)
    assert "lesson_mastery_required" in op["responses"]["409"]["description"]
    assert _codes_409("post", "/api/attempts/{id}/finish/") == {"conflict"}
