"""Prometheus metrics that processes record as they work (issue 44): HTTP requests by
route and status with their database queries, Celery tasks by name and outcome, memo
review lag, and answers by outcome. What is read from the database at scrape time (queue
depths, pending passbacks, certificates) is frontend.metrics'; the endpoint is
frontend.views.metrics.

Processes: under `make run` one process keeps its metrics in memory. In production
(gunicorn workers, Celery prefork children, several containers) set METRICS_DIR to a
directory every process of the service can write (a shared volume in compose): each
container keeps its processes' files in its own subdirectory, named by host name and
wiped when the container's first process starts (gunicorn's master, Celery's main
process), and the endpoint merges every subdirectory's files (prometheus_client's
multiprocess mode). config.metrics_dir points prometheus_client there; settings call it
first, before anything imports prometheus_client.

Labels stay bounded: a route is the URL pattern that matched ("api/attempts/<int:pk>/"),
never the path; a path that matched nothing is "unmatched".
"""

from __future__ import annotations

import time

from config.metrics_dir import ROOT_ENV, configure_process

configure_process()  # again, for a process that did not load the settings first

from prometheus_client import Counter, Histogram  # noqa: E402  (after the directory is set)

__all__ = ["ROOT_ENV"]

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

REQUEST_SECONDS = Histogram(
    "burnin_http_request_duration_seconds",
    "Time to answer an HTTP request, by route pattern, method and status.",
    ["route", "method", "status"],
    buckets=LATENCY_BUCKETS,
)
REQUEST_QUERIES = Histogram(
    "burnin_http_request_db_queries",
    "Database queries one HTTP request made, by route pattern.",
    ["route"],
    buckets=(0, 1, 2, 4, 8, 16, 32, 64, 128, 256),
)
DB_QUERY_SECONDS = Counter(
    "burnin_db_query_seconds",
    "Time spent in database queries while answering requests, by route pattern.",
    ["route"],
)
TASK_SECONDS = Histogram(
    "burnin_celery_task_duration_seconds",
    "Run time of a Celery task, by task name and outcome (success, failure, retry).",
    ["task", "outcome"],
    buckets=LATENCY_BUCKETS + (60.0, 120.0, 300.0),
)
TASK_FAILURES = Counter(
    "burnin_celery_task_failures", "Celery tasks that raised, by task name.", ["task"]
)
MEMO_REVIEW_LAG = Histogram(
    "burnin_memo_review_lag_seconds",
    "From a memo version's submission to its finished automated review.",
    buckets=(1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0),
)
ANSWERS = Counter(
    "burnin_answers",
    "Answers saved, by outcome (correct, wrong, invalid): rate() gives answers per second.",
    ["outcome"],
)


class QueryTimer:
    """A database execute wrapper (connection.execute_wrapper) counting one request's
    queries and their time."""

    def __init__(self) -> None:
        self.count = 0
        self.seconds = 0.0

    def __call__(self, execute, sql, params, many, context):
        start = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.count += 1
            self.seconds += time.perf_counter() - start


def answer_saved(*, valid: bool, correct: bool) -> None:
    ANSWERS.labels("invalid" if not valid else "correct" if correct else "wrong").inc()
