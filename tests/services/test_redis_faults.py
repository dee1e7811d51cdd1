"""Redis down or hung when work is queued after a commit: the request still succeeds in
bounded time, the row waits pending, and the beat's requeue queues it once Redis is back;
running the queued message does the work once.

Each test uses a private redis-server (tests/services/redis_server.py), stopped or frozen
with SIGSTOP (a frozen server accepts connections and never answers: the case that used
to hold a request for good). The queued message is read back from that Redis and run in
this process with the fake LMS, so no worker is needed; test_memo_reviews covers a real
worker taking a requeued review, and killed workers.
"""

from __future__ import annotations

import base64
import json
import time
from datetime import timedelta

import pytest
import redis
from django.utils import timezone

from capstone.memo_review.example import example_memo
from capstone.models import MemoVersion
from capstone.services import (
    CAPSTONE_COURSE,
    capstone_brief,
    capstone_get_or_create,
    memo_reviews_requeue_stuck,
    memo_submit,
)
from lti.models import ScoreSync
from tests.factories import CourseFactory, UserFactory
from tests.lti.conftest import course, lms, platform, quiz, registration, tool_key  # noqa: F401
from tests.lti.test_grades import finish, launch

pytestmark = pytest.mark.timeout(60)
HUNG_PUBLISH_LIMIT = 8.0  # seconds: 2 tries x (connect + command) at 1.5 s, with slack


def take_message(url: str, queue: str):
    """Pop the one message waiting on `queue` and return (task name, args)."""
    client = redis.Redis.from_url(url)
    try:
        assert client.llen(queue) == 1
        message = json.loads(client.rpop(queue))
    finally:
        client.close()
    assert message["properties"]["body_encoding"] == "base64"
    args, _kwargs, _embed = json.loads(base64.b64decode(message["body"]))
    return message["headers"]["task"], args


def test_a_hung_broker_costs_a_memo_seconds_and_its_review_waits_for_the_requeue(
    services_ready, transactional_db, private_redis, caplog
):
    from capstone.tasks import review_memo_version

    CourseFactory(slug=CAPSTONE_COURSE)
    capstone = capstone_get_or_create(learner=UserFactory())
    private_redis.pause()
    started = time.monotonic()
    version = memo_submit(learner=capstone.learner, markdown=example_memo(capstone_brief(capstone)))
    took = time.monotonic() - started

    assert took < HUNG_PUBLISH_LIMIT
    stored = MemoVersion.objects.get(pk=version.pk)
    assert (stored.review_status, stored.deliveries) == ("queued", 0)
    assert "review not queued" in caplog.text

    private_redis.resume()
    # What the frozen server read before the client gave up may land now: drop it, as a
    # lost message, and let the requeue do its job.
    redis.Redis.from_url(private_redis.url).delete("reviews")
    assert memo_reviews_requeue_stuck(after=timedelta(0)) == 1
    task, args = take_message(private_redis.url, "reviews")
    assert (task, args) == ("capstone.tasks.review_memo_version", [version.pk])

    assert review_memo_version.apply(args=args).get() == "done"
    assert review_memo_version.apply(args=args).get() == "already"
    done = MemoVersion.objects.get(pk=version.pk)
    assert (done.review_status, done.deliveries) == ("done", 1)


def test_a_grade_released_while_redis_is_down_is_sent_once_after_the_requeue(
    services_ready,
    private_redis,
    platform,  # noqa: F811 (the fixture imported above)
    lms,  # noqa: F811
    django_capture_on_commit_callbacks,
):
    from lti.tasks import post_score

    private_redis.stop()
    attempt = finish(launch(platform), django_capture_on_commit_callbacks)

    # The answers and the finish were accepted; the score waits, pending.
    assert attempt.status == "finished" and attempt.points == 1
    sync = ScoreSync.objects.get()
    assert (sync.state, sync.tries) == ("pending", 0) and lms.scores == []

    private_redis.start()
    assert scores_requeue(now=timezone.now() + timedelta(minutes=11)) == 1
    task, args = take_message(private_redis.url, "celery")
    assert (task, args) == ("lti.tasks.post_score", [sync.pk])

    assert post_score.apply(args=args).get() == "sent"
    assert post_score.apply(args=args).get() == "sent"  # a second delivery sends nothing
    assert len(lms.scores) == 1
    assert ScoreSync.objects.get().tries == 1


def scores_requeue(*, now):
    from lti.grades import scores_requeue_stale

    return scores_requeue_stale(now=now)
