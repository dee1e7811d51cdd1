"""Bad input is a 400 naming the field by its path in `attr` (never a 500, never
stored); an idempotency key reused for another answer is 422 and the first result
stands."""

from __future__ import annotations

import pytest

from assess.models import Quiz, Response
from tests.assess.helpers import correct_text, error_attrs, error_of, parts_of, send, wrong_text
from tests.factories import QuizFactory

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.assess.urls")]


def quiz_body(**overrides) -> dict:
    body = {"title": "Bounds", "mode": "homework", "slots": [{"templates": ["gb-gib"]}]}
    return {**body, **overrides}


@pytest.fixture
def admin(client_for, staff):
    return client_for(staff)


def create(admin, **overrides):
    return admin.post("/api/quizzes/", quiz_body(**overrides), format="json")


@pytest.mark.parametrize(
    ("overrides", "attr"),
    [
        ({"time_limit_minutes": 10081}, "time_limit_minutes"),
        ({"time_limit_minutes": 10**12}, "time_limit_minutes"),
        ({"time_limit_minutes": 10**30}, "time_limit_minutes"),
        ({"time_limit_minutes": 0}, "time_limit_minutes"),
        ({"time_limit_minutes": -5}, "time_limit_minutes"),
        ({"attempts_allowed": 101}, "attempts_allowed"),
        ({"attempts_allowed": 0}, "attempts_allowed"),
        ({"attempts_allowed": 10**30}, "attempts_allowed"),
        ({"tries_per_part": 31}, "tries_per_part"),
        ({"tries_per_part": 0}, "tries_per_part"),
        ({"tries_per_part": 10**30}, "tries_per_part"),
        ({"penalty_per_try": -0.1}, "penalty_per_try"),
        ({"penalty_per_try": 1.01}, "penalty_per_try"),
        ({"penalty_per_try": "NaN"}, "penalty_per_try"),
        ({"pass_mark": 1.5}, "pass_mark"),
        ({"pass_mark": "NaN"}, "pass_mark"),
        ({"slots": [{"templates": ["gb-gib"], "points": 1001}]}, "slots.0.points"),
        ({"slots": [{"templates": ["gb-gib"], "points": 0}]}, "slots.0.points"),
        ({"slots": [{"templates": ["gb-gib"], "points": 10**30}]}, "slots.0.points"),
        (
            {"slots": [{"templates": ["gb-gib"]}, {"templates": ["gb-gib"], "points": -1}]},
            "slots.1.points",
        ),
        ({"slots": [{"templates": ["gb-gib"]}] * 101}, "slots"),
        ({"slots": []}, "slots"),
        ({"slots": [{"templates": []}]}, "slots.0.templates"),
        ({"slots": [{"templates": ["x" * 65]}]}, "slots.0.templates.0"),
        ({"slots": [{"templates": ["gb-gib", "no-such-template"]}]}, "slots"),
        ({"title": "x" * 201}, "title"),
        ({"title": ""}, "title"),
        ({"mode": "quiz-show"}, "mode"),
        ({"feedback": "whenever"}, "feedback"),
        ({"course": "no-such-course"}, "course"),
        ({"lessons": ["no-such-lesson"]}, "lessons"),
    ],
)
def test_quiz_bounds_are_400_naming_the_field(admin, overrides, attr):
    r = create(admin, **overrides)
    assert error_attrs(r) == {attr}
    assert error_of(r, 400)["detail"]
    assert r.json()["type"] == "validation_error"
    assert not Quiz.objects.exists()


def test_quiz_bounds_themselves_are_accepted(admin):
    r = create(
        admin,
        time_limit_minutes=10080,
        attempts_allowed=100,
        tries_per_part=30,
        penalty_per_try=1.0,
        slots=[{"templates": ["gb-gib"], "points": 1000}] * 100,
    )
    assert r.status_code == 201, r.content
    body = r.json()
    assert (body["time_limit_minutes"], body["attempts_allowed"]) == (10080, 100)
    assert (body["tries_per_part"], body["penalty_per_try"]) == (30, 1.0)
    assert len(body["slots"]) == 100 and {s["points"] for s in body["slots"]} == {1000}


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"mode": "exam", "tries_per_part": 3}, "tries_per_part"),
        ({"mode": "certification", "tries_per_part": 1}, "tries_per_part"),
        ({"mode": "homework", "feedback": "after_attempt", "tries_per_part": 2}, "tries_per_part"),
        ({"mode": "exam", "penalty_per_try": 0.25}, "penalty_per_try"),
        ({"mode": "exam", "feedback": "immediately"}, "feedback"),
        ({"mode": "exam", "feedback": "after_close"}, "feedback"),  # no closes_at
    ],
)
def test_tries_and_penalties_are_for_immediate_feedback(admin, overrides, field):
    r = create(admin, **overrides)
    assert error_attrs(r) == {field}
    assert not Quiz.objects.exists()


# ---------------------------------------------------------------------- idempotency


@pytest.mark.parametrize("mode", [Quiz.Mode.PRACTICE, Quiz.Mode.EXAM])
def test_a_key_reused_for_another_answer_is_422_and_the_first_stands(api, mode):
    quiz = QuizFactory(mode=mode, slots=[["gb-gib"], ["gb-gib"]])
    body = api.post(f"/api/quizzes/{quiz.pk}/attempts/").json()
    aid = body["id"]
    q1, q2 = (q["id"] for q in body["questions"])
    part = parts_of(q1)[0]
    first = send(api, aid, q1, "converted", wrong_text(part), "k")
    assert first.status_code == 201
    before = api.get(f"/api/attempts/{aid}/").json()

    for question, text in ((q1, correct_text(part)), (q2, wrong_text(part))):
        r = send(api, aid, question, "converted", text, "k")
        error = error_of(r, 422)
        assert error["code"] == "idempotency_key_reused" and error["attr"] is None
        assert "idempotency" in error["detail"]
    after = api.get(f"/api/attempts/{aid}/").json()
    assert after == before
    [stored] = after["questions"][0]["responses"]
    assert stored["answer"] == wrong_text(part)
    assert after["questions"][1]["responses"] == []
    assert Response.objects.count() == 1
    # A replay of the first body is still answered with the first result.
    again = send(api, aid, q1, "converted", wrong_text(part), "k")
    assert again.status_code == 200 and again.json() == first.json()


# ----------------------------------------------------------------------- submissions


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"answer": "1" * 1001}, "answer"),
        ({"part": ""}, "part"),
        ({"idempotency_key": ""}, "idempotency_key"),
        ({"part": "p" * 65}, "part"),
        ({"idempotency_key": "k" * 101}, "idempotency_key"),
        ({"idempotency_key": None}, "idempotency_key"),
        ({"question": 2**63}, "question"),
        ({"question": 0}, "question"),
        ({"question": "one"}, "question"),
        ({"time_spent_ms": -1}, "time_spent_ms"),
        ({"time_spent_ms": 2**31}, "time_spent_ms"),
    ],
)
def test_submission_bounds_are_400_naming_the_field(api, overrides, field):
    quiz = QuizFactory(slots=[["gb-gib"]])
    body = api.post(f"/api/quizzes/{quiz.pk}/attempts/").json()
    qid = body["questions"][0]["id"]
    data = {
        "question": qid,
        "part": "converted",
        "answer": correct_text(parts_of(qid)[0]),
        "idempotency_key": "k",
        **overrides,
    }
    data = {k: v for k, v in data.items() if v is not None}
    r = api.post(f"/api/attempts/{body['id']}/responses/", data, format="json")
    assert error_attrs(r) == {field}
    assert "valid" not in r.json()  # only an unreadable answer says valid: false
    assert not Response.objects.exists()


def test_the_largest_question_id_is_404_not_500(api):
    body = api.post(f"/api/quizzes/{QuizFactory(slots=[['gb-gib']]).pk}/attempts/").json()
    r = send(api, body["id"], 2**63 - 1, "converted", "1 KB", "k")
    assert error_of(r, 404)["code"] == "not_found"


def test_reveal_part_too_long_is_400(api):
    body = api.post(f"/api/quizzes/{QuizFactory(slots=[['gb-gib']]).pk}/attempts/").json()
    qid = body["questions"][0]["id"]
    r = api.post(
        f"/api/attempts/{body['id']}/questions/{qid}/reveal/", {"part": "p" * 65}, format="json"
    )
    assert error_attrs(r) == {"part"}
