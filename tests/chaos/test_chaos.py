"""The chaos run (bench/chaos.py) for two minutes: learners against gunicorn, a private
PostgreSQL and Redis and two Celery workers while each of the five faults is injected
once. Counts only: every answer that got a 2xx stored once, every memo version reviewed
once, every released LMS grade sent or pending with a reason (the LMS's learners reach
their exam through real launches), no 500, /readyz back.

Runs in the PostgreSQL pass of .ci/run (marker `services`) and skips in make test's
SQLite pass, as tests/faults does; with REQUIRE_SERVICES=1 a missing PostgreSQL binary
or Redis fails instead. CHAOS_SEED picks another fault schedule.
"""

from __future__ import annotations

import os
import shutil

import pytest

from bench._cluster import Missing

# Its own xdist group: one worker runs it while the other goes on with the suite.
pytestmark = [pytest.mark.services, pytest.mark.xdist_group("chaos"), pytest.mark.timeout(900)]


def _refuse(reason: str):
    if os.environ.get("REQUIRE_SERVICES") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


def test_two_minutes_of_faults_lose_nothing():
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        _refuse("the chaos run is in the PostgreSQL pass (DATABASE_URL is not PostgreSQL)")
    from bench.chaos import run

    try:
        result = run(minutes=2, seed=int(os.environ.get("CHAOS_SEED", "1")), log=print)
    except Missing as exc:
        _refuse(f"{exc} absent")
    # The run did what it is for: every fault went in, and the checks had work to count.
    assert sorted(f.kind for f in result.faults) == sorted(
        [
            "kill gunicorn worker",
            "SIGKILL celery worker",
            "restart redis",
            "restart postgresql",
            "pause postgresql 5 s",
        ]
    )
    assert [f.detail for f in result.faults if "injection failed" in f.detail] == []
    assert result.counts["answers 2xx"] > 0
    assert result.counts["memo versions stored"] > 0
    assert result.counts["LMS launches that reached the exam (303)"] > 0
    assert result.counts["LMS learners with a released grade"] > 0
    failed = {k: v for k, v in result.violations.items() if v}
    assert failed == {}, f"{result.markdown}\n\nlogs kept in {result.work}"
    shutil.rmtree(result.work, ignore_errors=True)
