"""Memo reviews on real Redis and real worker processes: a review is done once, even
when the process running it is killed or the broker is down when it is queued.

Every test starts its own worker (`celery -A tests.services.worker_app worker`, the
project's app plus a test-only hook that can slow a review down) on a private queue, and
sends the reviews there by overriding the `reviews` route in this process only, so the
real path runs: memo_submit -> transaction.on_commit -> review_enqueue -> broker ->
worker -> memo_review_run. "Exactly once" is read from the version row (`deliveries`
counts the starts, the review is the pure review of the text) and from Redis: once the
review is done nothing for the queue is left waiting or unacknowledged, and a further
wait changes nothing.

How each process is killed:
- the pool child: SIGKILL to the pid Celery reports for the running task
  (`inspect().active()`); the main process sees the child die, acks_late plus
  reject_on_worker_lost requeue the message and a new child takes it;
- the whole worker: it runs in its own session (process group), and SIGKILL goes to the
  group, main process and child at once; nothing is acknowledged or rejected, so the
  message stays in Redis' unacked set until the visibility timeout (5 s here) passes and
  a worker's restore sweep puts it back on the queue;
- Redis: a private redis-server on a spare port, stopped and started again by the test
  (the shared server the suite uses is never touched).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
import redis
from celery.app.routes import prepare
from django.db import connection

from capstone.memo_review.example import example_memo
from capstone.memo_review.figures import best_plan
from capstone.memo_review.review import review_memo
from capstone.models import MemoVersion
from capstone.services import (
    CAPSTONE_COURSE,
    capstone_brief,
    capstone_get_or_create,
    memo_reviews_requeue_stuck,
    memo_submit,
    review_enqueue,
)
from config.celery import app
from tests.factories import CourseFactory, UserFactory
from tests.services.redis_server import RedisServer

ROOT = Path(__file__).resolve().parents[2]
TASK = "capstone.tasks.review_memo_version"
NODE = os.uname().nodename
VISIBILITY = 5  # seconds, for the whole-worker kill
SEED = 234_975_983_646_982

pytestmark = pytest.mark.timeout(90)


# ------------------------------------------------------------------------------ helpers


def wait_for(what: str, check, timeout: float = 30, every: float = 0.1):
    """Poll check() until it returns something truthy; fail saying what never happened."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every)
    pytest.fail(f"{what}: not within {timeout:g} s")


def version_where(pk: int, **expected):
    """The version row when every field has the expected value, else None."""
    version = MemoVersion.objects.get(pk=pk)
    ok = all(getattr(version, field) == value for field, value in expected.items())
    return version if ok else None


def broker_backlog(url: str, queue: str) -> dict:
    """What Redis still holds for the queue: messages waiting, and messages delivered but
    not acknowledged (kombu keeps those in the `unacked` hash until ack or restore)."""
    client = redis.Redis.from_url(url)
    try:
        waiting = client.llen(queue)
        unacked = [
            raw
            for raw in client.hvals("unacked")
            if json.loads(raw)[2] == queue  # [message, exchange, routing_key]
        ]
    finally:
        client.close()
    return {"waiting": waiting, "unacked": len(unacked)}


class Worker:
    """One `celery worker` process in its own session, consuming one private queue.

    Its output goes to a file (a pipe nobody reads would fill and block it) that a
    failing test prints."""

    def __init__(self, queue: str, log_dir: Path, *, env=None):
        self.name = f"{queue}-{uuid.uuid4().hex[:4]}@{NODE}"
        self.log = log_dir / f"{self.name.split('@')[0]}.log"
        db = connection.settings_dict
        environ = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
            "CONN_MAX_AGE": "0",
            **(env or {}),
        }
        with self.log.open("w") as out:
            self.proc = subprocess.Popen(
                [
                    sys.executable, "-m", "celery", "-A", "tests.services.worker_app",
                    "worker", "--pool", "prefork", "--concurrency", "1",
                    "--queues", queue, "--hostname", self.name,
                    "--without-gossip", "--without-mingle", "--without-heartbeat",
                    "--loglevel", "WARNING",
                ],
                cwd=ROOT, env=environ, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"worker exited ({self.proc.returncode}):\n{self.output()}")
            if app.control.ping(destination=[self.name], timeout=1):
                return
        pytest.fail(f"worker did not answer a ping within {timeout:g} s:\n{self.output()}")

    def running_task_pid(self) -> int:
        """The pool process running the worker's one active task."""

        def active():
            replies = app.control.inspect(destination=[self.name], timeout=2).active() or {}
            tasks = replies.get(self.name) or []
            return tasks[0]["worker_pid"] if len(tasks) == 1 else None

        return wait_for("the worker reports its running review", active, timeout=15)

    def pool_pids(self) -> list[int]:
        stats = app.control.inspect(destination=[self.name], timeout=2).stats() or {}
        return stats[self.name]["pool"]["processes"]

    def kill_all(self) -> None:
        """SIGKILL to the worker's process group: the main process and its children."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        """SIGKILL to the group: the test is over and nothing of its own is in flight (a
        warm shutdown costs some 4 s a worker; the review_queue fixture drops whatever a
        failed test left in Redis)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)


# ----------------------------------------------------------------------------- fixtures


@pytest.fixture
def capstone(services_ready, transactional_db):
    """A learner with a capstone in the Foundations course (which the test creates), on a
    fixed seed so that a failure replays with the same brief."""
    CourseFactory(slug=CAPSTONE_COURSE)
    capstone = capstone_get_or_create(learner=UserFactory(username="memo-writer"))
    capstone.seed = SEED
    capstone.save(update_fields=["seed"])
    return capstone


@pytest.fixture
def review_queue(services_ready, monkeypatch):
    """A private queue: reviews this process queues go there instead of `reviews`."""
    queue = f"burnin-reviews-{uuid.uuid4().hex[:8]}"
    monkeypatch.setattr(app.amqp.router, "routes", prepare({TASK: {"queue": queue}}))
    yield queue
    # A failed test may leave its message waiting or unacked in the shared Redis.
    client = redis.Redis.from_url(services_ready)
    try:
        for tag, raw in client.hgetall("unacked").items():
            if json.loads(raw)[2] == queue:
                client.hdel("unacked", tag)
                client.zrem("unacked_index", tag)
        client.delete(queue, f"_kombu.binding.{queue}", f"_kombu.binding_permanent.{queue}")
    finally:
        client.close()


@pytest.fixture
def workers(tmp_path):
    """Start workers with workers(queue, ...); all are stopped at the end, and a failing
    test shows their output."""
    started: list[Worker] = []

    def start(queue: str, **kwargs) -> Worker:
        worker = Worker(queue, tmp_path, **kwargs)
        started.append(worker)
        worker.wait_ready()
        return worker

    yield start
    for worker in started:
        worker.stop()
        print(f"--- {worker.name}\n{worker.output()}")  # shown when the test fails


def worker_env(server: RedisServer, **extra) -> dict:
    return {"CELERY_BROKER_URL": server.url, **{k: str(v) for k, v in extra.items()}}


def assert_reviewed_once(version: MemoVersion, brief, broker: str, queue: str, deliveries):
    """The stored review is the pure review of the text, started `deliveries` times, and
    nothing is left in Redis that could deliver it again; a second look changes nothing."""
    assert version.review_status == MemoVersion.ReviewStatus.DONE
    assert version.review_error == ""
    expected = review_memo(brief, version.markdown)
    assert version.review == expected.as_dict()
    assert (version.score, version.max_score) == (expected.score, expected.max_score)
    assert version.deliveries == deliveries
    assert version.queued_at <= version.started_at <= version.reviewed_at
    wait_for(
        "the broker forgets the delivered review",
        lambda: broker_backlog(broker, queue) == {"waiting": 0, "unacked": 0},
        timeout=10,
    )
    time.sleep(2)
    again = MemoVersion.objects.get(pk=version.pk)
    assert (again.deliveries, again.reviewed_at) == (deliveries, version.reviewed_at)


# -------------------------------------------------------------------------------- tests


def test_a_submitted_memo_is_reviewed_by_a_worker(services_ready, capstone, review_queue, workers):
    brief = capstone_brief(capstone)
    workers(review_queue)
    version = memo_submit(learner=capstone.learner, markdown=example_memo(brief))
    assert version.review_status == MemoVersion.ReviewStatus.QUEUED

    done = wait_for(
        "the review is done",
        lambda: version_where(version.pk, review_status=MemoVersion.ReviewStatus.DONE),
    )
    assert done.max_score > 0
    assert done.score == done.max_score  # the worked example loses no points
    assert_reviewed_once(done, brief, services_ready, review_queue, deliveries=1)


def test_planted_mistakes_are_flagged_with_the_right_figures(
    services_ready, capstone, review_queue, workers
):
    brief = capstone_brief(capstone)
    workers(review_queue)
    text = example_memo(brief, mistakes=("arithmetic", "gb-vs-gib"))
    version = memo_submit(learner=capstone.learner, markdown=text)

    done = wait_for(
        "the review is done",
        lambda: version_where(version.pk, review_status=MemoVersion.ReviewStatus.DONE),
    )
    assert done.score < done.max_score
    check_planted_mistakes(done.review, brief)
    assert_reviewed_once(done, brief, services_ready, review_queue, deliveries=1)


def test_a_killed_pool_process_is_replaced_and_the_review_done_once(
    services_ready, capstone, review_queue, workers
):
    brief = capstone_brief(capstone)
    # Each run of the review takes 2 s more in this worker's pool processes.
    worker = workers(review_queue, env={"BURNIN_TEST_REVIEW_SECONDS": "2"})
    version = memo_submit(learner=capstone.learner, markdown=example_memo(brief))
    wait_for(
        "the review starts",
        lambda: version_where(version.pk, review_status="running", deliveries=1),
    )
    child = worker.running_task_pid()
    assert worker.pool_pids() == [child]

    os.kill(child, signal.SIGKILL)

    done = wait_for(
        "the review is done after the kill",
        lambda: version_where(version.pk, review_status=MemoVersion.ReviewStatus.DONE),
    )
    assert worker.proc.poll() is None  # the main process lived on
    replacement = worker.pool_pids()
    assert len(replacement) == 1 and child not in replacement
    assert "WorkerLostError" in worker.output()
    assert_reviewed_once(done, brief, services_ready, review_queue, deliveries=2)


def test_a_killed_worker_is_redelivered_after_the_visibility_timeout(
    capstone, private_redis, review_queue, workers, monkeypatch
):
    brief = capstone_brief(capstone)
    monkeypatch.setitem(app.conf.broker_transport_options, "visibility_timeout", VISIBILITY)
    env = worker_env(private_redis, CELERY_VISIBILITY_TIMEOUT=VISIBILITY)
    first = workers(review_queue, env={**env, "BURNIN_TEST_REVIEW_SECONDS": "60"})
    version = memo_submit(learner=capstone.learner, markdown=example_memo(brief))
    wait_for(
        "the review starts",
        lambda: version_where(version.pk, review_status="running", deliveries=1),
    )
    delivered = time.monotonic()

    first.kill_all()

    # Neither acknowledged nor given back: Redis holds it as delivered, unacked.
    assert broker_backlog(private_redis.url, review_queue) == {"waiting": 0, "unacked": 1}
    # The next worker comes up once the visibility timeout has passed (as a restarted
    # container would after a crash); its restore sweep at start puts the message back.
    time.sleep(max(0.0, delivered + VISIBILITY + 0.5 - time.monotonic()))
    workers(review_queue, env=env)

    done = wait_for(
        "the review is redelivered and done",
        lambda: version_where(version.pk, review_status=MemoVersion.ReviewStatus.DONE),
    )
    assert_reviewed_once(done, brief, private_redis.url, review_queue, deliveries=2)


def test_a_review_queued_while_redis_is_down_is_delivered_once_it_is_back(
    capstone, private_redis, review_queue, workers, caplog
):
    brief = capstone_brief(capstone)
    workers(review_queue, env=worker_env(private_redis))
    private_redis.stop()

    version = memo_submit(learner=capstone.learner, markdown=example_memo(brief))

    # The memo is stored and the request succeeds; the review simply is not queued.
    stored = MemoVersion.objects.get(pk=version.pk)
    assert (stored.review_status, stored.deliveries) == (MemoVersion.ReviewStatus.QUEUED, 0)
    assert "review not queued" in caplog.text
    assert review_enqueue(version.pk) is False

    private_redis.start()
    assert memo_reviews_requeue_stuck(after=timedelta(0)) == 1

    done = wait_for(
        "the requeued review is done",
        lambda: version_where(version.pk, review_status=MemoVersion.ReviewStatus.DONE),
        timeout=45,
    )
    assert_reviewed_once(done, brief, private_redis.url, review_queue, deliveries=1)


def check_planted_mistakes(review: dict, brief) -> None:
    """The "arithmetic" memo states one replica too few; "gb-vs-gib" the weights in GiB
    labelled GB. Each criterion gets no points, quotes the wrong figure and names the
    right one, worked out here from the brief."""
    criteria = {c["code"]: c for c in review["criteria"]}

    weights_gb = brief.n_params * {"bf16": 2, "fp8": 1}[brief.weight_dtype] / 1e9
    weights = criteria["weights"]
    assert weights["points"] == 0
    assert weights["misconception"] == "gb-vs-gib"
    assert weights["evidence"] == f"Weights: {weights_gb * 1e9 / 2**30:.4g} GB"
    assert f"Expected {weights_gb:.4g} GB" in weights["comment"]

    plan = best_plan(brief)
    # The floor is Little's law at the batch memory and TPOT allow, or the compute floor
    # (60% of dense peak), whichever is higher.
    right = max(math.ceil(plan.peak_concurrency / plan.batch), plan.replicas_compute)
    assert right == plan.replicas > 1
    replicas = criteria["replicas"]
    assert replicas["points"] == 0
    assert replicas["evidence"] == f"Replicas: {right - 1}"
    assert re.search(rf"\bat least {right}\b", replicas["comment"])
    assert criteria["gpus"]["points"] == 0  # GPUs follow the short fleet
    assert re.search(rf"\bExpected {right * plan.tp}\b", criteria["gpus"]["comment"])

    lost = {code for code, c in criteria.items() if c["points"] < c["max_points"]}
    # A fleet one replica short fails a feasibility check, and its cost follows it.
    assert criteria["feasibility"]["points"] == 0
    assert criteria["feasibility"]["comment"].startswith("Fails the ")
    assert lost <= {"weights", "replicas", "gpus", "consistency", "monthly-cost", "feasibility"}
