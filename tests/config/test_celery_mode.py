"""Celery runs tasks in-process on the embedded defaults and on a worker once a broker is
set (the PostgreSQL pass of .ci/run sets one)."""

import os

import pytest


@pytest.mark.celery_config
def test_celery_runs_in_process_without_a_broker():
    from config.celery import app

    if os.environ.get("CELERY_BROKER_URL"):
        assert app.conf.task_always_eager is False
    else:
        assert app.conf.task_always_eager is True
