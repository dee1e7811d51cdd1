"""Memo reviews per second with one and with two worker processes, on PostgreSQL and
Redis (a benchmark, not a test).

For each worker count: start that many `celery worker --pool prefork --concurrency 1`
processes on a private queue, warm each pool process up (its first review loads the
hardware catalog and the engine's templates, a few seconds), then submit N example memos
(one per learner, each on its own brief) in one transaction, so that all N reviews are
queued at once when it commits, and time from the commit to the last `reviewed_at`.
The same work done in this process, one memo after another (brief_for(seed) then
review_memo, no queue, no database), is printed as the ceiling that Celery, Redis and
PostgreSQL take their share from.

It runs in a throwaway database (`<DATABASE_URL's name>_memo_bench`, created, migrated
and dropped here) and never touches the `reviews` queue, so it is safe beside a dev stack:

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/burnin \\
    CELERY_BROKER_URL=redis://127.0.0.1:6379/14 \\
    .venv/bin/python bench/memo_reviews.py [--memos 200] [--workers 1 2]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from celery.app.routes import prepare  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.utils import timezone  # noqa: E402

from capstone.memo_review.brief import brief_for  # noqa: E402
from capstone.memo_review.example import example_memo  # noqa: E402
from capstone.memo_review.review import review_memo  # noqa: E402
from capstone.models import Capstone, MemoVersion  # noqa: E402
from capstone.services import CAPSTONE_COURSE, memo_submit  # noqa: E402
from config.celery import app  # noqa: E402
from curricula.models import Course  # noqa: E402

TASK = "capstone.tasks.review_memo_version"
NODE = os.uname().nodename


def start_workers(count: int, queue: str) -> list[tuple[str, subprocess.Popen]]:
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
    }
    started = []
    for i in range(count):
        name = f"{queue}-{i}@{NODE}"
        proc = subprocess.Popen(
            [
                sys.executable, "-m", "celery", "-A", "config", "worker",
                "--pool", "prefork", "--concurrency", "1", "--queues", queue,
                "--hostname", name, "--without-gossip", "--without-mingle",
                "--loglevel", "ERROR",
            ],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        started.append((name, proc))
    names = [name for name, _ in started]
    deadline = time.monotonic() + 120
    while len(app.control.ping(destination=names, timeout=1)) < count:
        if time.monotonic() > deadline or any(p.poll() is not None for _, p in started):
            stop_workers(started)
            sys.exit("the workers did not start")
    return started


def stop_workers(started) -> None:
    for _, proc in started:
        if proc.poll() is None:
            proc.terminate()  # warm shutdown: nothing is in flight by now
    for _, proc in started:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def learners(first: int, count: int) -> list:
    User = get_user_model()
    return [User.objects.create(username=f"bench-{first + i}") for i in range(count)]


def submit_all(people, texts) -> tuple[list[int], float]:
    """One transaction: every review is queued by on_commit when it commits."""
    with transaction.atomic():
        ids = [memo_submit(learner=p, markdown=t).pk for p, t in zip(people, texts, strict=True)]
        committed = timezone.now()
    return ids, committed.timestamp()


def wait_done(ids: list[int], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while MemoVersion.objects.filter(pk__in=ids, review_status="done").count() < len(ids):
        if time.monotonic() > deadline:
            sys.exit(f"reviews not done within {timeout:g} s")
        time.sleep(0.05)


def prepared(course: Course, first: int, count: int):
    """count learners with capstones on seeds first.., and the example memo for each."""
    people = learners(first, count)
    texts = []
    for i, person in enumerate(people):
        Capstone.objects.create(learner=person, course=course, seed=first + i)
        texts.append(example_memo(brief_for(first + i)))
    return people, texts


def run(course: Course, workers: int, memos: int, first_seed: int) -> dict:
    queue = f"bench-reviews-{uuid.uuid4().hex[:8]}"
    app.amqp.router.routes = prepare({TASK: {"queue": queue}})
    started = start_workers(workers, queue)
    try:
        people, texts = prepared(course, first_seed, 3 * workers)  # warm-up: every pool process
        ids, _ = submit_all(people, texts)
        wait_done(ids, timeout=180)

        people, texts = prepared(course, first_seed + 3 * workers, memos)
        ids, committed = submit_all(people, texts)
        wait_done(ids, timeout=600)
    finally:
        stop_workers(started)
    rows = MemoVersion.objects.filter(pk__in=ids).values_list(
        "started_at", "reviewed_at", "deliveries"
    )
    last = max(r[1] for r in rows).timestamp()
    in_worker = statistics.median((r[1] - r[0]).total_seconds() for r in rows)
    assert all(r[2] == 1 for r in rows)
    return {
        "workers": workers,
        "memos": memos,
        "seconds": last - committed,
        "per_second": memos / (last - committed),
        "median_in_worker_ms": in_worker * 1000,
    }


def pure_rate(count: int, first_seed: int) -> float:
    """What a worker computes per review, brief_for(seed) then review_memo, in a loop."""
    seeds = range(first_seed, first_seed + count)
    texts = [example_memo(brief_for(seed)) for seed in seeds]
    t = time.perf_counter()
    for seed, text in zip(seeds, texts, strict=True):
        review_memo(brief_for(seed), text)
    return count / (time.perf_counter() - t)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memos", type=int, default=200)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    if connection.vendor != "postgresql" or app.conf.task_always_eager:
        sys.exit("set DATABASE_URL (PostgreSQL) and CELERY_BROKER_URL (Redis)")

    settings_dict = connection.settings_dict
    settings_dict.setdefault("TEST", {})["NAME"] = f"{settings_dict['NAME']}_memo_bench"
    real_name = settings_dict["NAME"]
    bench_db = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        course = Course.objects.create(
            slug=CAPSTONE_COURSE, title="Foundations", summary="Bench.", order=0
        )
        print(f"database {bench_db}, broker {app.conf.broker_url.split('@')[-1]}")
        rate = pure_rate(args.memos, 10_000)
        print(f"brief + review in this process, no queue: {rate:.1f} memos/s")
        seed = 1
        for workers in args.workers:
            r = run(course, workers, args.memos, seed)
            seed += args.memos + 3 * workers
            print(
                f"{r['workers']} worker process(es): {r['memos']} reviews in "
                f"{r['seconds']:.2f} s = {r['per_second']:.1f} reviews/s "
                f"(median {r['median_in_worker_ms']:.0f} ms from start to written)"
            )
    finally:
        connection.creation.destroy_test_db(real_name, verbosity=0)


if __name__ == "__main__":
    main()
