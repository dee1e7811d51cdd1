"""The beat schedule names a registered task; the task is idempotent."""

import pytest

from assess import tasks
from assess.schedule import BEAT_SCHEDULE
from config.celery import app


def test_schedule_runs_expire_every_minute():
    entry = BEAT_SCHEDULE["assess-expire-attempts"]
    assert entry["task"] == tasks.expire_attempts.name == "assess.tasks.expire_attempts"
    assert entry["schedule"] == 60.0
    assert entry["task"] in app.tasks


@pytest.mark.django_db
def test_expire_with_nothing_due():
    assert tasks.expire_attempts.apply().get() == 0
