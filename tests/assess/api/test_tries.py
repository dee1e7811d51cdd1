"""Tries, penalties and reveals (immediate feedback), through the API.

A try past the limit, after a correct try or after a reveal is 409 and stores nothing.
A part scores its first correct try within the limit less penalty_per_try for each try
before it. A reveal shows the part's answer and forfeits its remaining tries; exams
have no reveal (409).
"""

from __future__ import annotations

import pytest

from assess.models import Attempt, Quiz, Response, Reveal
from tests.assess.helpers import (
    assert_hidden,
    assert_shown,
    correct_text,
    error_attrs,
    error_of,
    parts_of,
    reveal,
    send,
)
from tests.factories import QuizFactory

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.assess.urls")]


def start(api, **quiz) -> tuple[int, int, dict]:
    """(attempt id, question id, its first part) of a one-question gb-gib quiz."""
    quiz.setdefault("slots", [["gb-gib"]])
    r = api.post(f"/api/quizzes/{QuizFactory(**quiz).pk}/attempts/")
    assert r.status_code == 201, r.content
    body = r.json()
    qid = body["questions"][0]["id"]
    return body["id"], qid, parts_of(qid)[0]


def wrong(part: dict, n: int) -> str:
    """The n-th distinct wrong answer (wrong by a factor no detector names)."""
    return f"{part['value'] * (37 + n)!r} {part['unit']}"


def status_of(body: dict) -> dict:
    state = body.get("question_state", body)
    return state["parts"][0]["status"]


def test_the_try_limit(api):
    aid, qid, part = start(api, mode=Quiz.Mode.HOMEWORK, tries_per_part=3)
    for n in range(3):
        r = send(api, aid, qid, part["name"], wrong(part, n), f"w{n}")
        assert r.status_code == 201, r.content
        body = r.json()
        assert status_of(body)["tries_left"] == 2 - n
        if n < 2:
            assert_hidden(body, qid)
    # The last allowed try closes the part: its answer shows, it takes no more.
    assert status_of(body)["closed"] == "exhausted"
    assert status_of(body)["accepts_answers"] is False
    assert_shown(body, qid, part["name"])

    late = send(api, aid, qid, part["name"], correct_text(part), "late")
    assert "every try" in error_of(late, 409)["detail"]
    assert Response.objects.filter(attempt_id=aid).count() == 3
    assert not Response.objects.filter(idempotency_key="late").exists()
    done = api.post(f"/api/attempts/{aid}/finish/").json()
    assert done["score"] == 0.0  # the correct answer sent too late earned nothing


def test_a_solved_part_takes_no_more_tries(api):
    aid, qid, part = start(api, mode=Quiz.Mode.PRACTICE)  # unlimited tries
    assert send(api, aid, qid, part["name"], correct_text(part), "right").status_code == 201
    for key, text in (("again", correct_text(part)), ("worse", wrong(part, 0))):
        r = send(api, aid, qid, part["name"], text, key)
        assert "correctly already" in error_of(r, 409)["detail"]
    assert list(Response.objects.values_list("idempotency_key", flat=True)) == ["right"]
    # A replay of the stored try is still answered with its first result.
    assert send(api, aid, qid, part["name"], correct_text(part), "right").status_code == 200


def test_practice_tries_are_unlimited(api):
    aid, qid, part = start(api, mode=Quiz.Mode.PRACTICE)
    for n in range(12):
        r = send(api, aid, qid, part["name"], wrong(part, n), f"w{n}")
        assert r.status_code == 201
        assert status_of(r.json())["tries_left"] is None
        assert status_of(r.json())["closed"] is None
    assert_hidden(r.json(), qid)
    assert send(api, aid, qid, part["name"], correct_text(part), "right").status_code == 201


@pytest.mark.parametrize(
    ("penalty", "wrong_tries", "expected"),
    [
        (0.25, 1, 0.75),
        (0.25, 2, 0.5),
        (0.25, 0, 1.0),
        (0.0, 2, 1.0),
        (0.6, 2, 0.0),  # never below zero
    ],
)
def test_penalty_per_try(api, penalty, wrong_tries, expected):
    aid, qid, part = start(
        api,
        mode=Quiz.Mode.HOMEWORK,
        tries_per_part=3,
        penalty_per_try=penalty,
        slots=[{"templates": ["gb-gib"], "points": 4}],
    )
    for n in range(wrong_tries):
        assert send(api, aid, qid, part["name"], wrong(part, n), f"w{n}").status_code == 201
    r = send(api, aid, qid, part["name"], correct_text(part), "right")
    assert r.status_code == 201
    body = r.json()
    assert body["correct"] is True and body["score"] == 1.0  # the try itself is right
    assert status_of(body)["score"] == pytest.approx(expected)
    assert body["question_state"]["score"] == pytest.approx(expected)
    review = api.get(f"/api/attempts/{aid}/").json()
    assert review["questions"][0]["score"] == pytest.approx(expected)
    done = api.post(f"/api/attempts/{aid}/finish/").json()
    assert done["score"] == pytest.approx(expected)
    assert done["points"] == pytest.approx(4 * expected)
    assert Attempt.objects.get(pk=aid).points == pytest.approx(4 * expected)


def test_a_correct_try_past_the_limit_cannot_be_stored(api):
    aid, qid, part = start(api, mode=Quiz.Mode.HOMEWORK, tries_per_part=1, penalty_per_try=0.5)
    assert send(api, aid, qid, part["name"], wrong(part, 0), "w").status_code == 201
    assert send(api, aid, qid, part["name"], correct_text(part), "r").status_code == 409
    assert api.post(f"/api/attempts/{aid}/finish/").json()["score"] == 0.0


# ------------------------------------------------------------------------------ reveal


def test_reveal_shows_the_answer_and_forfeits_the_part(api):
    aid, qid, part = start(api, mode=Quiz.Mode.HOMEWORK, tries_per_part=3)
    assert send(api, aid, qid, part["name"], wrong(part, 0), "w").status_code == 201
    r = reveal(api, aid, qid, part["name"])
    assert r.status_code == 200, r.content
    body = r.json()
    assert_shown(body, qid, part["name"])
    assert body["solution_html"]  # its only part is closed
    assert status_of(body) == {
        "tries": 1,
        "tries_left": 2,
        "closed": "revealed",
        "accepts_answers": False,
        "score": 0.0,
        "hints_used": 0,
        "can_hint": False,  # a closed part takes no hint either
    }
    assert body["can_reveal"] is False
    assert Reveal.objects.filter(question_id=qid, part=part["name"]).count() == 1

    # The shown answer cannot be typed back for credit.
    typed = send(api, aid, qid, part["name"], correct_text(part), "typed")
    assert "asked for" in error_of(typed, 409)["detail"]
    assert Response.objects.filter(attempt_id=aid).count() == 1
    # Asking twice is harmless.
    assert reveal(api, aid, qid, part["name"]).status_code == 200
    assert Reveal.objects.count() == 1
    assert api.post(f"/api/attempts/{aid}/finish/").json()["score"] == 0.0


def test_reveal_before_any_try(api):
    aid, qid, part = start(api, mode=Quiz.Mode.PRACTICE)
    r = reveal(api, aid, qid, part["name"])
    assert r.status_code == 200
    assert status_of(r.json())["closed"] == "revealed" and status_of(r.json())["tries"] == 0
    assert send(api, aid, qid, part["name"], correct_text(part), "k").status_code == 409
    assert not Response.objects.exists()


@pytest.mark.parametrize("feedback", ["after_attempt", "after_close"])
@pytest.mark.parametrize("mode", [Quiz.Mode.EXAM, Quiz.Mode.HOMEWORK, Quiz.Mode.CERTIFICATION])
def test_no_reveal_with_deferred_feedback(api, mode, feedback):
    from datetime import timedelta

    from django.utils import timezone

    closes = timezone.now() + timedelta(hours=1) if feedback == "after_close" else None
    aid, qid, part = start(api, mode=mode, feedback=feedback, closes_at=closes)
    r = reveal(api, aid, qid, part["name"])
    assert r.status_code == 409
    assert not Reveal.objects.exists()
    assert_hidden(api.get(f"/api/attempts/{aid}/").json(), qid)
    # The part still takes answers.
    assert send(api, aid, qid, part["name"], correct_text(part), "k").status_code == 201


def test_reveal_of_an_unknown_part_is_400(api):
    aid, qid, _ = start(api)
    r = reveal(api, aid, qid, "nope")
    assert "converted" in error_of(r, 400, attr="part")["detail"]
    r = api.post(f"/api/attempts/{aid}/questions/{qid}/reveal/", {}, format="json")
    assert error_attrs(r) == {"part"}
    assert not Reveal.objects.exists()


def test_reveal_of_another_learners_question_is_404(api, client_for, other_learner):
    aid, qid, part = start(api)
    other = client_for(other_learner)
    assert reveal(other, aid, qid, part["name"]).status_code == 404
    their_aid, their_qid, _ = start(other)
    assert reveal(api, aid, their_qid, part["name"]).status_code == 404
    assert not Reveal.objects.exists()
    assert_hidden(api.get(f"/api/attempts/{aid}/").json(), qid)


def test_reveal_after_the_finish_is_409(api):
    aid, qid, part = start(api)
    assert api.post(f"/api/attempts/{aid}/finish/").status_code == 200
    assert reveal(api, aid, qid, part["name"]).status_code == 409
    assert not Reveal.objects.exists()


@pytest.mark.parametrize(("closing", "closed"), [("right", "solved"), ("wrong", "exhausted")])
def test_reveal_of_a_closed_part_records_nothing(api, closing, closed):
    """Its answer shows already; revealing it is a no-op that records nothing."""
    aid, qid, part = start(api, mode=Quiz.Mode.HOMEWORK, tries_per_part=1)
    text = correct_text(part) if closing == "right" else wrong(part, 0)
    assert send(api, aid, qid, part["name"], text, "k").status_code == 201
    r = reveal(api, aid, qid, part["name"])
    assert r.status_code == 200
    assert status_of(r.json())["closed"] == closed
    assert status_of(r.json())["score"] == (1.0 if closing == "right" else 0.0)
    assert_shown(r.json(), qid, part["name"])
    assert not Reveal.objects.exists()


def test_reveal_of_one_part_leaves_the_others_open(api):
    aid, qid, _ = start(api, slots=[["roofline-attainable"]])
    parts = {p["name"]: p for p in parts_of(qid)}
    body = reveal(api, aid, qid, "intensity").json()
    assert_hidden(body, qid, parts=("attainable",))
    assert body["can_reveal"] is True
    r = send(api, aid, qid, "attainable", correct_text(parts["attainable"]), "a")
    assert r.status_code == 201 and r.json()["correct"] is True
