"""End-to-end API flows in each quiz mode, and what the client may and may not see."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from assess.models import Attempt, Question, Quiz, Response
from assess.tasks import expire_attempts
from tests.assess.helpers import answer, answer_all, error_of, parts_of, rows_of, wrong_text
from tests.factories import QuizFactory

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.assess.urls")]


def start(api, quiz) -> dict:
    r = api.post(f"/api/quizzes/{quiz.pk}/attempts/")
    assert r.status_code == 201, r.content
    return r.json()


def assert_no_secrets(text: str, question_ids) -> None:
    """The payload names no seed or parameters and contains no solved value, but for
    one the question's own statement prints (at one byte per parameter the answer in
    GB is the parameter count in billions: tests/frontend/helpers.assert_no_answer_in).
    """
    assert "seed" not in text
    assert '"params"' not in text
    for qid in question_ids:
        q = Question.objects.get(pk=qid)
        assert str(q.seed) not in text
        for part in q.answers:
            if part["kind"] == "numeric":
                for spelling in {repr(part["value"]), repr(float(part["value"]))}:
                    if spelling not in q.statement_markdown:
                        assert spelling not in text, part


def test_practice_flow_with_immediate_feedback_and_new_variant(api):
    quiz = QuizFactory(mode=Quiz.Mode.PRACTICE, slots=[["weights-memory"], ["gb-gib"]])
    body = start(api, quiz)
    assert body["deadline"] is None
    assert [q["order"] for q in body["questions"]] == [1, 2]
    first = body["questions"][0]
    stored = parts_of(first["id"])[0]
    assert first["parts"] == [
        {
            "name": "weights",
            "label": "Weights memory",
            "unit": stored["unit"],
            "kind": "numeric",
            "choices": [],
        }
    ]
    assert_no_secrets(json.dumps(body), [q["id"] for q in body["questions"]])

    part = parts_of(first["id"])[0]
    wrong = answer(api, body["id"], first["id"], part, correct=False).json()
    assert wrong["valid"] is True and wrong["correct"] is False and wrong["score"] == 0.0
    assert wrong["feedback"]
    right = answer(api, body["id"], first["id"], part).json()
    assert right["correct"] is True and right["score"] == 1.0 and right["feedback"] == "Correct."

    r = api.post(f"/api/attempts/{body['id']}/questions/{first['id']}/new-variant/")
    assert r.status_code == 201, r.content
    fresh = r.json()
    assert fresh["id"] != first["id"] and fresh["order"] == first["order"]
    assert_no_secrets(json.dumps(fresh), [fresh["id"]])
    old, new = Question.objects.get(pk=first["id"]), Question.objects.get(pk=fresh["id"])
    assert not old.active and new.active and new.variant_number == 1
    assert new.seed != old.seed
    # The replaced variant takes no more answers.
    assert answer(api, body["id"], first["id"], part, key="late").status_code == 409

    review = api.get(f"/api/attempts/{body['id']}/").json()
    assert [q["id"] for q in review["questions"]] == [fresh["id"], body["questions"][1]["id"]]
    assert review["feedback_visible"] is True
    # The fresh variant is unanswered: its answer and solution wait for a closing try.
    assert review["questions"][0]["solution_html"] is None
    assert review["questions"][0]["parts"][0]["answer"] is None
    new_part = new.answers[0]
    assert answer(api, body["id"], fresh["id"], new_part).status_code == 201
    review = api.get(f"/api/attempts/{body['id']}/").json()
    assert review["questions"][0]["solution_html"]
    shown = review["questions"][0]["parts"][0]["answer"]
    assert shown == {"value": new_part["value"], "unit": new_part["unit"]}


def test_homework_flow_limits_attempts(api):
    quiz = QuizFactory(mode=Quiz.Mode.HOMEWORK, attempts_allowed=2, slots=[["gb-gib"]])
    for number in (1, 2):
        body = start(api, quiz)
        assert body["number"] == number
        answer_all(api, body["id"], [q["id"] for q in body["questions"]])
        done = api.post(f"/api/attempts/{body['id']}/finish/").json()
        assert done["status"] == "finished" and done["score"] == 1.0 and done["passed"] is True
    r = api.post(f"/api/quizzes/{quiz.pk}/attempts/")
    error = error_of(r, 409)
    assert error["code"] == "conflict" and "2 attempt" in error["detail"]


def test_starting_twice_resumes_the_open_attempt(api):
    quiz = QuizFactory(slots=[["gb-gib"]])
    body = start(api, quiz)
    again = api.post(f"/api/quizzes/{quiz.pk}/attempts/")
    assert again.status_code == 200
    assert again.json()["id"] == body["id"]
    assert again.json()["questions"] == body["questions"]


def test_exam_hides_correctness_until_finish(api):
    quiz = QuizFactory(
        mode=Quiz.Mode.EXAM, time_limit=timedelta(minutes=30), slots=[["weights-memory"]]
    )
    body = start(api, quiz)
    assert body["deadline"] is not None
    qid = body["questions"][0]["id"]
    part = parts_of(qid)[0]
    result = answer(api, body["id"], qid, part, correct=False).json()
    assert result["valid"] is True
    assert all(result[k] is None for k in ("correct", "score", "feedback", "misconception"))

    # Exam variants are fixed.
    assert api.post(f"/api/attempts/{body['id']}/questions/{qid}/new-variant/").status_code == 409

    hidden = api.get(f"/api/attempts/{body['id']}/")
    assert_no_secrets(hidden.content.decode(), [qid])
    review = hidden.json()
    assert review["feedback_visible"] is False and review["score"] is None
    question = review["questions"][0]
    assert question["solution_html"] is None and question["score"] is None
    assert question["parts"][0]["answer"] is None
    assert question["responses"][0]["answer"] == wrong_text(part)
    assert question["responses"][0]["correct"] is None

    assert answer(api, body["id"], qid, part).status_code == 201  # a second try, right
    done = api.post(f"/api/attempts/{body['id']}/finish/").json()
    assert done["feedback_visible"] is True and done["score"] == 1.0
    assert [r["correct"] for r in done["questions"][0]["responses"]] == [False, True]
    assert done["questions"][0]["parts"][0]["answer"]["value"] == part["value"]
    assert done["questions"][0]["solution_html"]


def test_certification_applies_the_pass_mark(client_for, learner, other_learner):
    quiz = QuizFactory(
        mode=Quiz.Mode.CERTIFICATION, pass_mark=0.75, slots=[["gb-gib"], ["weights-memory"]]
    )
    weak, strong = client_for(learner), client_for(other_learner)
    a = start(weak, quiz)
    answer_all(weak, a["id"], [a["questions"][0]["id"]])  # one slot of two
    first = weak.post(f"/api/attempts/{a['id']}/finish/").json()
    assert first["score"] == 0.5 and first["passed"] is False

    b = start(strong, quiz)
    answer_all(strong, b["id"], [q["id"] for q in b["questions"]])
    second = strong.post(f"/api/attempts/{b['id']}/finish/").json()
    assert second["score"] == 1.0 and second["passed"] is True


def test_after_close_feedback_waits_for_the_close(api):
    quiz = QuizFactory(
        mode=Quiz.Mode.EXAM,
        feedback=Quiz.Feedback.AFTER_CLOSE,
        closes_at=timezone.now() + timedelta(hours=1),
        slots=[["gb-gib"]],
    )
    body = start(api, quiz)
    answer_all(api, body["id"], [body["questions"][0]["id"]])
    finished = api.post(f"/api/attempts/{body['id']}/finish/").json()
    assert finished["feedback_visible"] is False and finished["score"] is None
    Quiz.objects.filter(pk=quiz.pk).update(closes_at=timezone.now() - timedelta(seconds=1))
    review = api.get(f"/api/attempts/{body['id']}/").json()
    assert review["feedback_visible"] is True and review["score"] == 1.0


def test_unreadable_answer_is_400_and_stores_nothing(api):
    quiz = QuizFactory(slots=[["weights-memory"]])
    body = start(api, quiz)
    qid = body["questions"][0]["id"]
    r = api.post(
        f"/api/attempts/{body['id']}/responses/",
        {"question": qid, "part": "weights", "answer": "about a lot", "idempotency_key": "k"},
        format="json",
    )
    error = error_of(r, 400)
    assert r.json()["type"] == "validation_error" and r.json()["valid"] is False
    assert (error["code"], error["attr"]) == ("unreadable_answer", "answer")
    assert "number" in error["detail"]
    assert Response.objects.count() == 0
    # It cost nothing: the same key is still free for a readable answer.
    ok = api.post(
        f"/api/attempts/{body['id']}/responses/",
        {"question": qid, "part": "weights", "answer": "12 GB", "idempotency_key": "k"},
        format="json",
    )
    assert ok.status_code == 201


def test_unknown_part_is_400(api):
    body = start(api, QuizFactory(slots=[["gb-gib"]]))
    qid = body["questions"][0]["id"]
    r = api.post(
        f"/api/attempts/{body['id']}/responses/",
        {"question": qid, "part": "nope", "answer": "1", "idempotency_key": "k"},
        format="json",
    )
    error = error_of(r, 400, attr="part")
    assert "converted" in error["detail"] and "valid" not in r.json()


def test_same_idempotency_key_replays_the_first_result(api):
    body = start(api, QuizFactory(slots=[["weights-memory"]]))
    qid = body["questions"][0]["id"]
    part = parts_of(qid)[0]
    first = answer(api, body["id"], qid, part, key="same")
    replay = answer(api, body["id"], qid, part, key="same")
    assert (first.status_code, replay.status_code) == (201, 200)
    assert replay.json() == first.json()
    # The same key with another answer is a client bug: 422, and the first stands.
    other = answer(api, body["id"], qid, part, correct=False, key="same")
    assert error_of(other, 422)["code"] == "idempotency_key_reused"
    assert Response.objects.filter(attempt_id=body["id"]).count() == 1
    assert answer(api, body["id"], qid, part, key="same").json() == first.json()


def test_after_the_deadline_a_submission_is_409_and_changes_nothing(api):
    quiz = QuizFactory(mode=Quiz.Mode.EXAM, time_limit=timedelta(minutes=5), slots=[["gb-gib"]])
    body = start(api, quiz)
    qid = body["questions"][0]["id"]
    # The clock moves past the deadline; the beat task has not run yet.
    Attempt.objects.filter(pk=body["id"]).update(deadline=timezone.now() - timedelta(seconds=1))
    r = answer(api, body["id"], qid, parts_of(qid)[0])
    assert "deadline" in error_of(r, 409)["detail"]
    assert Response.objects.count() == 0
    assert Attempt.objects.get(pk=body["id"]).status == Attempt.Status.OPEN


def test_after_finish_submissions_and_second_finish_are_409(api):
    body = start(api, QuizFactory(slots=[["gb-gib"]]))
    qid = body["questions"][0]["id"]
    assert api.post(f"/api/attempts/{body['id']}/finish/").status_code == 200
    assert api.post(f"/api/attempts/{body['id']}/finish/").status_code == 409
    assert answer(api, body["id"], qid, parts_of(qid)[0]).status_code == 409
    assert Response.objects.count() == 0


def test_expire_task_keeps_saved_answers_and_finishes(api):
    quiz = QuizFactory(
        mode=Quiz.Mode.EXAM, time_limit=timedelta(minutes=5), slots=[["gb-gib"], ["gb-gib"]]
    )
    body = start(api, quiz)
    answer_all(api, body["id"], [body["questions"][0]["id"]])
    deadline = timezone.now() - timedelta(seconds=1)
    Attempt.objects.filter(pk=body["id"]).update(deadline=deadline)

    assert expire_attempts.apply().get() == 1
    attempt = Attempt.objects.get(pk=body["id"])
    assert attempt.status == Attempt.Status.EXPIRED
    assert attempt.finished_at == deadline
    assert attempt.score == 0.5 and attempt.points == 1.0
    assert attempt.responses.count() == 1
    assert expire_attempts.apply().get() == 0  # idempotent
    review = api.get(f"/api/attempts/{body['id']}/").json()
    assert review["status"] == "expired" and review["score"] == 0.5


def test_finish_after_the_deadline_closes_as_expired(api):
    quiz = QuizFactory(mode=Quiz.Mode.EXAM, time_limit=timedelta(minutes=5), slots=[["gb-gib"]])
    body = start(api, quiz)
    Attempt.objects.filter(pk=body["id"]).update(deadline=timezone.now() - timedelta(seconds=1))
    done = api.post(f"/api/attempts/{body['id']}/finish/").json()
    assert done["status"] == "expired"


def test_quiz_window(api):
    now = timezone.now()
    later = QuizFactory(opens_at=now + timedelta(hours=1))
    closed = QuizFactory(opens_at=now - timedelta(hours=2), closes_at=now - timedelta(hours=1))
    r = api.post(f"/api/quizzes/{later.pk}/attempts/")
    assert "opens" in error_of(r, 409)["detail"]
    r = api.post(f"/api/quizzes/{closed.pk}/attempts/")
    assert "closed" in error_of(r, 409)["detail"]
    listed = {q["id"] for q in rows_of(api.get("/api/quizzes/"))}
    assert later.pk in listed and closed.pk not in listed


def test_deadline_never_passes_the_close(api):
    closes = timezone.now() + timedelta(minutes=10)
    quiz = QuizFactory(
        mode=Quiz.Mode.EXAM, time_limit=timedelta(hours=2), closes_at=closes, slots=[["gb-gib"]]
    )
    body = start(api, quiz)
    assert Attempt.objects.get(pk=body["id"]).deadline == closes


def test_choice_parts_list_their_choices(api):
    body = start(api, QuizFactory(slots=[["roofline-attainable"]]))
    parts = {p["name"]: p for p in body["questions"][0]["parts"]}
    assert parts["bound"]["kind"] == "choice"
    assert sorted(parts["bound"]["choices"]) == ["compute", "memory"]
