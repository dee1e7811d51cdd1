"""The project's Celery app, as worker processes started by tests/services load it
(`celery -A tests.services.worker_app worker ...`), with one test-only hook.

With BURNIN_TEST_REVIEW_SECONDS set in the worker's environment, every memo review
sleeps that long before it runs, so a test can kill the process while a review is in
flight. The hook wraps `capstone.memo_review.review.review_memo`, which
`memo_review_run` imports at call time, in each prefork pool process as it starts
(`worker_process_init`, so a replacement child is slowed too). Nothing else differs
from `-A config`: the task, its options, the routes and the broker settings are the
project's own, and the test process itself is never slowed.
"""

import os
import time

from celery.signals import worker_process_init

from config.celery import app

__all__ = ["app"]


@worker_process_init.connect
def _slow_reviews(**_):
    seconds = float(os.environ.get("BURNIN_TEST_REVIEW_SECONDS") or 0)
    if seconds <= 0:
        return
    from capstone.memo_review import review

    original = review.review_memo

    def review_memo_slowly(brief, text):
        time.sleep(seconds)
        return original(brief, text)

    review.review_memo = review_memo_slowly
