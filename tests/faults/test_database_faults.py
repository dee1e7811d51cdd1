"""The service's database fails under it: a connection cut in the middle of a request's
transaction, and PostgreSQL restarted while requests keep coming. Against the private
cluster and server of conftest.py.

What must hold: the client gets a clean 503 (the API's error format, code
`service_unavailable`, Retry-After), never a 500 or a hang; nothing half-written (the
answer row and its mastery effects land together or not at all); once the database is
back, requests succeed again; every answer that got a 2xx is stored.
"""

from __future__ import annotations

import itertools
import threading
import time

import httpx
import pytest

from tests.faults.conftest import wait_until

# One private cluster per worker process: keep the folder on one (.ci/run: --dist loadgroup).
pytestmark = [pytest.mark.timeout(120), pytest.mark.xdist_group("private-postgres")]

_keys = itertools.count()
_questions = itertools.count()
_lock = threading.Lock()


def _next_question(server) -> dict:
    with _lock:
        return server.seed["questions"][next(_questions)]


def _answer(server, question: dict, key: str, timeout: float = 15) -> httpx.Response:
    return httpx.post(
        f"{server.url}/api/attempts/{server.seed['attempt']}/responses/",
        json={
            "question": question["id"],
            "part": question["part"],
            "answer": question["text"],
            "idempotency_key": key,
        },
        headers=server.headers(),
        timeout=timeout,
    )


def _stored(cluster, question_id: int) -> tuple[int, int, int]:
    """(answers stored, skill rows moved by them, mastery events) for one question."""
    [(responses,)] = cluster.admin(
        "SELECT count(*) FROM assess_response WHERE question_id = %s", (question_id,)
    )
    [(events,)] = cluster.admin(
        "SELECT count(*) FROM assess_masteryevent e JOIN assess_response r"
        " ON r.id = e.response_id WHERE r.question_id = %s",
        (question_id,),
    )
    [(skills,)] = cluster.admin("SELECT coalesce(sum(responses), 0) FROM assess_skillmastery")
    return responses, int(skills), events


def _assert_unavailable(response: httpx.Response) -> None:
    assert response.status_code == 503, (response.status_code, response.text[:500])
    assert response.headers["Retry-After"] == "5"
    body = response.json()
    assert body["type"] == "server_error"
    assert [e["code"] for e in body["errors"]] == ["service_unavailable"]


# Where the request is held when its backend is cut: waiting for the attempt's row lock
# (nothing written yet), or inserting its mastery event (after the answer row and the
# skill rows were written in the same transaction).
HOLDS = {
    "attempt-lock": "SELECT id FROM assess_attempt WHERE id = %(attempt)s FOR UPDATE",
    "after-writes": "LOCK TABLE assess_masteryevent IN EXCLUSIVE MODE",
}


@pytest.mark.parametrize("hold", list(HOLDS))
def test_connection_cut_mid_request_is_a_clean_503(cluster, server, hold):
    question = _next_question(server)
    before_skills = _stored(cluster, question["id"])[1]
    import psycopg

    holder = psycopg.connect(host="127.0.0.1", port=cluster.port, user="postgres", dbname="burnin")
    try:
        holder.execute(HOLDS[hold], {"attempt": server.seed["attempt"]})
        result: dict = {}
        thread = threading.Thread(
            target=lambda: result.update(r=_answer(server, question, f"cut-{next(_keys)}"))
        )
        thread.start()
        [(pid,)] = wait_until(
            "the request waits on the held lock",
            lambda: cluster.admin(
                "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                " AND datname = 'burnin' AND pid <> %s",
                (holder.info.backend_pid,),
            ),
        )
        cluster.admin("SELECT pg_terminate_backend(%s)", (pid,))
        thread.join(timeout=20)
    finally:
        holder.rollback()
        holder.close()
    _assert_unavailable(result["r"])
    # Nothing half-written: no answer, no skill moved, no event.
    assert _stored(cluster, question["id"]) == (0, before_skills, 0)
    # Sent again, it lands whole: the answer, its skills' steps and their events.
    again = _answer(server, question, f"again-{next(_keys)}")
    assert again.status_code == 201, again.text[:500]
    responses, skills, events = _stored(cluster, question["id"])
    assert responses == 1 and events >= 1 and skills == before_skills + events


def test_restart_under_load_fails_fast_and_recovers(cluster, server):
    """pg_ctl restart in fast mode, in its two halves (stop, then start once the outage
    has been answered): a bare restart is over in a quarter of a second, too quick to be
    sure a request meets it."""
    results: list[tuple[str, int, float, float]] = []  # key, status, sent, took
    down = threading.Event()
    back = threading.Event()
    stop = threading.Event()

    def load() -> None:
        while not stop.is_set():
            try:
                question = _next_question(server)
            except IndexError:
                return
            key = f"load-{next(_keys)}"
            sent = time.monotonic()
            try:
                status = _answer(server, question, key, timeout=10).status_code
            except httpx.HTTPError as exc:  # a hang or a reset: recorded, then asserted
                status = -1
                key = f"{key}:{type(exc).__name__}"
            took = time.monotonic() - sent
            with _lock:
                results.append((key, status, sent, took))
            if status == 503:
                time.sleep(0.1)  # a client honouring the outage a little

    def count(status: int, after: threading.Event) -> int:
        with _lock:
            return sum(s == status and after.is_set() for _, s, _, _ in results[marks[after] :])

    marks: dict[threading.Event, int] = {}
    threads = [threading.Thread(target=load) for _ in range(3)]
    for t in threads:
        t.start()
    try:
        wait_until("answers flowing", lambda: sum(s == 201 for _, s, _, _ in results) >= 6)
        cluster.pg_ctl("-m", "fast", "stop")
        with _lock:
            marks[down] = len(results)
            down.set()
        wait_until("503s while the database is down", lambda: count(503, down) >= 3)
        cluster.start()
        with _lock:
            marks[back] = len(results)
            back.set()
        wait_until("answers flowing again after the restart", lambda: count(201, back) >= 6)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=20)
        if not back.is_set():
            cluster.start()  # the next test's database

    statuses = {s for _, s, _, _ in results}
    assert statuses <= {201, 503}, [r for r in results if r[1] not in (201, 503)]
    failed = [r for r in results if r[1] == 503]
    # Fail fast: no request of the outage held its client for long.
    assert all(took < 3 for _, _, _, took in failed), failed
    # Every 2xx is stored...
    ok = [key for key, s, _, _ in results if s == 201]
    stored = {k for (k,) in cluster.admin("SELECT idempotency_key FROM assess_response")}
    assert set(ok) <= stored, set(ok) - stored
    # ...whole: each stored answer has its mastery events, the skill rows moved once each.
    [(bare,)] = cluster.admin(
        "SELECT count(*) FROM assess_response r WHERE NOT EXISTS"
        " (SELECT 1 FROM assess_masteryevent e WHERE e.response_id = r.id)"
    )
    [(events,)] = cluster.admin("SELECT count(*) FROM assess_masteryevent")
    [(steps,)] = cluster.admin("SELECT coalesce(sum(responses), 0) FROM assess_skillmastery")
    assert (bare, int(steps)) == (0, events)
