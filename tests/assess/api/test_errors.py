"""One error format for every error of the API, with the status that says what happened:
401 without credentials (with WWW-Authenticate), 403 signed in but not allowed, 404 for
what is not there or not yours (JSON for every /api/ path, also one no route matches),
405 for a wrong method, 406 for an unknown API version. Every error here is also what
the schema documents for its operation, body included.

These run on the project's own URLconf (config.urls), whose catch-all answers the paths
that no API route matches.
"""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from assess.models import Quiz
from assess.services.quizzes import MAX_POOL_ENTRIES
from problems.engine import registry
from tests.assess.helpers import error_attrs, error_body, error_of, parts_of, send
from tests.factories import CourseFactory, LessonFactory, QuizFactory
from tests.openapi import assert_documented

pytestmark = pytest.mark.django_db


@pytest.fixture
def attempt(api) -> dict:
    r = api.post(f"/api/quizzes/{QuizFactory(slots=[['gb-gib']]).pk}/attempts/")
    assert r.status_code == 201, r.content
    return r.json()


# ------------------------------------------------------------------ 401 vs 403 vs 404


@pytest.mark.parametrize(
    ("method", "path", "url"),
    [
        ("get", "/api/quizzes/", "/api/quizzes/"),
        ("post", "/api/quizzes/", "/api/quizzes/"),
        ("get", "/api/attempts/{id}/", "/api/attempts/1/"),
        ("post", "/api/attempts/{id}/responses/", "/api/attempts/1/responses/"),
        ("get", "/api/me/mastery/", "/api/me/mastery/"),
        ("post", "/api/courses/{slug}/enrol/", "/api/courses/any/enrol/"),
        ("post", "/api/lessons/{slug}/practice/", "/api/lessons/any/practice/"),
    ],
)
def test_no_credentials_is_401_with_www_authenticate(method, path, url):
    r = getattr(APIClient(), method)(url, {}, format="json")
    assert error_of(r, 401)["code"] == "not_authenticated"
    assert r["WWW-Authenticate"] == "Token"
    assert_documented(r, method, path)


def test_a_bad_token_is_401():
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    r = client.get("/api/me/mastery/")
    assert error_of(r, 401)["code"] == "authentication_failed"
    assert_documented(r, "get", "/api/me/mastery/")


def test_a_stale_token_does_not_block_signing_in(learner):
    """The token endpoint authenticates nobody: a stale header is no 401 there."""
    from tests.factories import PASSWORD

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token stale")
    r = client.post(
        "/api/auth/token/", {"username": "learner", "password": PASSWORD}, format="json"
    )
    assert r.status_code == 200 and r.json()["token"]
    assert_documented(r, "post", "/api/auth/token/")


def test_signed_in_but_not_allowed_is_403(api):
    r = api.post(
        "/api/quizzes/",
        {"title": "T", "mode": "practice", "slots": [{"templates": ["gb-gib"]}]},
        format="json",
    )
    assert error_of(r, 403)["code"] == "permission_denied"
    assert_documented(r, "post", "/api/quizzes/")

    closed = CourseFactory(slug="invite-only", self_enrol=False)
    r = api.post(f"/api/courses/{closed.slug}/enrol/")
    assert error_of(r, 403)["code"] == "permission_denied"
    assert_documented(r, "post", "/api/courses/{slug}/enrol/")

    LessonFactory(slug="secret", module__course=closed, templates=["gb-gib"])
    r = api.post("/api/lessons/secret/practice/")
    assert error_of(r, 403)["code"] == "permission_denied"
    assert_documented(r, "post", "/api/lessons/{slug}/practice/")


def test_what_is_not_yours_is_404_not_403(api, client_for, other_learner, attempt):
    other = client_for(other_learner)
    for method, path, url in [
        ("get", "/api/attempts/{id}/", f"/api/attempts/{attempt['id']}/"),
        ("post", "/api/attempts/{id}/finish/", f"/api/attempts/{attempt['id']}/finish/"),
    ]:
        r = getattr(other, method)(url)
        assert error_of(r, 404)["code"] == "not_found"
        assert_documented(r, method, path)


@pytest.mark.parametrize(
    ("method", "path", "url"),
    [
        ("get", "/api/quizzes/{id}/", "/api/quizzes/999999/"),
        ("post", "/api/quizzes/{id}/attempts/", "/api/quizzes/999999/attempts/"),
        ("get", "/api/attempts/{id}/", "/api/attempts/999999/"),
        ("post", "/api/courses/{slug}/enrol/", "/api/courses/no-such-course/enrol/"),
        ("get", "/api/courses/{slug}/enrolments/", "/api/courses/no-such-course/enrolments/"),
        ("post", "/api/lessons/{slug}/practice/", "/api/lessons/no-such-lesson/practice/"),
    ],
)
def test_a_missing_path_object_is_404(api, method, path, url):
    r = getattr(api, method)(url)
    assert error_of(r, 404)["code"] == "not_found"
    assert_documented(r, method, path)


@pytest.mark.parametrize(
    "url", ["/api/attempts/abc/", "/api/nope/", "/api/quizzes/1/nothing/", "/api"]
)
@pytest.mark.parametrize("method", ["get", "post", "delete"])
def test_unrouted_api_paths_are_json_404(api, url, method):
    r = getattr(api, method)(url)
    assert error_of(r, 404)["code"] == "not_found"


def test_anonymous_unrouted_paths_are_json_404_too():
    assert error_of(APIClient().get("/api/attempts/abc/"), 404)["code"] == "not_found"


@pytest.mark.parametrize(
    ("method", "path", "url"),
    [
        ("delete", "/api/quizzes/", "/api/quizzes/"),
        ("put", "/api/me/mastery/", "/api/me/mastery/"),
        ("get", "/api/attempts/{id}/responses/", "/api/attempts/1/responses/"),
        ("get", "/api/auth/token/", "/api/auth/token/"),
    ],
)
def test_a_wrong_method_is_json_405(api, method, path, url):
    r = getattr(api, method)(url)
    assert error_of(r, 405)["code"] == "method_not_allowed"
    documented = path in ("/api/quizzes/", "/api/me/mastery/")  # the operations that exist
    if documented:
        assert_documented(r, "get", path)


# ------------------------------------------------------------------- the 4xx of answers


def test_every_error_of_an_answer_is_documented(api, attempt):
    aid, qid = attempt["id"], attempt["questions"][0]["id"]
    part = parts_of(qid)[0]
    path = "/api/attempts/{id}/responses/"

    unreadable = send(api, aid, qid, "converted", "about a lot", "u")
    assert unreadable.json()["valid"] is False
    assert error_of(unreadable, 400)["code"] == "unreadable_answer"
    invalid = api.post(
        f"/api/attempts/{aid}/responses/",
        {"question": qid, "part": "", "answer": "1", "idempotency_key": ""},
        format="json",
    )
    assert error_attrs(invalid) == {"part", "idempotency_key"}
    unknown_part = send(api, aid, qid, "nope", "1", "p")
    assert error_attrs(unknown_part) == {"part"}
    first = send(api, aid, qid, "converted", f"{part['value']!r} {part['unit']}", "k")
    replay = send(api, aid, qid, "converted", f"{part['value']!r} {part['unit']}", "k")
    reused = send(api, aid, qid, "converted", "1 GB", "k")
    solved = send(api, aid, qid, "converted", "1 GB", "k2")
    assert error_of(reused, 422)["code"] == "idempotency_key_reused"
    assert error_of(solved, 409)["code"] == "conflict"
    for r in (unreadable, invalid, unknown_part, first, replay, reused, solved):
        assert_documented(r, "post", path)
    assert [first.status_code, replay.status_code] == [201, 200]


def test_nested_field_errors_name_their_path(client_for, staff):
    admin = client_for(staff)
    slots = [{"templates": ["gb-gib"]}, {"templates": ["gb-gib", "x" * 65], "points": 0}]
    r = admin.post(
        "/api/quizzes/", {"title": "T", "mode": "practice", "slots": slots}, format="json"
    )
    assert error_attrs(r) == {"slots.1.points", "slots.1.templates.1"}
    assert_documented(r, "post", "/api/quizzes/")
    r = admin.post(
        "/api/quizzes/", {"title": "T", "mode": "exam", "slots": [None, "x"]}, format="json"
    )
    assert error_attrs(r) == {"slots.0", "slots.1.non_field_errors"}
    assert_documented(r, "post", "/api/quizzes/")
    for slots in ([], [{"templates": ["gb-gib"]}] * 101, "three"):
        r = admin.post(
            "/api/quizzes/", {"title": "T", "mode": "exam", "slots": slots}, format="json"
        )
        assert error_attrs(r) == {"slots"}
        assert_documented(r, "post", "/api/quizzes/")
    # What only the service can check is named the same way, with code `invalid`.
    body = {
        "title": "T",
        "mode": "exam",
        "feedback": "immediately",
        "slots": [{"templates": ["nope"]}],
    }
    r = admin.post("/api/quizzes/", body, format="json")
    assert error_attrs(r) == {"slots", "feedback"}
    assert_documented(r, "post", "/api/quizzes/")
    assert not Quiz.objects.exists()


def test_bad_credentials_and_bad_json_are_documented_400s(learner):
    client = APIClient()
    r = client.post("/api/auth/token/", {"username": "learner", "password": "no"}, format="json")
    assert error_of(r, 400)["code"] == "authorization"
    assert_documented(r, "post", "/api/auth/token/")
    r = client.post("/api/auth/token/", {"username": "", "password": "x"}, format="json")
    assert error_attrs(r) == {"username"}
    assert_documented(r, "post", "/api/auth/token/")
    r = client.generic("POST", "/api/auth/token/", "{", content_type="application/json")
    assert error_of(r, 400)["code"] == "parse_error"
    assert_documented(r, "post", "/api/auth/token/")


def test_a_body_that_is_not_json_is_415(api, attempt):
    r = api.generic(
        "POST", f"/api/attempts/{attempt['id']}/responses/", "a=1", content_type="text/plain"
    )
    assert error_of(r, 415)["code"] == "unsupported_media_type"
    assert_documented(r, "post", "/api/attempts/{id}/responses/")


# -------------------------------------------------------------------------- versions


@pytest.mark.parametrize("accept", ["application/json", "application/json; version=1", "*/*"])
def test_version_1_is_served(api, accept):
    r = api.get("/api/me/mastery/", HTTP_ACCEPT=accept)
    assert r.status_code == 200 and r.json() == {"skills": [], "lessons": []}


@pytest.mark.parametrize("url", ["/api/me/mastery/", "/api/quizzes/"])
def test_an_unknown_version_is_406(api, url):
    r = api.get(url, HTTP_ACCEPT="application/json; version=2")
    error = error_of(r, 406)
    assert error["code"] == "not_acceptable" and "version" in error["detail"]
    assert_documented(r, "get", url)


def test_an_unknown_version_is_406_for_the_token_endpoint_too(learner):
    r = APIClient().post(
        "/api/auth/token/",
        {"username": "learner", "password": "x"},
        format="json",
        HTTP_ACCEPT="application/json; version=2",
    )
    assert error_of(r, 406)["code"] == "not_acceptable"


def test_every_error_body_has_type_and_errors(api, attempt):
    """A sweep of error statuses: each body is the one format, nothing else."""
    responses = [
        APIClient().get("/api/quizzes/"),
        api.get("/api/attempts/999999/"),
        api.delete("/api/quizzes/"),
        api.get("/api/quizzes/", HTTP_ACCEPT="application/json; version=9"),
        api.post(f"/api/attempts/{attempt['id']}/responses/", {}, format="json"),
        api.get("/api/quizzes/?page=99"),
    ]
    for r in responses:
        body = error_body(r, r.status_code)
        assert 400 <= r.status_code < 500 and body["type"] in ("client_error", "validation_error")


def test_too_many_templates_across_slots_is_a_400_on_slots(client_for, staff):
    """The schema names the bound (MAX_POOL_ENTRIES); past it the service refuses before
    looking any template up."""
    slugs = registry.slugs()[:100]
    slots = [{"templates": slugs}] * (MAX_POOL_ENTRIES // 100 + 1)
    r = client_for(staff).post(
        "/api/quizzes/", {"title": "T", "mode": "exam", "slots": slots}, format="json"
    )
    assert error_of(r, 400, attr="slots")["code"] == "invalid"
    assert f"at most {MAX_POOL_ENTRIES} templates" in error_of(r, 400, attr="slots")["detail"]
    assert_documented(r, "post", "/api/quizzes/")
    assert not Quiz.objects.exists()
