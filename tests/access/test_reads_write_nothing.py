"""No GET or HEAD writes (issue 33 item 8): every cell of the access matrix, read.

A read that writes is a hole a crawler, a prefetching browser or a curious manager walks
through: `GET /api/capstone/brief/` used to enrol whoever looked in Foundations and draw
them a capstone, so managers who looked showed up in its progress CSV. Each cell here is
one route of the matrix (tests/access/table.py) as one of its seven roles, in the
matrix's world: a route with a GET row is read with GET and with HEAD; a route with no
GET row (a POST-only page or operation) is sent a GET too, since a page that handles
its form only on POST must not do the work on a GET either. Whatever the status, the
request must leave every table's row count as it was and send no INSERT, UPDATE or
DELETE (tests/access/writes.py, which also states the one allowed write: closing an
attempt whose deadline has passed).

The sessions table is counted like the rest: no read may start or end a session row
(an anonymous crawler would fill the table). A signed-in read may update its caller's
own row (a flashed message read and cleared: the browser's state, kept on the server);
no cell of the sweep does, and test_a_read_may_clear_its_callers_flash_and_nothing_else
shows the rule both ways.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from assess.models import Attempt, Enrolment
from assess.services.attempts import attempt_start
from frontend.answers import SESSION_ERRORS
from tests.access.table import TABLE
from tests.access.world import ROLES
from tests.access.writes import row_counts, writes_of
from tests.factories import QuizFactory

pytestmark = pytest.mark.django_db

_READ_ROWS = {name for name, method in TABLE if method == "GET"}
_ROUTES = sorted({name for name, _ in TABLE})


def _cells():
    for name in _ROUTES:
        if name in _READ_ROWS:
            expected = TABLE[(name, "GET")].expect.split()
            methods = ("GET", "HEAD")
        else:
            expected = ["any"] * len(ROLES)
            methods = ("GET",)
        for method in methods:
            for role, status in zip(ROLES, expected, strict=True):
                if status != "-":  # the schema: one request costs a second, reads no user
                    yield name, method, role


CELLS = list(_cells())


def _row(name: str):
    return TABLE.get((name, "GET")) or next(row for (n, _), row in TABLE.items() if n == name)


def read(world, name: str, method: str, role: str):
    row = _row(name)
    client = Client()
    if role != "anonymous":
        client.cookies[settings.SESSION_COOKIE_NAME] = world.sessions[role]
    return client.generic(method, reverse(name, kwargs=row.kwargs(world)) + row.query)


@pytest.mark.parametrize(
    "name,method,role", CELLS, ids=[f"{name}:{method}-{role}" for name, method, role in CELLS]
)
def test_a_read_changes_no_table(world, name, method, role):
    key = world.sessions.get(role)
    response, problems = writes_of(lambda: read(world, name, method, role), session_key=key)
    assert response.status_code < 500, response.content[:300]
    assert problems == [], f"{method} {name} as {role} -> {response.status_code}"


def test_the_sweep_reads_every_route_as_every_role():
    assert {name for name, _, _ in CELLS} == set(_ROUTES)
    assert len(CELLS) > 2 * 7 * len(_READ_ROWS) - 20  # GET and HEAD of each read row


# ------------------------------------------------------------ the checker, checked


def test_the_checker_sees_an_insert_an_update_and_a_delete(world):
    """The sweep can fail: a row added, a row changed in place (counts unchanged), a row
    removed, and an open attempt in time changed, are each reported."""
    learner, other = world.users["learner"], world.users["not_enrolled"]
    enrolment = Enrolment.objects.filter(user=learner).first()
    cases = {
        "insert": lambda: Enrolment.objects.create(
            user=other, course=world.course, source=Enrolment.Source.SELF
        ),
        "update": lambda: Enrolment.objects.filter(pk=enrolment.pk).update(source="lti"),
        "delete": lambda: Enrolment.objects.filter(pk=enrolment.pk).delete(),
        "attempt in time": lambda: Attempt.objects.filter(pk=world.attempt.pk).update(score=1.0),
    }
    for what, write in cases.items():
        _, problems = writes_of(write)
        assert problems, what
    _, problems = writes_of(lambda: row_counts())
    assert problems == []


def test_the_one_allowed_write_closes_only_the_attempt_past_its_deadline(world):
    """A learner's attempt page closes their own attempt once its deadline has passed:
    that attempt's row changes (to expired) and nothing else. The same page for an
    attempt still in time, and for someone else's expired attempt, writes nothing."""
    learner = world.users["learner"]
    timed = QuizFactory(
        course=world.course,
        slots=[["gb-gib"]],
        time_limit=timedelta(minutes=10),
        closes_at=timezone.now() + timedelta(days=7),
    )
    late, _ = attempt_start(quiz=timed, learner=learner)
    Attempt.objects.filter(pk=late.pk).update(deadline=timezone.now() - timedelta(minutes=1))

    def page(role, attempt):
        client = Client()
        client.cookies[settings.SESSION_COOKIE_NAME] = world.sessions[role]
        return client.get(reverse("attempt-detail", kwargs={"pk": attempt.pk}))

    response, problems = writes_of(lambda: page("staff", late))  # not theirs: no close
    assert (response.status_code, problems) == (200, [])
    assert Attempt.objects.get(pk=late.pk).status == Attempt.Status.OPEN
    response, problems = writes_of(lambda: page("learner", world.attempt))  # in time
    assert (response.status_code, problems) == (200, [])
    response, problems = writes_of(lambda: page("learner", late))
    assert (response.status_code, problems) == (200, [])
    assert Attempt.objects.get(pk=late.pk).status == Attempt.Status.EXPIRED


def test_a_read_may_clear_its_callers_flash_and_nothing_else(world):
    """The question page shows, once, the reason an answer posted without JavaScript was
    unreadable, kept in the caller's session: reading it updates that session's row,
    which is allowed for the caller's own session only. A session started by a read
    is a new row, and fails."""
    key = world.sessions["learner"]
    store = SessionStore(session_key=key)
    store[SESSION_ERRORS] = {f"{world.question.pk}:a": "Type the digits 0 to 9."}
    store.save()
    kwargs = {"pk": world.attempt.pk, "qid": world.question.pk}

    def page():
        client = Client()
        client.cookies[settings.SESSION_COOKIE_NAME] = key
        return client.get(reverse("question-detail", kwargs=kwargs))

    response, problems = writes_of(page, session_key=key)
    assert (response.status_code, problems) == (200, [])
    assert SESSION_ERRORS not in SessionStore(session_key=key).load()  # shown once
    store[SESSION_ERRORS] = {"1:a": "x"}
    store.save()
    _, problems = writes_of(page, session_key=world.sessions["staff"])  # not the caller's
    assert any(p.endswith("and it is not the caller's") for p in problems), problems
    _, problems = writes_of(lambda: SessionStore().save(), session_key=key)  # a new row
    assert any(p.startswith("django_session:") for p in problems)
