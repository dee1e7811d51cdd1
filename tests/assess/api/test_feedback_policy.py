"""The one feedback policy, walked through the API in every mode and feedback setting.

Immediate feedback: each try is told right or wrong with its misconception; a part's
answer (and, once every part is closed, the worked solution) shows after a correct try,
the last allowed try or a reveal, and when the attempt is over. Deferred feedback:
nothing about correctness, no answer, no solution, no score until the grades are
released (the finish for after_attempt, the quiz's close for after_close).

"Shows nothing" is checked on the JSON text of every body (start, GET attempt, submit
result, finish), for the value in many spellings, not only on the `answer` key.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from assess.models import Quiz
from tests.assess.helpers import (
    assert_hidden,
    assert_shown,
    correct_text,
    misconception_text,
    parts_of,
    reveal,
    rows_of,
    send,
    wrong_text,
)
from tests.factories import CourseFactory, CourseRoleFactory, EnrolmentFactory, QuizFactory

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.assess.urls")]

NULLS = ("correct", "score", "feedback", "misconception")

MODES = [
    pytest.param(Quiz.Mode.PRACTICE, "immediately", None, id="practice-immediately"),
    pytest.param(Quiz.Mode.HOMEWORK, "immediately", 3, id="homework-immediately-3-tries"),
    pytest.param(Quiz.Mode.HOMEWORK, "after_attempt", None, id="homework-after_attempt"),
    pytest.param(Quiz.Mode.EXAM, "after_attempt", None, id="exam-after_attempt"),
    pytest.param(Quiz.Mode.EXAM, "after_close", None, id="exam-after_close"),
    pytest.param(Quiz.Mode.CERTIFICATION, "after_attempt", None, id="certification"),
]


def make_quiz(mode, feedback, tries, **kw) -> Quiz:
    if feedback == "after_close":
        kw.setdefault("closes_at", timezone.now() + timedelta(hours=1))
    return QuizFactory(
        mode=mode,
        feedback=feedback,
        tries_per_part=tries,
        slots=[["weights-memory"], ["gb-gib"]],
        **kw,
    )


def start(api, quiz) -> dict:
    r = api.post(f"/api/quizzes/{quiz.pk}/attempts/")
    assert r.status_code == 201, r.content
    return r.json()


def get(api, attempt_id: int) -> dict:
    r = api.get(f"/api/attempts/{attempt_id}/")
    assert r.status_code == 200, r.content
    return r.json()


def question_of(body: dict, qid: int) -> dict:
    return next(q for q in body["questions"] if q["id"] == qid)


def solutions(question: dict) -> tuple[str | None, str | None]:
    """The worked solution as HTML and as Markdown: both shown, or both null."""
    html, markdown = question["solution_html"], question["solution_markdown"]
    assert (html is None) == (markdown is None), question
    return html, markdown


def assert_grades_hidden(body: dict) -> None:
    """A review with nothing about correctness: no score, no pass, no per-try grade."""
    assert body["feedback_visible"] is False
    assert body["score"] is None and body["points"] is None and body["passed"] is None
    for q in body["questions"]:
        assert q["score"] is None and q["can_reveal"] is False
        assert solutions(q) == (None, None)
        for part in q["parts"]:
            assert part["answer"] is None and part["status"]["score"] is None
            assert part["status"]["closed"] is None and part["status"]["tries_left"] is None
        for response in q["responses"]:
            assert all(response[k] is None for k in NULLS), response


@pytest.mark.parametrize(("mode", "feedback", "tries"), MODES)
def test_every_mode_and_feedback_setting(api, mode, feedback, tries):
    immediate = feedback == "immediately"
    quiz = make_quiz(mode, feedback, tries)
    body = start(api, quiz)
    aid = body["id"]
    q1, q2 = (q["id"] for q in body["questions"])
    weights, converted = parts_of(q1)[0], parts_of(q2)[0]
    assert weights["name"] == "weights" and converted["name"] == "converted"

    # Before any answer: neither the start body nor the review carries a value.
    for qid in (q1, q2):
        assert_hidden(body, qid)
    review = get(api, aid)
    for qid in (q1, q2):
        assert_hidden(review, qid)
    if not immediate:
        assert_grades_hidden(review)

    # A wrong try, the GB/GiB slip.
    r = send(api, aid, q1, "weights", misconception_text(weights), "slip")
    assert r.status_code == 201, r.content
    slip = r.json()
    assert_hidden(slip, q1)
    review = get(api, aid)
    assert_hidden(review, q1)
    assert_hidden(review, q2)
    if immediate:
        assert slip["correct"] is False and slip["score"] == 0.0
        assert slip["misconception"] == "gb-vs-gib" and "GiB" in slip["feedback"]
        status = slip["question_state"]["parts"][0]["status"]
        assert status == {
            "tries": 1,
            "tries_left": None if tries is None else tries - 1,
            "closed": None,
            "accepts_answers": True,
            "score": 0.0,
            "hints_used": 0,
            "can_hint": True,  # practice and homework offer hints on an open part
        }
        assert slip["question_state"]["score"] == 0.0
        assert slip["question_state"]["can_reveal"] is True
        [stored] = question_of(review, q1)["responses"]
        assert (stored["correct"], stored["misconception"]) == (False, "gb-vs-gib")
        assert review["feedback_visible"] is True
    else:
        assert all(slip[k] is None for k in NULLS), slip
        assert slip["question_state"]["score"] is None
        assert slip["question_state"]["can_reveal"] is False
        assert slip["question_state"]["parts"][0]["status"]["score"] is None
        assert_grades_hidden(review)
        # No reveal before the grades: 409, and still nothing shows.
        assert reveal(api, aid, q1, "weights").status_code == 409
        assert_hidden(get(api, aid), q1)

    # The right answer.
    r = send(api, aid, q1, "weights", correct_text(weights), "right")
    assert r.status_code == 201, r.content
    right = r.json()
    review = get(api, aid)
    assert_hidden(review, q2)  # the other question stays as it was
    if immediate:
        assert right["correct"] is True and right["score"] == 1.0
        assert_shown(right, q1, "weights")
        assert all(solutions(right["question_state"]))
        status = right["question_state"]["parts"][0]["status"]
        assert status["closed"] == "solved" and status["accepts_answers"] is False
        assert_shown(review, q1, "weights")
        assert all(solutions(question_of(review, q1)))
        assert question_of(review, q1)["score"] == 1.0
    else:
        assert all(right[k] is None for k in NULLS), right
        assert_hidden(right, q1)
        assert_hidden(review, q1)
        assert_grades_hidden(review)
        listed = rows_of(api.get(f"/api/quizzes/{quiz.pk}/attempts/"))
        assert [(a["score"], a["passed"]) for a in listed] == [(None, None)]

    r = api.post(f"/api/attempts/{aid}/finish/")
    assert r.status_code == 200, r.content
    done = r.json()
    if feedback == "after_close":
        # Finished, but others may still be taking it: nothing until the close.
        for body_ in (done, get(api, aid)):
            assert_grades_hidden(body_)
            assert_hidden(body_, q1)
            assert_hidden(body_, q2)
        listed = rows_of(api.get(f"/api/quizzes/{quiz.pk}/attempts/"))
        assert [(a["score"], a["passed"]) for a in listed] == [(None, None)]
        Quiz.objects.filter(pk=quiz.pk).update(closes_at=timezone.now() - timedelta(seconds=1))
        done = get(api, aid)

    # The grades are released: everything shows, both tries graded.
    assert done["feedback_visible"] is True
    assert done["score"] == 0.5 and done["passed"] is True
    assert_shown(done, q1, "weights")
    assert_shown(done, q2, "converted")  # unanswered, but the attempt is over
    for qid in (q1, q2):
        assert all(solutions(question_of(done, qid)))
    graded = [(x["correct"], x["misconception"]) for x in question_of(done, q1)["responses"]]
    assert graded == [(False, "gb-vs-gib"), (True, None)]
    listed = rows_of(api.get(f"/api/quizzes/{quiz.pk}/attempts/"))
    assert [(a["score"], a["passed"]) for a in listed] == [(0.5, True)]


@pytest.mark.parametrize(("mode", "feedback", "tries"), MODES)
def test_a_wrong_try_never_shows_the_answer(api, mode, feedback, tries):
    """A plain wrong answer (no named slip) in every mode: the value stays hidden."""
    body = start(api, make_quiz(mode, feedback, tries))
    qid = body["questions"][1]["id"]
    part = parts_of(qid)[0]
    r = send(api, body["id"], qid, part["name"], wrong_text(part), "w")
    assert r.status_code == 201
    assert_hidden(r.json(), qid)
    assert_hidden(get(api, body["id"]), qid)
    assert r.json()["correct"] is (False if feedback == "immediately" else None)


def test_the_solution_waits_for_every_part(api):
    """A three-part question: each closed part shows its own answer; the worked
    solution (which gives every value) only once all three are closed."""
    quiz = QuizFactory(mode=Quiz.Mode.HOMEWORK, tries_per_part=2, slots=[["roofline-attainable"]])
    body = start(api, quiz)
    aid, qid = body["id"], body["questions"][0]["id"]
    parts = {p["name"]: p for p in parts_of(qid)}
    assert list(parts) == ["intensity", "attainable", "bound"]

    r = send(api, aid, qid, "intensity", correct_text(parts["intensity"]), "i")
    state = r.json()
    assert_shown(state, qid, "intensity")
    assert_hidden(state, qid, parts=("attainable", "bound"))
    assert solutions(state["question_state"]) == (None, None)

    shown = reveal(api, aid, qid, "attainable")
    assert shown.status_code == 200, shown.content
    revealed = shown.json()
    assert revealed["id"] == qid
    [attainable] = [p for p in revealed["parts"] if p["name"] == "attainable"]
    assert attainable["answer"] == {
        "value": parts["attainable"]["value"],
        "unit": parts["attainable"]["unit"],
    }
    assert attainable["status"]["closed"] == "revealed"
    assert solutions(revealed) == (None, None)  # "bound" is still open
    review = get(api, aid)
    assert_shown(review, qid, "intensity")
    assert_shown(review, qid, "attainable")
    assert solutions(question_of(review, qid)) == (None, None)
    assert question_of(review, qid)["can_reveal"] is True

    bound = parts["bound"]
    first = send(api, aid, qid, "bound", wrong_text(bound), "b1").json()
    [b] = [p for p in first["question_state"]["parts"] if p["name"] == "bound"]
    assert b["answer"] is None and b["status"]["tries_left"] == 1
    assert solutions(first["question_state"]) == (None, None)
    last = send(api, aid, qid, "bound", wrong_text(bound), "b2").json()
    assert last["correct"] is False
    # Its last allowed try closes it: the answer and, every part closed, the solution.
    assert_shown(last, qid, "bound")
    [b] = [p for p in last["question_state"]["parts"] if p["name"] == "bound"]
    assert b["status"]["closed"] == "exhausted" and b["status"]["tries_left"] == 0
    assert all(solutions(last["question_state"]))
    assert last["question_state"]["can_reveal"] is False
    review = get(api, aid)
    assert all(solutions(question_of(review, qid)))
    # One of three parts earned credit (a reveal earns none).
    assert question_of(review, qid)["score"] == pytest.approx(1 / 3)


def test_finishing_an_immediate_quiz_shows_every_answer(api):
    body = start(api, make_quiz(Quiz.Mode.HOMEWORK, "immediately", 3))
    aid = body["id"]
    q1, q2 = (q["id"] for q in body["questions"])
    send(api, aid, q1, "weights", wrong_text(parts_of(q1)[0]), "w")
    review = get(api, aid)
    assert_hidden(review, q1)
    assert_hidden(review, q2)
    done = api.post(f"/api/attempts/{aid}/finish/").json()
    assert_shown(done, q1, "weights")
    assert_shown(done, q2, "converted")
    assert all(all(solutions(q)) for q in done["questions"])
    assert done["score"] == 0.0


def test_a_replay_of_an_exam_answer_shows_no_grade(api):
    body = start(api, make_quiz(Quiz.Mode.EXAM, "after_attempt", None))
    aid, qid = body["id"], body["questions"][0]["id"]
    part = parts_of(qid)[0]
    first = send(api, aid, qid, "weights", correct_text(part), "k")
    again = send(api, aid, qid, "weights", correct_text(part), "k")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert all(again.json()[k] is None for k in NULLS)
    assert_hidden(again.json(), qid)


def test_instructors_see_a_running_exam_in_full(client_for, learner):
    course = CourseFactory()
    EnrolmentFactory(user=learner, course=course)
    teacher = client_for(CourseRoleFactory(course=course).user)
    quiz = make_quiz(Quiz.Mode.EXAM, "after_attempt", None, course=course)
    api = client_for(learner)
    body = start(api, quiz)
    aid, qid = body["id"], body["questions"][0]["id"]
    send(api, aid, qid, "weights", wrong_text(parts_of(qid)[0]), "w")
    assert_hidden(get(api, aid), qid)
    seen = get(teacher, aid)
    assert seen["feedback_visible"] is True
    assert_shown(seen, qid, "weights")
    assert question_of(seen, qid)["responses"][0]["correct"] is False


@pytest.mark.parametrize(
    ("mode", "feedback", "tries"),
    [
        ("practice", "immediately", None),
        ("homework", "immediately", 3),
        ("exam", "after_attempt", None),
        ("certification", "after_attempt", None),
    ],
)
def test_quiz_creation_defaults(client_for, staff, mode, feedback, tries):
    r = client_for(staff).post(
        "/api/quizzes/",
        {"title": "Q", "mode": mode, "slots": [{"templates": ["gb-gib"]}]},
        format="json",
    )
    assert r.status_code == 201, r.content
    body = r.json()
    assert (body["feedback"], body["tries_per_part"], body["penalty_per_try"]) == (
        feedback,
        tries,
        0.0,
    )
