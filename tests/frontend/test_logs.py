"""Structured logs (issue 44, item 3): over a scripted session (sign in with a password,
API calls with a token, an answer, a memo), every request gives exactly one JSON line
with its request id, route, status, duration and user id; a task the request queued logs
the same request id; and no line carries the password, the token, the answer's text, the
memo's text or the email address."""

from __future__ import annotations

import io
import json
import logging

import pytest
import structlog
from django.utils.functional import SimpleLazyObject
from rest_framework.authtoken.models import Token

from capstone.services import CAPSTONE_COURSE
from config.logging import formatter
from config.request_log import RequestLogMiddleware, request_id_of
from config.task_signals import _carry_request_id
from tests.factories import PASSWORD, CourseFactory, QuizFactory, UserFactory

pytestmark = pytest.mark.django_db
EMAIL = "sentinel.person@example.org"
ANSWER = "271828.18284 GB"
MEMO = "Sentinel capacity memo: 97531 H100s for the cluster."


@pytest.fixture
def lines():
    """Every log line, as the JSON renderer writes it, while the test runs."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatter("json"))
    root = logging.getLogger()
    root.addHandler(handler)
    old = root.level
    root.setLevel(logging.INFO)
    yield lambda: stream.getvalue().splitlines()
    root.removeHandler(handler)
    root.setLevel(old)


def _session(client) -> tuple[list, int]:
    from assess.services.attempts import attempt_start

    CourseFactory(slug=CAPSTONE_COURSE)
    user = UserFactory(username="sentinel", email=EMAIL)
    token = Token.objects.create(user=user)
    signed_in = client.post(
        "/accounts/login/", {"login": EMAIL, "password": PASSWORD}, HTTP_X_REQUEST_ID="rid-login"
    )
    assert signed_in.status_code == 302
    quiz = QuizFactory(slots=[["weights-memory"]])
    attempt, _ = attempt_start(quiz=quiz, learner=user)
    question = attempt.questions.get()
    api = {"HTTP_AUTHORIZATION": f"Token {token.key}", "content_type": "application/json"}
    responses = [signed_in]
    responses.append(client.get("/api/me/mastery/", **api))
    responses.append(
        client.post(
            f"/api/attempts/{attempt.pk}/responses/",
            {
                "question": question.pk,
                "part": question.answers[0]["name"],
                "answer": ANSWER,
                "idempotency_key": "log-test-1",
            },
            **api,
        )  # fmt: skip
    )
    memo = client.post("/api/memos/", {"markdown": MEMO}, HTTP_X_REQUEST_ID="rid-memo", **api)
    responses.append(memo)
    return responses, user.pk, token.key


def test_one_line_per_request_with_its_id_and_nothing_secret(
    client, lines, transactional_db, monkeypatch
):
    import config.celery

    # Commits happen (transactional_db), so tasks are queued inside the request that
    # queues them; here a queued task runs in process (apply) even where .ci/run has a
    # real worker, whose log lines this process could not read. The app's own
    # configuration is left alone: other tests read it.
    def run_here(task, *args, what: str) -> bool:
        task.apply(args=args)
        return True

    monkeypatch.setattr(config.celery, "try_delay", run_here)
    responses, user_id, key = _session(client)
    assert [r.status_code for r in responses] == [302, 200, 201, 201]
    records = [json.loads(line) for line in lines()]  # every line is JSON
    requests = [r for r in records if r["event"] == "request"]
    assert len(requests) == len(responses)
    assert [r["request_id"] for r in requests] == [x["X-Request-ID"] for x in responses]
    assert requests[0]["request_id"] == "rid-login" and requests[0]["route"] == "/accounts/login/"
    for r in requests:
        assert {"method", "route", "status", "duration_ms", "user_id", "level"} <= set(r)
    assert requests[-1]["user_id"] == user_id and requests[-1]["route"] == "/api/memos/"
    # The memo's review was queued by that request: its task line carries the same id.
    tasks = [r for r in records if r["event"] == "task"]
    assert any(t["request_id"] == "rid-memo" for t in tasks), tasks
    text = "\n".join(lines())
    for secret in (PASSWORD, key, ANSWER, "271828", MEMO, "97531", EMAIL, "sentinel.person"):
        assert secret not in text, secret


@pytest.mark.db_independent
def test_the_log_line_never_resolves_a_user_the_request_did_not(rf, lines):
    """A view that answered without reading the user (a 503 when the database went away
    mid-request) must not have the log line read it: a query of its own, and a 500."""

    def unreachable():
        raise AssertionError("the log line resolved the user")

    def view(request):
        from django.http import HttpResponse

        return HttpResponse(status=503)

    request = rf.get("/api/attempts/1/")
    request.user = SimpleLazyObject(unreachable)
    assert RequestLogMiddleware(view)(request).status_code == 503
    resolved = rf.get("/api/attempts/1/")
    resolved.user = SimpleLazyObject(lambda: UserFactory.build(pk=7))
    assert resolved.user.pk == 7  # the request read it: the line names it
    assert RequestLogMiddleware(view)(resolved).status_code == 503
    logged = [json.loads(line) for line in lines() if '"event": "request"' in line]
    assert [line["user_id"] for line in logged] == [None, 7]


def test_a_request_id_is_the_clients_when_it_looks_like_one():
    class Req:
        def __init__(self, value):
            self.headers = {"X-Request-ID": value}

    assert request_id_of(Req("abc-123_X")) == "abc-123_X"
    for bad in ("", "a" * 65, "has space", "new\nline", "<script>"):
        got = request_id_of(Req(bad))
        assert got != bad and len(got) == 32


@pytest.mark.db_independent
def test_a_published_task_carries_the_request_id_in_its_headers():
    structlog.contextvars.bind_contextvars(request_id="rid-publish")
    try:
        headers: dict = {}
        _carry_request_id(headers=headers)
        assert headers == {"request_id": "rid-publish"}
    finally:
        structlog.contextvars.clear_contextvars()
    empty: dict = {}
    _carry_request_id(headers=empty)
    assert empty == {}


@pytest.mark.db_independent
def test_a_worker_binds_the_request_id_its_message_carried():
    """On a worker the context is empty: the id comes from the message (Celery puts a
    message's custom headers on task.request), and the worker's context is put back."""
    from types import SimpleNamespace

    from config.task_signals import _task_finished, _task_started

    task = SimpleNamespace(name="demo.task", request=SimpleNamespace(request_id="rid-worker"))
    seen = {}
    structlog.contextvars.clear_contextvars()
    _task_started(task_id="t-1", task=task)
    seen.update(structlog.contextvars.get_contextvars())
    _task_finished(task_id="t-1", task=task, state="SUCCESS")
    assert seen == {"task_id": "t-1", "request_id": "rid-worker"}
    assert structlog.contextvars.get_contextvars() == {}
