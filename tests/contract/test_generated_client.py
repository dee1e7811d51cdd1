"""The REST API as a contract (issue #10): a Python client generated from the live schema
by openapi-python-client drives the API, with no hand-written HTTP.

Every call goes through `api.call` (tests/contract/generated.py): the generated module
builds and sends the request and parses the answer, and the raw response is validated
against the schema with jsonschema (status documented, content type documented, body
valid). Each test then asserts the status and the generated model it parsed into.

Sign-in is its own test; the others start from tokens issued behind the API
(tests/contract/backstage.py), so a broken token endpoint does not hide what else breaks.
"""

from __future__ import annotations

import importlib
import json
import sys
import uuid

import pytest

from tests.assess.helpers import correct_text
from tests.contract.generated import module_names

pytestmark = pytest.mark.timeout(300)


def page_of(api, response, item_model: str, status: int = 200) -> list:
    """A paginated list ({count, next, previous, results}) of item_model: its results."""
    page = api.expect(response, status, f"Paginated{item_model}List")
    assert all(type(item).__name__ == item_model for item in page.results), page.results
    assert page.count == len(page.results) or page.next is not None
    return page.results


def error_of(api, response, status: int) -> dict:
    """An error in the one format: {type, errors: [{code, detail, attr}]}, as JSON."""
    assert int(response.status_code) == status, (response.status_code, response.content)
    assert response.parsed is not None, response.content
    body = response.parsed.to_dict()
    assert body["type"] in {"validation_error", "client_error", "server_error"}, body
    assert body["errors"] and all({"code", "detail", "attr"} <= set(e) for e in body["errors"])
    return body


# ------------------------------------------------------------------------- generation


def test_generator_gives_no_warnings(generation):
    assert generation.returncode == 0, generation.output
    lines = [line for line in generation.output.splitlines() if line.strip()]
    unexpected = [line for line in lines if not line.startswith("Generating ")]
    assert unexpected == [], generation.output


def test_every_generated_module_imports(generation):
    sys.path.insert(0, str(generation.parent))
    try:
        names = module_names(generation)
        failures = {}
        for name in names:
            try:
                importlib.import_module(name)
            except Exception as exc:  # noqa: BLE001 - every failure is listed
                failures[name] = repr(exc)
    finally:
        sys.path.remove(str(generation.parent))
    assert len(names) > 50
    assert failures == {}


# ---------------------------------------------------------------------------- sign-in


def test_sign_in_gives_a_token_that_authenticates(api, seed):
    username = seed["client"]["usernames"]["learner"]
    body = api.body("auth_token_create", {"username": username, "password": seed["password"]})
    token = api.expect(api.call("auth_token_create", body=body), 200, "Token").token
    assert token == seed["client"]["tokens"]["learner"]
    api.expect(api.call("me_mastery_retrieve", token=token), 200, "Mastery")

    wrong = api.body("auth_token_create", {"username": username, "password": "not-it"})
    error = error_of(api, api.call("auth_token_create", body=wrong), 400)
    assert error["type"] == "validation_error"

    error = error_of(api, api.call("me_mastery_retrieve"), 401)
    assert error["errors"][0]["code"] == "not_authenticated"


# -------------------------------------------------------------- practice and answering


def test_lesson_practice_answers_attempt_and_mastery(api, seed, live_app):
    token = seed["client"]["tokens"]["learner"]
    slug = seed["client"]["practice_lesson"]

    lesson = api.expect(api.call("lessons_retrieve", slug=slug), 200, "LessonDetail")
    assert lesson.slug == slug and lesson.templates

    practice = api.expect(
        api.call("lessons_practice_create", token=token, slug=slug), 201, "PracticeQuestion"
    )
    attempt, question = practice.attempt, practice.question
    assert question.parts and practice.skill in lesson.skills
    part = question.parts[0]
    answer_key = {p["name"]: p for p in json.loads(live_app.backstage("answers", str(question.id)))}
    right = correct_text(answer_key[part.name])

    def answer(text: str, key: str, **extra):
        data = {"question": question.id, "part": part.name, "answer": text}
        body = api.body("attempts_responses_create", {**data, "idempotency_key": key, **extra})
        return api.call("attempts_responses_create", token=token, id=attempt, body=body)

    # Refused input is never stored, so the part stays open for the right answer after it.
    unreadable = error_of(api, answer("twelve bananas", uuid.uuid4().hex), 400)
    assert unreadable["type"] == "validation_error" and unreadable.get("valid") is False
    assert unreadable["errors"][0]["attr"] == "answer"

    invalid = answer(right, uuid.uuid4().hex, time_spent_ms=-1)
    error = error_of(api, invalid, 400)
    assert type(invalid.parsed).__name__ == "AttemptsResponsesCreateValidationError"
    assert [e["attr"] for e in error["errors"]] == ["time_spent_ms"]

    key = uuid.uuid4().hex
    first = api.expect(answer(right, key), 201, "AnswerResult")
    assert (first.valid, first.correct, first.part) == (True, True, part.name)
    replay = api.expect(answer(right, key), 200, "AnswerResult")
    assert (replay.id, replay.correct) == (first.id, True)
    changed = error_of(api, answer(right + "0", key), 422)
    assert changed["type"] == "client_error"

    review = api.expect(
        api.call("attempts_retrieve", token=token, id=attempt), 200, "AttemptReview"
    )
    (shown,) = [q for q in review.questions if q.id == question.id]
    assert [r.id for r in shown.responses] == [first.id]
    (solved,) = [p for p in shown.parts if p.name == part.name]
    assert solved.answer is not None and solved.status.closed == "solved"

    mastery = api.expect(api.call("me_mastery_retrieve", token=token), 200, "Mastery")
    (skill,) = [s for s in mastery.skills if s.skill == practice.skill]
    assert skill.evidence == 1
    assert slug in {row.lesson for row in mastery.lessons}


def test_unknown_attempt_and_lesson_are_json_404s(api, seed):
    token = seed["client"]["tokens"]["learner"]
    error = error_of(api, api.call("attempts_retrieve", token=token, id=2**31), 404)
    assert error["errors"][0]["code"] == "not_found"
    error_of(api, api.call("lessons_retrieve", slug="no-such-lesson"), 404)
    error_of(api, api.call("lessons_practice_create", token=token, slug="no-such-lesson"), 404)


def test_a_path_no_route_matches_is_a_json_404(api, seed):
    """Every /api/ path answers JSON, even one no URL pattern can match (a slug ending in
    a newline, which schemathesis sends)."""
    token = seed["client"]["tokens"]["learner"]
    error_of(api, api.call("courses_retrieve", slug="x\n"), 404)
    error_of(api, api.call("courses_enrol_create", token=token, slug="x\n"), 404)


# ---------------------------------------------------------------------------- hardware


@pytest.mark.parametrize(
    ("kind", "model"),
    [
        ("accelerators", "Accelerator"),
        ("links", "Link"),
        ("servers", "Server"),
        ("models", "ModelArchitecture"),
    ],
)
def test_hardware_lists_and_details(api, seed, kind, model):
    token = seed["client"]["tokens"]["learner"]
    slugs = seed["hardware"][kind]
    listed = page_of(api, api.call(f"hardware_{kind}_list", token=token, page_size=200), model)
    assert sorted(item.slug for item in listed) == slugs
    for slug in slugs:
        item = api.expect(api.call(f"hardware_{kind}_retrieve", slug=slug), 200, model)
        assert item.slug == slug
    error_of(api, api.call(f"hardware_{kind}_retrieve", slug="no-such-thing"), 404)


def test_hardware_filter_by_vendor(api):
    everything = page_of(api, api.call("hardware_accelerators_list", page_size=200), "Accelerator")
    vendor = everything[0].vendor
    some = page_of(
        api, api.call("hardware_accelerators_list", vendor=vendor, page_size=200), "Accelerator"
    )
    assert some and {a.vendor for a in some} == {vendor}


# ------------------------------------------------------------------ courses, enrolment


def test_courses_and_enrolment(api, seed):
    learner = seed["client"]["tokens"]["enrollee"]
    username = seed["client"]["usernames"]["enrollee"]
    instructor = seed["client"]["tokens"]["instructor"]
    course, taught = seed["client"]["enrol_course"], seed["course"]

    courses = page_of(api, api.call("courses_list"), "CourseList")
    assert sorted(c.slug for c in courses) == seed["courses"]
    detail = api.expect(api.call("courses_retrieve", slug=course), 200, "CourseDetail")
    assert detail.modules and detail.modules[0].lessons

    joined = api.expect(
        api.call("courses_enrol_create", token=learner, slug=course), 201, "Enrolment"
    )
    assert (joined.course, joined.username, str(joined.source)) == (course, username, "self")
    api.expect(api.call("courses_enrol_create", token=learner, slug=course), 200, "Enrolment")

    # A course's learners are its instructors' business: 404 for a learner.
    error_of(api, api.call("courses_enrolments_list", token=learner, slug=taught), 404)
    body = api.body("courses_enrolments_create", {"username": username})
    added = api.call("courses_enrolments_create", token=instructor, slug=taught, body=body)
    assert str(api.expect(added, 201, "Enrolment").source) == "instructor"
    rows = page_of(
        api, api.call("courses_enrolments_list", token=instructor, slug=taught), "Enrolment"
    )
    assert username in {row.username for row in rows}
    removed = api.call(
        "courses_enrolments_destroy", token=instructor, slug=taught, username=username
    )
    assert int(removed.status_code) == 204
    gone = api.call("courses_enrolments_destroy", token=instructor, slug=taught, username=username)
    error_of(api, gone, 404)


# ----------------------------------------------------------------------------- quizzes


def test_quiz_creation_and_attempts(api, seed):
    instructor = seed["client"]["tokens"]["instructor"]
    staff = seed["client"]["tokens"]["staff"]
    learner = seed["client"]["tokens"]["taker"]
    course = seed["course"]

    homework = {
        "title": "Contract homework",
        "mode": "homework",
        "course": course,
        "slots": [{"templates": ["weights-memory"], "points": 2}],
        "tries_per_part": 3,
        "pass_mark": 0.6,
    }
    body = api.body("quizzes_create", homework)
    quiz = api.expect(api.call("quizzes_create", token=instructor, body=body), 201, "Quiz")
    assert (quiz.course, str(quiz.mode), quiz.tries_per_part) == (course, "homework", 3)
    assert [(s.order, s.points, s.templates) for s in quiz.slots] == [(1, 2, ["weights-memory"])]

    # Only staff make quizzes outside a course (403 for an instructor); numbers are bounded
    # (400 naming the field).
    open_to_all = {k: v for k, v in homework.items() if k != "course"}
    body = api.body("quizzes_create", open_to_all)
    refused = error_of(api, api.call("quizzes_create", token=instructor, body=body), 403)
    assert refused["errors"][0]["code"] == "permission_denied"
    bounded = api.body("quizzes_create", {**homework, "tries_per_part": 101})
    refused = error_of(api, api.call("quizzes_create", token=instructor, body=bounded), 400)
    assert [e["attr"] for e in refused["errors"]] == ["tries_per_part"]
    body = api.body("quizzes_create", {**open_to_all, "title": "Contract: for everyone"})
    staff_quiz = api.expect(api.call("quizzes_create", token=staff, body=body), 201, "Quiz")
    assert staff_quiz.course is None

    # The learner, enrolled nowhere, sees the staff quiz and not the course's.
    visible = page_of(api, api.call("quizzes_list", token=learner), "Quiz")
    assert staff_quiz.id in {q.id for q in visible} and quiz.id not in {q.id for q in visible}
    error_of(api, api.call("quizzes_retrieve", token=learner, id=quiz.id), 404)
    api.expect(api.call("quizzes_retrieve", token=learner, id=staff_quiz.id), 200, "Quiz")

    started = api.call("quizzes_attempts_create", token=learner, id=staff_quiz.id)
    attempt = api.expect(started, 201, "AttemptStart")
    assert attempt.questions and str(attempt.status) == "open"
    resumed = api.call("quizzes_attempts_create", token=learner, id=staff_quiz.id)
    assert api.expect(resumed, 200, "AttemptStart").id == attempt.id
    mine = page_of(
        api, api.call("quizzes_attempts_list", token=learner, id=staff_quiz.id), "AttemptSummary"
    )
    assert [a.id for a in mine] == [attempt.id]
    finished = api.call("attempts_finish_create", token=learner, id=attempt.id)
    assert str(api.expect(finished, 200, "AttemptReview").status) != "open"
    again = api.call("attempts_finish_create", token=learner, id=attempt.id)
    assert error_of(api, again, 409)["type"] == "client_error"

    # Item analysis: the quiz's instructors and staff; 404 for the learner.
    items = page_of(api, api.call("quizzes_items_list", token=staff, id=staff_quiz.id), "ItemStats")
    assert {i.template for i in items} == {"weights-memory"}
    error_of(api, api.call("quizzes_items_list", token=learner, id=staff_quiz.id), 404)


def test_a_draft_is_published_unpublished_and_closed(api, seed):
    """The lifecycle through the generated client: a draft the learner cannot see,
    published for them, refused back to draft once they started it (409), closed."""
    staff = seed["client"]["tokens"]["staff"]
    learner = seed["client"]["tokens"]["learner"]
    draft = {
        "title": "Contract: a draft",
        "mode": "practice",
        "status": "draft",
        "slots": [{"templates": ["weights-memory"]}],
    }
    body = api.body("quizzes_create", draft)
    quiz = api.expect(api.call("quizzes_create", token=staff, body=body), 201, "Quiz")
    assert str(quiz.status) == "draft"
    error_of(api, api.call("quizzes_retrieve", token=learner, id=quiz.id), 404)
    error_of(api, api.call("quizzes_attempts_create", token=learner, id=quiz.id), 404)

    published = api.call("quizzes_publish_create", token=staff, id=quiz.id)
    assert str(api.expect(published, 200, "Quiz").status) == "published"
    seen = api.call("quizzes_retrieve", token=learner, id=quiz.id)
    assert str(api.expect(seen, 200, "Quiz").status) == "published"
    started = api.call("quizzes_attempts_create", token=learner, id=quiz.id)
    api.expect(started, 201, "AttemptStart")

    refused = error_of(api, api.call("quizzes_unpublish_create", token=staff, id=quiz.id), 409)
    assert refused["errors"][0]["code"] == "conflict"
    error_of(api, api.call("quizzes_close_create", token=learner, id=quiz.id), 404)
    closed = api.call("quizzes_close_create", token=staff, id=quiz.id)
    assert str(api.expect(closed, 200, "Quiz").status) == "closed"
    error_of(api, api.call("quizzes_attempts_create", token=learner, id=quiz.id), 409)
