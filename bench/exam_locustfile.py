"""The locust user of the exam-under-load bench (bench/exam_load.py runs it).

Each user is one learner with a token issued before the run (a password check costs
about 0.2 s by design, so sign-in is measured apart). It starts the exam as soon as it
spawns, reads the attempt, answers every part of every question, and finishes, thinking
2-8 s between requests; then it idles, so no learner ever starts a second attempt.
When every learner has finished, the run stops, so its length follows the think time
rather than a guess.

Arrivals: locust dispatches users in batches, `-r` of them at once every second (its
UsersDispatcher), so "50 a second" would be a burst of 50 simultaneous starts each
second. Each learner instead waits a uniform 0 to EXAM_ARRIVAL_SPREAD seconds (1, the
batch interval) before its start, so the learners arrive spread over each second at the
rate asked for; EXAM_ARRIVAL_SPREAD=0 keeps locust's bursts (`exam_load.py --burst`).

Environment: EXAM_FIXTURE (the JSON written by `exam_load.py --prepare`) and EXAM_RUN
(the index of the run in it: one quiz and its own learners per N). The request
sequence itself is bench.exam_load.exam_requests (importing locust monkey-patches the
process with gevent, so the tests use the sequence without it).
"""

from __future__ import annotations

import json
import os
import random

import gevent
from locust import FastHttpUser, between, events, task

from bench.exam_load import exam_requests
from bench.exam_pages import page_requests

_RUN: dict = {}
_DONE = {"finished": 0}
ARRIVAL_SPREAD_S = float(os.environ.get("EXAM_ARRIVAL_SPREAD", "1.0"))
PAGES = os.environ.get("EXAM_PAGES") == "1"


@events.init.add_listener
def _load_fixture(environment, **kwargs) -> None:
    path = os.environ.get("EXAM_FIXTURE")
    if not path:
        return
    with open(path) as f:
        run = json.load(f)["runs"][int(os.environ.get("EXAM_RUN", "0"))]
    _RUN.update(quiz=run["quiz"], tokens=list(run["tokens"]), sessions=list(run["sessions"]))


class Learner(FastHttpUser):
    # locust's geventhttpclient user: the load generator shares the service's two cores,
    # and it spends a fraction of what the requests-based HttpUser does per request.
    wait_time = between(2, 8)

    def on_start(self) -> None:
        # Through the pages (`exam_load.py --pages`): a signed-in session, else a token.
        held = _RUN.get("sessions") if PAGES else _RUN.get("tokens")
        self.token = held.pop() if held else None

    @task
    def exam(self) -> None:
        if self.token is not None:
            if ARRIVAL_SPREAD_S > 0:
                gevent.sleep(random.uniform(0, ARRIVAL_SPREAD_S))  # noqa: S311 (timing only)
            try:
                if PAGES:
                    page_requests(self.client, _RUN["quiz"], self.token, self.wait, random)
                else:
                    exam_requests(self.client, _RUN["quiz"], self.token, self.wait)
            finally:
                self.token = None
                _DONE["finished"] += 1
                runner = self.environment.runner
                if runner is not None and _DONE["finished"] >= runner.target_user_count:
                    gevent.spawn_later(2, runner.quit)  # every learner is done
        gevent.sleep(3600)  # one exam per learner: idle until the run stops
