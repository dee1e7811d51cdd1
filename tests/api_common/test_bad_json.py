"""Unreadable or too deeply nested JSON is a 400 in the API's error format on every
endpoint (a `client_error` with code `parse_error`), never a 500 (api_common/parsers.py);
ordinary JSON still works."""

import io

import pytest
from rest_framework.exceptions import ParseError
from rest_framework.test import APIClient

from api_common.parsers import MAX_DEPTH, JSONParser, json_depth
from tests.factories import PASSWORD, QuizFactory, UserFactory

pytestmark = pytest.mark.django_db


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


BAD_BODIES = {
    "nested-20000": nested(20_000),
    "nested-100": nested(100),
    "nested-objects-100": '{"a":' * 100 + "1" + "}" * 100,
    "truncated": '{"username": "learner", ',
    "not-utf8": b'{"username": "\xff\xfe"}',
    "lone-surrogate": '{"username": "a\\ud800"}',
    "lone-surrogate-key": '{"\\udfff": "x", "username": "learner"}',
    "lone-surrogate-nested": '{"slots": [{"templates": ["\\udbff"]}]}',
    "nan-literal": '{"pass_mark": NaN}',
    "infinity-literal": '{"pass_mark": -Infinity}',
    "5000-digit-integer": '{"question": 1' + "0" * 5000 + "}",
}


@pytest.fixture
def learner(db):
    return UserFactory(username="learner")


@pytest.fixture
def attempt(learner) -> dict:
    """The learner's attempt at a one-question practice quiz, as the API started it."""
    quiz = QuizFactory(slots=[["gb-gib"]])
    client = APIClient()
    client.force_authenticate(learner)
    response = client.post(f"/api/quizzes/{quiz.pk}/attempts/")
    assert response.status_code == 201, response.content
    return response.json()


def post_raw(client: APIClient, url: str, body) -> object:
    return client.generic("POST", url, body, content_type="application/json")


def assert_400_with_detail(response):
    assert response.status_code == 400, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["type"] == "client_error", body
    [error] = body["errors"]
    assert (error["code"], error["attr"]) == ("parse_error", None)
    assert "JSON parse error" in error["detail"]


@pytest.mark.parametrize("body", BAD_BODIES.values(), ids=BAD_BODIES.keys())
def test_token_endpoint_unauthenticated(body):
    assert_400_with_detail(post_raw(APIClient(), "/api/auth/token/", body))


@pytest.mark.parametrize("body", BAD_BODIES.values(), ids=BAD_BODIES.keys())
def test_quiz_create_as_staff(staff, body):
    client = APIClient()
    client.force_authenticate(staff)
    assert_400_with_detail(post_raw(client, "/api/quizzes/", body))


@pytest.mark.parametrize("body", BAD_BODIES.values(), ids=BAD_BODIES.keys())
def test_response_submission(learner, attempt, body):
    client = APIClient()
    client.force_authenticate(learner)
    assert_400_with_detail(post_raw(client, f"/api/attempts/{attempt['id']}/responses/", body))


def test_ordinary_json_still_works(staff, learner, attempt):
    token = APIClient().post(
        "/api/auth/token/", {"username": "learner", "password": PASSWORD}, format="json"
    )
    assert token.status_code == 200 and token.json()["token"]

    client = APIClient()
    client.force_authenticate(staff)
    quiz = client.post(
        "/api/quizzes/",
        {"title": "Units", "mode": "practice", "slots": [{"templates": ["gb-gib"]}]},
        format="json",
    )
    assert quiz.status_code == 201, quiz.content

    client.force_authenticate(learner)
    question = attempt["questions"][0]
    answer = client.post(
        f"/api/attempts/{attempt['id']}/responses/",
        {
            "question": question["id"],
            "part": question["parts"][0]["name"],
            "answer": "1 GB",
            "idempotency_key": "ordinary-json-1",
        },
        format="json",
    )
    assert answer.status_code in (200, 201), answer.content


def test_the_token_endpoint_still_reads_forms():
    UserFactory(username="learner")
    token = APIClient().post("/api/auth/token/", {"username": "learner", "password": PASSWORD})
    assert token.status_code == 200 and token.json()["token"]


def parse(text: str):
    return JSONParser().parse(io.BytesIO(text.encode()), "application/json", {})


def test_the_limit_is_exact():
    assert parse(nested(MAX_DEPTH)) == parse(nested(MAX_DEPTH))
    assert json_depth(parse(nested(MAX_DEPTH))) == MAX_DEPTH
    with pytest.raises(ParseError, match=f"deeper than {MAX_DEPTH}"):
        parse(nested(MAX_DEPTH + 1))
    wide = '{"a": [1, {"b": [2, 3]}], "c": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}'
    assert json_depth(parse(wide)) == 4  # brackets inside strings are text, not depth


def test_a_paired_surrogate_is_text():
    """An escaped pair is one astral character, which is text: only a lone half is refused."""
    assert parse('{"a": "\\ud83d\\ude00"}') == {"a": "\U0001f600"}
    with pytest.raises(ParseError, match="lone surrogate"):
        parse('{"a": "\\ud83d"}')


def test_json_depth():
    assert json_depth(1) == 0
    assert json_depth([]) == 1
    assert json_depth({"a": {"b": []}, "c": 1}) == 3


def drf_views(patterns, prefix=""):
    from django.urls import URLPattern, URLResolver

    for entry in patterns:
        if isinstance(entry, URLResolver):
            yield from drf_views(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern) and hasattr(entry.callback, "cls"):
            yield prefix + str(entry.pattern), entry.callback.cls


def test_every_drf_view_reads_json_with_the_safe_parser():
    from django.urls import get_resolver

    views = list(drf_views(get_resolver().url_patterns))
    assert any(route == "api/auth/token/" for route, _ in views)
    for route, cls in views:
        for parser in cls.parser_classes:
            if "json" in (parser.media_type or ""):
                assert issubclass(parser, JSONParser), (route, parser)
