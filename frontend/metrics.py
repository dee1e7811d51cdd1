"""The metrics read at scrape time from the database and the broker (issue 44), and the
merge of every process's recorded metrics (config.metrics).

Read per scrape, each in one query: memo reviews waiting and the oldest one's age, LMS
grade passbacks by state, certificates by status and those expiring within 30 days,
certificates issued in all; and each Celery queue's depth from the broker (Redis LLEN;
none under the embedded default, where tasks run in-process). A source that fails is
left out of that scrape and `burnin_scrape_source_up{source}` reads 0 for it, so one
slow dependency never fails the scrape.
"""

from __future__ import annotations

import glob
import os
from datetime import timedelta

from django.conf import settings
from django.db.models import Count, Min, Q
from django.utils import timezone
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector

from capstone.models import MemoVersion
from certify.models import Certificate
from config import metrics as recorded
from lti.models import ScoreSync

QUEUES = ("celery", "reviews")  # the default queue and the memo reviews' (settings)
EXPIRING_WITHIN = timedelta(days=30)


def _memo_reviews(now):
    waiting = MemoVersion.objects.filter(
        review_status__in=[MemoVersion.ReviewStatus.QUEUED, MemoVersion.ReviewStatus.RUNNING]
    ).aggregate(n=Count("pk"), oldest=Min("created_at"))
    queued = GaugeMetricFamily(
        "burnin_memo_reviews_waiting", "Memo versions queued or running for review."
    )
    queued.add_metric([], waiting["n"])
    oldest = GaugeMetricFamily(
        "burnin_memo_review_oldest_waiting_seconds",
        "Age of the oldest memo version waiting for its review (0 when none waits).",
    )
    age = (now - waiting["oldest"]).total_seconds() if waiting["oldest"] else 0.0
    oldest.add_metric([], age)
    return [queued, oldest]


def _passbacks(_now):
    counts = dict(ScoreSync.objects.values_list("state").annotate(n=Count("pk")))
    family = GaugeMetricFamily(
        "burnin_lti_grade_passbacks",
        "Grades for LMS gradebooks by state (pending: to send or retrying; failed).",
        labels=["state"],
    )
    for state in ScoreSync.State.values:
        family.add_metric([state], counts.get(state, 0))
    return [family]


def _certificates(now):
    row = Certificate.objects.aggregate(
        total=Count("pk"),
        valid=Count("pk", filter=Q(status=Certificate.Status.VALID, expires_at__gt=now)),
        expiring=Count(
            "pk",
            filter=Q(
                status=Certificate.Status.VALID,
                expires_at__gt=now,
                expires_at__lte=now + EXPIRING_WITHIN,
            ),
        ),
        revoked=Count("pk", filter=Q(status=Certificate.Status.REVOKED)),
    )
    issued = CounterMetricFamily("burnin_certificates_issued", "Certificates issued, ever.")
    issued.add_metric([], row["total"])
    status = GaugeMetricFamily(
        "burnin_certificates", "Certificates by status now.", labels=["status"]
    )
    status.add_metric(["valid"], row["valid"])
    status.add_metric(["revoked"], row["revoked"])
    status.add_metric(["expired"], row["total"] - row["valid"] - row["revoked"])
    expiring = GaugeMetricFamily(
        "burnin_certificates_expiring",
        "Valid certificates that expire within the next 30 days.",
    )
    expiring.add_metric([], row["expiring"])
    return [issued, status, expiring]


def _queues(_now):
    url = getattr(settings, "CELERY_BROKER_URL", "")
    if not url.startswith(("redis://", "rediss://")):
        return []
    import redis

    client = redis.Redis.from_url(url, socket_timeout=settings.READINESS_TIMEOUT)
    try:
        family = GaugeMetricFamily(
            "burnin_celery_queue_depth", "Tasks waiting in a Celery queue.", labels=["queue"]
        )
        for queue in QUEUES:
            family.add_metric([queue], client.llen(queue))
        return [family]
    finally:
        client.close()


SOURCES = {
    "memo_reviews": _memo_reviews,
    "passbacks": _passbacks,
    "certificates": _certificates,
    "queues": _queues,
}


class StateCollector:
    """What the database and broker say now, collected per scrape."""

    def collect(self):
        now = timezone.now()
        up = GaugeMetricFamily(
            "burnin_scrape_source_up",
            "1 when this scrape read the source, 0 when it failed (its metrics left out).",
            labels=["source"],
        )
        for name, source in SOURCES.items():
            try:
                families = list(source(now))
            except Exception:  # one source down must not fail the scrape
                up.add_metric([name], 0)
                continue
            up.add_metric([name], 1)
            yield from families
        yield up


class MergedCollector:
    """Every process's recorded metrics: the files of all containers' processes under
    METRICS_DIR (config.metrics), merged as prometheus_client's multiprocess mode does."""

    def __init__(self, root: str) -> None:
        self.root = root

    def collect(self):
        files = glob.glob(os.path.join(self.root, "*", "*.db"))
        return MultiProcessCollector.merge(files, accumulate=True)


def exposition() -> bytes:
    """The text a scrape reads."""
    state = CollectorRegistry(auto_describe=False)
    state.register(StateCollector())
    root = os.environ.get(recorded.ROOT_ENV, "")
    if root:
        processes = CollectorRegistry(auto_describe=False)
        processes.register(MergedCollector(root))
        return generate_latest(processes) + generate_latest(state)
    return generate_latest(REGISTRY) + generate_latest(state)
