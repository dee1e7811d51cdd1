"""/readyz: 200 when the database, the cache and the broker answer; 503 naming the one
that does not, within the bound; /healthz keeps its meaning (liveness)."""

from __future__ import annotations

import threading

import pytest

from frontend import readiness

pytestmark = pytest.mark.django_db


def test_ready_when_everything_answers(client, settings):
    r = client.get("/readyz")
    assert r.status_code == 200
    body = r.json()
    assert body["status"] == "ready" and set(body["checks"]) == {"database", "cache", "broker"}
    # The embedded default runs tasks in-process: said, not failed (.ci/run's second
    # pass has a real broker, which the check connects to).
    in_process = "ok (no broker: tasks run in-process)"
    expected = "ok" if settings.CELERY_BROKER_URL else in_process
    assert body["checks"]["broker"] == {"ok": True, "detail": expected}


def test_a_database_that_fails_is_named(client, monkeypatch):
    def broken():
        raise ConnectionError("postgres://burnin:secret@db:5432/burnin is down")

    monkeypatch.setattr(readiness, "_database", broken)
    r = client.get("/readyz")
    assert r.status_code == 503
    body = r.json()
    assert (
        body["failed"] == ["database"] and body["checks"]["database"]["detail"] == "ConnectionError"
    )
    assert "secret" not in r.content.decode()  # never the connection string
    assert client.get("/healthz").status_code == 200  # liveness is another question


def test_a_cache_that_raises_is_named(client, monkeypatch):
    def broken():
        raise OSError("Error 111 connecting to redis:6379")

    monkeypatch.setitem(readiness.CHECKS, "cache", broken)
    r = client.get("/readyz")
    assert r.status_code == 503 and r.json()["failed"] == ["cache"]


def test_a_broker_that_hangs_is_cut_off_by_the_bound(client, monkeypatch, settings):
    settings.READINESS_TIMEOUT = 0.2

    release, returned = threading.Event(), threading.Event()

    def hung():
        release.wait(30)
        returned.set()
        return "ok"

    monkeypatch.setitem(readiness.CHECKS, "broker", hung)
    try:
        r = client.get("/readyz")
        assert not returned.is_set()  # answered by the bound while the check still hung
    finally:
        release.set()
    assert r.status_code == 503 and r.json()["failed"] == ["broker"]
    assert r.json()["checks"]["broker"]["detail"] == "no answer within 0.2 s"


def test_a_real_broker_is_connected_to(client, settings):
    """With a broker configured the check opens a connection: one refused at once (a
    port nothing listens on) fails the probe."""
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:9/0"
    r = client.get("/readyz")
    assert r.status_code == 503 and r.json()["failed"] == ["broker"]
