"""A chaos run (issue 44, item 5): learners practise, take exams and submit memos, a few
of them LMS learners whose grades go back to a test LMS, against gunicorn + a private
PostgreSQL + a private Redis + two Celery workers, while a seeded injector kills a
gunicorn worker, SIGKILLs a Celery worker, restarts Redis, restarts PostgreSQL and
pauses the database for 5 s. Then, counts only:

- every answer that got a 2xx is stored exactly once (by its idempotency key);
- every memo version got exactly one review (done, none failed, none left queued);
- every released grade of an LMS learner was sent (and the LMS holds that score) or is
  pending with a reason;
- no 500, and every 503 carried Retry-After;
- /readyz answers 200 after the last fault (how long it took is reported).

    .venv/bin/python bench/chaos.py --minutes 10 --seed 1        # make chaos

Loopback only; every process is started here and stopped by its PID. The report
(counts, faults with times, p99 per endpoint between faults) is printed as Markdown.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._chaos_faults import Fault, Stack, injector, schedule  # noqa: E402
from bench._chaos_learners import Ledger, run_learners  # noqa: E402
from bench._chaos_lms import TestLms  # noqa: E402
from bench._chaos_report import checks, report  # noqa: E402
from bench._cluster import Redis, cluster_create, cluster_destroy  # noqa: E402
from bench._server import PY, ROOT, bench_env, free_port, wait_for  # noqa: E402

LMS_LEARNERS = 10
THINK = (2.0, 8.0)  # seconds between a learner's requests, uniform
DRAIN = 240.0  # seconds the end waits for queued reviews and passbacks to settle
REQUEUE_AFTER = 60.0  # seconds of that wait before the beat's requeues are run


@dataclass
class Result:
    violations: dict[str, int]
    counts: dict[str, int]
    faults: list[Fault]
    readyz_seconds: float | None
    markdown: str
    work: Path
    extra: dict = field(default_factory=dict)


def chaos_env(cluster_url: str, redis_url: str) -> dict[str, str]:
    """The production settings (via the benches' throttles and bench/settings_chaos.py's
    redelivery), pointed at the private servers, caches and broker on Redis as compose
    has them."""
    env = bench_env(cluster_url)
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "bench.settings_chaos",
            "CELERY_BROKER_URL": f"{redis_url}/0",
            "CELERY_RESULT_BACKEND": f"{redis_url}/1",
            "CACHE_URL": f"{redis_url}/2",
            "CONN_MAX_AGE": "60",  # the service's default, not the benches' hour
        }
    )
    for name in ("METRICS_DIR", "DJANGO_ALLOW_ASYNC_UNSAFE", "REQUIRE_SERVICES"):
        env.pop(name, None)
    return env


def _ready(base: str, timeout: float) -> float | None:
    """Seconds until /readyz answers 200, or None if it did not within `timeout`."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        try:
            if httpx.get(f"{base}/readyz", timeout=5).status_code == 200:
                return time.monotonic() - started
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    return None


def _prepare(env: dict, work: Path, lms: TestLms, learners: int) -> dict:
    # collectstatic: the LMS learners land on pages, which name the manifest's hashed
    # files with DEBUG off, as in the image (its Dockerfile collects them).
    for args in (
        ["manage.py", "migrate", "--noinput", "-v", "0"],
        ["manage.py", "collectstatic", "--noinput", "-v", "0"],
    ):
        done = subprocess.run([PY, *args], cwd=ROOT, env=env, capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(f"{args[1]} failed:\n{done.stderr[-3000:]}")
    fixture = work / "fixture.json"
    seeded = subprocess.run(
        [PY, "bench/_chaos_seed.py", str(fixture), lms.base, str(learners), str(LMS_LEARNERS)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    if seeded.returncode:
        raise RuntimeError(f"seed failed:\n{seeded.stderr[-3000:]}")
    return json.loads(fixture.read_text())


def _drain(cluster, env: dict, timeout: float) -> tuple[float, dict]:
    """Wait until no review is queued or running and no score is pending (retries
    included): what the workers still had when the learners stopped. Returns the wait
    and what was requeued on the way.

    A review or score whose task the broker refused (a publish in Redis' restart) waits
    for the beat's requeue, 15 and 10 minutes later: no beat runs here, so after
    REQUEUE_AFTER the harness runs those requeues once itself, as the beat would, and
    the report counts them."""
    started, requeued = time.monotonic(), {}
    while time.monotonic() - started < timeout:
        try:
            [(reviews, scores)] = cluster.admin(
                "SELECT (SELECT count(*) FROM capstone_memoversion"
                "        WHERE review_status IN ('queued', 'running')),"
                "       (SELECT count(*) FROM lti_scoresync WHERE state = 'pending')"
            )
        except Exception:  # the database may still be coming back
            reviews = scores = 1
        if reviews == 0 and scores == 0:
            break
        if not requeued and time.monotonic() - started > REQUEUE_AFTER:
            done = subprocess.run(
                [PY, "bench/_chaos_seed.py", "requeue"],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
            )
            requeued = (
                json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else {}
            )
        time.sleep(2)
    return time.monotonic() - started, requeued


def run(*, minutes: float, seed: int, learners: int = 200, log=print) -> Result:
    """One whole run; never raises for what it finds (the Result says), only for a
    harness that could not start."""
    with ExitStack() as cleanup:  # every step undone, in reverse, even if one fails
        redis = Redis()  # Missing before anything is started, as cluster_create
        cleanup.callback(redis.destroy)
        cluster = cluster_create(prefix="burnin-chaos-pg-")
        cleanup.callback(cluster_destroy, cluster)
        lms = TestLms()
        cleanup.callback(lms.stop)
        return _run(minutes, seed, learners, log, redis, cluster, lms, cleanup)


def _run(minutes, seed, learners, log, redis, cluster, lms, cleanup) -> Result:
    work = Path(tempfile.mkdtemp(prefix="burnin-chaos-"))
    redis.start()
    env = chaos_env(cluster.url, redis.url)
    began = time.monotonic()
    fixture = _prepare(env, work, lms, learners)
    log(
        f"migrated and seeded in {time.monotonic() - began:.0f} s: {learners} learners "
        f"({LMS_LEARNERS} from the LMS); logs in {work}"
    )
    stack = Stack(env, cluster, redis, work, workers=3)
    cleanup.callback(stack.stop)
    port = free_port()
    stack.start_gunicorn(port)
    stack.start_celery("celery")
    stack.start_celery("reviews")
    base = f"http://127.0.0.1:{port}"
    wait_for(port, stack.gunicorn, timeout=120)
    up = _ready(base, 120)
    if up is None:
        raise RuntimeError(f"/readyz not 200 within 120 s; see {work}/gunicorn.log")
    log(f"gunicorn ready in {up:.0f} s")
    lms_users = [row["lms_sub"] for row in fixture["learners"] if row["lms_sub"]]
    lms.start(base, exam_id=fixture["exam"], users=lms_users)

    seconds = minutes * 60
    faults = schedule(seed, seconds)
    ledger = Ledger()
    t0 = time.time()
    threads = run_learners(base, fixture, ledger, seed=seed, deadline=t0 + seconds, think=THINK)
    inject = injector(stack, faults, seed, t0, log, ready=lambda: _ready(base, 60))
    inject.join()
    readyz = _ready(base, 120)
    log(f"/readyz 200 {readyz:.2f} s after the last fault" if readyz else "/readyz not 200")
    for thread in threads:
        thread.join()
    drained, requeued = _drain(cluster, env, DRAIN)
    log(f"learners done at t={time.time() - t0:.0f} s; queues drained in {drained:.0f} s")
    violations, counts = checks(cluster, ledger, lms, fixture, readyz)
    counts["reviews requeued at the end, as the beat would"] = requeued.get("reviews", 0)
    counts["scores requeued at the end, as the beat would"] = requeued.get("scores", 0)
    markdown = report(
        minutes=minutes,
        seed=seed,
        learners=learners,
        t0=t0,
        faults=faults,
        ledger=ledger,
        counts=counts,
        violations=violations,
        readyz=readyz,
        drained=drained,
    )
    return Result(violations, counts, faults, readyz, markdown, work)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--learners", type=int, default=200)
    args = parser.parse_args()
    # A TERM (a cancelled job) unwinds like ^C, so the run's clean-up stops what it started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    result = run(minutes=args.minutes, seed=args.seed, learners=args.learners)
    print(result.markdown)
    failed = {k: v for k, v in result.violations.items() if v}
    if failed:
        print(f"\nFAILED: {failed}; logs kept in {result.work}", file=sys.stderr)
        sys.exit(1)
    shutil.rmtree(result.work, ignore_errors=True)


if __name__ == "__main__":
    main()
