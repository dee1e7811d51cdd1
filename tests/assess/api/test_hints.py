"""Stepwise hints through the API: POST .../questions/{qid}/hints/ and the question read.

Practice and homework offer hints, exams and certifications refuse them (409); each
hint is recorded; homework charges the quiz's hint_penalty to the part it was asked
from, practice nothing; a part's first try after a hint is no evidence for mastery;
asking after the last hint gives the last again and records nothing.
"""

from __future__ import annotations

import pytest

from assess.models import Hint, MasteryEvent, Question, Quiz, Response
from problems.engine.hints import hints_for
from problems.engine.variants import Variant
from tests.assess.helpers import correct_text, error_of, fake_seeds, parts_of, send, wrong_text
from tests.factories import QuizFactory

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.assess.urls")]
SLUG = "leaf-spine-switches"  # three parts; 1 to 3 hints (1 in about 5% of seeds)
# Every question here is drawn from one seed whose variant has three hints: the tests
# step through more than one, and the attempt's own seed (an HMAC of its ids) gave a
# one-hint variant in a CI run.
THREE_HINTS = 2


@pytest.fixture(autouse=True)
def three_hint_variants(monkeypatch):
    assert len(hints_for(Variant.from_seed(SLUG, THREE_HINTS))) == 3
    fake_seeds(monkeypatch, lambda variant_number, draw: THREE_HINTS)


def start(api, **quiz) -> tuple[int, int, list[dict]]:
    quiz.setdefault("slots", [[SLUG]])
    r = api.post(f"/api/quizzes/{QuizFactory(**quiz).pk}/attempts/")
    assert r.status_code == 201, r.content
    qid = r.json()["questions"][0]["id"]
    return r.json()["id"], qid, parts_of(qid)


def hint(api, aid: int, qid: int, part: str):
    return api.post(f"/api/attempts/{aid}/questions/{qid}/hints/", {"part": part}, format="json")


def question_read(api, aid: int, qid: int) -> dict:
    (q,) = [q for q in api.get(f"/api/attempts/{aid}/").json()["questions"] if q["id"] == qid]
    return q


def test_practice_hints_step_through_are_recorded_and_free(api):
    aid, qid, parts = start(api, mode=Quiz.Mode.PRACTICE)
    first = parts[0]["name"]
    before = question_read(api, aid, qid)
    total = before["hints"]["total"]
    assert before["hints"] == {"offered": True, "used": 0, "total": total} and total >= 2
    assert before["parts"][0]["status"]["can_hint"] is True

    shown = [hint(api, aid, qid, first) for _ in range(total)]
    assert [r.status_code for r in shown] == [200] * total
    assert [r.json()["index"] for r in shown] == list(range(1, total + 1))
    assert {r.json()["total"] for r in shown} == {total}
    assert all(r.json()["recorded"] and r.json()["html"] for r in shown)
    rows = list(Hint.objects.filter(question_id=qid).values_list("part", "step"))
    assert rows == [(first, k) for k in range(1, total + 1)]

    # Past the last: the last again, nothing new recorded.
    again = hint(api, aid, qid, first)
    assert again.status_code == 200
    assert (again.json()["index"], again.json()["recorded"]) == (total, False)
    assert Hint.objects.filter(question_id=qid).count() == total

    read = question_read(api, aid, qid)
    assert read["hints"]["used"] == total
    assert read["parts"][0]["status"]["hints_used"] == total
    assert read["parts"][1]["status"]["hints_used"] == 0
    # Free in practice: a correct try still scores the whole part.
    r = send(api, aid, qid, first, correct_text(parts[0]), "right")
    assert r.status_code == 201 and r.json()["question_state"]["parts"][0]["status"]["score"] == 1.0


def test_a_first_try_after_a_hint_is_no_evidence_for_mastery(api):
    aid, qid, parts = start(api, mode=Quiz.Mode.PRACTICE)
    a, b = parts[0], parts[1]
    assert send(api, aid, qid, a["name"], correct_text(a), "a1").status_code == 201
    assert hint(api, aid, qid, b["name"]).status_code == 200
    assert send(api, aid, qid, b["name"], correct_text(b), "b1").status_code == 201
    evidence = dict(Response.objects.filter(attempt_id=aid).values_list("part", "evidence"))
    assert evidence == {a["name"]: True, b["name"]: False}
    # Only the unaided try stepped mastery.
    assert set(MasteryEvent.objects.values_list("response__part", flat=True)) == {a["name"]}
    # The hint is on the question, whichever part asked: every later first try is aided.
    c = parts[2]
    assert send(api, aid, qid, c["name"], correct_text(c), "c1").status_code == 201
    assert Response.objects.get(idempotency_key="c1").evidence is False


@pytest.mark.parametrize(("penalty", "hints", "expected"), [(0.25, 1, 0.75), (0.25, 2, 0.5)])
def test_homework_charges_the_hint_penalty(api, penalty, hints, expected):
    aid, qid, parts = start(
        api, mode=Quiz.Mode.HOMEWORK, tries_per_part=3, slots=[[SLUG]], hint_penalty=penalty
    )
    first = parts[0]["name"]
    for _ in range(hints):
        assert hint(api, aid, qid, first).json()["recorded"] is True
    for k, part in enumerate(parts):
        assert send(api, aid, qid, part["name"], correct_text(part), f"k{k}").status_code == 201
    read = question_read(api, aid, qid)
    assert read["parts"][0]["status"]["score"] == pytest.approx(expected)
    assert read["parts"][1]["status"]["score"] == 1.0  # charged to the part that asked
    done = api.post(f"/api/attempts/{aid}/finish/").json()
    assert done["score"] == pytest.approx((expected + 2) / 3)


def test_exams_offer_no_hints(api):
    aid, qid, parts = start(api, mode=Quiz.Mode.EXAM)
    r = hint(api, aid, qid, parts[0]["name"])
    assert "no hints" in error_of(r, 409)["detail"]
    assert not Hint.objects.exists()
    read = question_read(api, aid, qid)
    assert read["hints"] == {"offered": False, "used": 0, "total": None}
    assert read["parts"][0]["status"]["can_hint"] is False


def test_refusals(api):
    aid, qid, parts = start(api, mode=Quiz.Mode.HOMEWORK)
    assert error_of(hint(api, aid, qid, "nope"), 400, "part")["code"] == "invalid"
    assert error_of(hint(api, aid, qid, ""), 400, "part")
    first = parts[0]
    assert send(api, aid, qid, first["name"], correct_text(first), "right").status_code == 201
    assert "correctly already" in error_of(hint(api, aid, qid, first["name"]), 409)["detail"]
    assert api.post(f"/api/attempts/{aid}/finish/").status_code == 200
    assert "finished" in error_of(hint(api, aid, qid, parts[1]["name"]), 409)["detail"]
    assert not Hint.objects.exists()
    assert Question.objects.get(pk=qid).hinted_at is None


def test_the_quiz_body_takes_an_optional_hint_penalty(api, instructor, client_for, course):
    teacher = client_for(instructor)
    body = {
        "title": "T",
        "mode": "homework",
        "course": course.slug,
        "slots": [{"templates": [SLUG]}],
    }
    r = teacher.post("/api/quizzes/", body, format="json")
    assert r.status_code == 201, r.content
    assert r.json()["hint_penalty"] == 0.0
    r = teacher.post("/api/quizzes/", {**body, "hint_penalty": 0.2}, format="json")
    assert r.status_code == 201 and r.json()["hint_penalty"] == 0.2
    assert Quiz.objects.get(pk=r.json()["id"]).hint_penalty == 0.2
    r = teacher.post(
        "/api/quizzes/", {**body, "mode": "practice", "hint_penalty": 0.2}, format="json"
    )
    assert "Only homework" in error_of(r, 400, "hint_penalty")["detail"]


def test_held_evidence_released_at_the_finish_skips_answers_after_a_hint(api):
    # Homework with feedback after the attempt: the counted answers wait for the finish.
    aid, qid, parts = start(api, mode=Quiz.Mode.HOMEWORK, feedback=Quiz.Feedback.AFTER_ATTEMPT)
    a, b = parts[0], parts[1]
    assert send(api, aid, qid, a["name"], correct_text(a), "a1").status_code == 201
    assert hint(api, aid, qid, b["name"]).status_code == 200
    assert send(api, aid, qid, b["name"], correct_text(b), "b1").status_code == 201
    assert api.post(f"/api/attempts/{aid}/finish/").status_code == 200
    evidence = dict(Response.objects.filter(attempt_id=aid).values_list("part", "evidence"))
    assert evidence == {a["name"]: True, b["name"]: False}
    assert set(MasteryEvent.objects.values_list("response__part", flat=True)) == {a["name"]}


def test_the_total_is_counted_when_drawn_and_never_again(api, monkeypatch):
    """A question drawn for a quiz with hints keeps its hint count; reads and answers
    show it without cutting the hints again. An exam's questions keep none."""
    from assess.selectors import hints as hint_selectors

    aid, qid, parts = start(api, mode=Quiz.Mode.PRACTICE)
    assert Question.objects.get(pk=qid).hint_total == 3
    _, exam_qid, _ = start(api, mode=Quiz.Mode.EXAM)
    assert Question.objects.get(pk=exam_qid).hint_total is None

    monkeypatch.setattr(hint_selectors, "hints_for", lambda v: pytest.fail("hints cut again"))
    hint_selectors._hints.cache_clear()
    assert question_read(api, aid, qid)["hints"]["total"] == 3
    r = send(api, aid, qid, parts[0]["name"], wrong_text(parts[0]), "k1")
    assert r.status_code == 201, r.content
    assert r.json()["question_state"]["hints"]["total"] == 3


def test_a_question_stored_without_its_total_is_counted_when_read(api):
    aid, qid, _ = start(api, mode=Quiz.Mode.PRACTICE)
    Question.objects.filter(pk=qid).update(hint_total=None)
    assert question_read(api, aid, qid)["hints"]["total"] == 3
