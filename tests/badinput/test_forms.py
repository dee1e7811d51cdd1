"""Hostile values in the web app's POST forms (issue 18, item 1): the answer box, the quiz
builder and the sign-in page. A form body is text, so the hostile values are strings (and
raw bytes that are not UTF-8, and a field sent twice): each is answered with the form
again and its error (200), or a redirect when the form was fine, never a 5xx.

A NUL anywhere in a page's path, query or form is a 400 before any view
(frontend/middleware.py): PostgreSQL text cannot hold one, and the builder's course
lookup with one was a 500 there.

The answer box keeps what was typed: an unreadable answer is not stored (no Response
row, no try spent), its text stays in the box and the reader's reason is shown beside it.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.core.cache import cache
from django.db import transaction
from django.test import Client
from django.utils.html import escape

from assess.models import Quiz, Response
from frontend.answers import FIELD_PREFIX
from problems.engine.reader import read_answer
from tests.badinput.operations import changed, snapshot
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db

FORM = "application/x-www-form-urlencoded"
HTMX = {"HTTP_HX_REQUEST": "true"}

# What a form field can carry: text, and bytes a browser would not send.
TEXTS = {
    "100k chars": "x" * 100_000,
    "NaN": "NaN",
    "Infinity": "Infinity",
    "1e999": "1e999",
    "-0": "-0",
    "10**400": "1" + "0" * 400,
    "arabic-indic digits": "٣٫٥",
    "fullwidth digits": "１２",
    "locale comma": "1,5",
    "locale thousands": "1.234,5",
    "json object": '{"a": {"b": [1]}}',
    "json array": "[1, 2]",
    "true": "true",
    "null": "null",
    "empty": "",
    "NUL byte": "a\x00b",
    "python code": "__import__('os').system('true')",
    "html": "<script>alert(1)</script>",
}
RAW = {
    "not utf-8": b"%ff%fe",
    "lone surrogate as utf-8": b"%ed%a0%80",
}


def encoded(data: dict, field: str, value) -> bytes:
    """The urlencoded form with `field` set to `value` (text, or raw percent-escapes)."""
    rest = urlencode({k: v for k, v in data.items() if k != field}, doseq=True).encode()
    own = f"{field}=".encode() + (
        value if isinstance(value, bytes) else urlencode({"": value})[1:].encode()
    )
    return rest + b"&" + own if rest else own


def post(client: Client, url: str, body: bytes, *, watch: bool = True, **extra):
    """(response, tables changed but the session's), in a savepoint rolled back after;
    without `watch`, (response, quizzes made): the builder's check, cheaper."""
    cache.clear()
    with transaction.atomic():
        before = snapshot() if watch else Quiz.objects.count()
        response = client.generic("POST", url, body, content_type=FORM, **extra)
        if watch:
            touched = [t for t in changed(before, snapshot()) if t != "sessions.Session"]
        else:
            touched = ["assess.Quiz"] if Quiz.objects.count() != before else []
        transaction.set_rollback(True)
    return response, touched


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _cases():
    yield from TEXTS.items()
    yield from RAW.items()


def test_the_answer_box(world):
    client = signed_in(world.learner)
    url = f"/attempts/{world.attempt}/q/{world.question}/answer/"
    field = FIELD_PREFIX + world.part
    failures = []
    for name, value in _cases():
        response, touched = post(client, url, encoded({}, field, value), **HTMX)
        html = response.content.decode()
        text = value if isinstance(value, str) else "\ufffd\ufffd"  # as Django decodes it
        reading = read_answer(text[:256], default_unit="GB")
        where = f"answer {name} -> {response.status_code}"
        if "\x00" in text:
            if response.status_code != 400 or touched:
                failures.append(f"{where}: a NUL is refused with 400 (changed {touched})")
        elif response.status_code != 200:
            failures.append(where)
        elif not text.strip():  # a blank box is no answer: nothing stored, nothing said
            if touched:
                failures.append(f"{where}: a blank answer changed {touched}")
        elif reading.ok:
            if not any(t.startswith("assess.") for t in touched):
                failures.append(f"{where}: a readable answer was not stored")
        else:
            if touched:
                failures.append(f"{where}: an unreadable answer changed {touched}")
            if isinstance(value, str) and escape(text[:256]) not in html:
                failures.append(f"{where}: the typed text is not kept in the box")
            if escape(reading.error.split(". ")[0]) not in html:
                failures.append(f"{where}: the reader's reason is not shown")
    assert not failures, "\n".join(failures)
    assert not Response.objects.filter(attempt_id=world.attempt).exists()  # all rolled back


def test_the_answer_box_explains_the_locale_rule(world):
    client = signed_in(world.learner)
    url = f"/attempts/{world.attempt}/q/{world.question}/answer/"
    field = FIELD_PREFIX + world.part
    for text, reason in (("٣٫٥", "Type the digits 0 to 9"), ("1,5", "Commas may only")):
        response, touched = post(client, url, encoded({}, field, text), **HTMX)
        assert response.status_code == 200 and not touched
        assert reason in response.content.decode()


BUILDER = {
    "slots": "1",
    "title": "Units",
    "mode": "homework",
    "course": "ai-infra",
    "time_limit_minutes": "15",
    "attempts_allowed": "2",
    "feedback": "",
    "pass_mark": "0.6",
    "slot1_templates": ["gb-gib"],
    "slot1_points": "2",
}


# The builder renders a big page each time: the values that test its parsing most.
BUILDER_VALUES = ("100k chars", "NaN", "1e999", "10**400", "arabic-indic digits")
BUILDER_VALUES += (
    "locale comma",
    "json object",
    "NUL byte",
    "not utf-8",
    "lone surrogate as utf-8",
)


def test_the_quiz_builder(world):
    client = signed_in(world.instructor)
    fine, _ = post(client, "/teach/quizzes/new/", urlencode(BUILDER, doseq=True).encode())
    assert fine.status_code == 302, fine.content[:500]  # the base form is accepted
    failures = []
    for field in (*BUILDER, "opens_at", "closes_at", "penalty_per_try", "tries_per_part"):
        for name, value in _cases():
            if name not in BUILDER_VALUES:
                continue
            body = encoded(BUILDER, field, value)
            response, touched = post(client, "/teach/quizzes/new/", body, watch=False)
            where = f"builder {field} = {name} -> {response.status_code}"
            if value == TEXTS["NUL byte"]:
                if response.status_code != 400 or touched:
                    failures.append(f"{where}: a NUL is refused with 400")
            elif response.status_code >= 500 or response.status_code not in (200, 302):
                failures.append(where)
            elif response.status_code == 200 and touched:
                failures.append(f"{where}: the form came back but {touched} changed")
            elif response.status_code == 302 and field == "title" and value == "x" * 100_000:
                failures.append(f"{where}: a 100k-character title was accepted")
    assert not failures, "\n".join(failures)
    assert not Quiz.objects.filter(title="x" * 100_000).exists()


def test_the_sign_in_form(world):
    failures = []
    base = {"login": "learner", "password": PASSWORD}
    for field in base:
        for name, value in _cases():
            response, touched = post(Client(), "/accounts/login/", encoded(base, field, value))
            where = f"sign-in {field} = {name} -> {response.status_code}"
            if value == TEXTS["NUL byte"]:
                if response.status_code != 400 or touched:
                    failures.append(f"{where}: a NUL is refused with 400")
            elif response.status_code != 200:
                failures.append(where)  # the form again, with its error
            elif touched:
                failures.append(f"{where}: changed {touched}")
    assert not failures, "\n".join(failures)
    # A field sent twice is read as one value (the last), not a list.
    twice = b"login=nobody&login=learner&password=" + urlencode({"": PASSWORD})[1:].encode()
    response, _ = post(Client(), "/accounts/login/", twice)
    assert response.status_code == 302


def test_a_nul_in_a_path_or_query_is_a_400(world):
    client = signed_in(world.staff)
    for url in ("/certificates/a%00b/", "/teach/quizzes/new/?q=a%00b", "/courses/?x=%00"):
        response = client.get(url)
        assert response.status_code == 400, url
        assert "NUL character" in response.content.decode()
    assert client.get("/teach/quizzes/new/?q=memory").status_code == 200
