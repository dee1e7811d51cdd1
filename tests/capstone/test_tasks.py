"""The capstone's tasks as the worker and beat find them: registered under the capstone's
names, the review routed to its own queue, the stuck-review sweep scheduled."""

from celery.app.routes import prepare
from django.conf import settings

from capstone import tasks
from capstone.schedule import BEAT_SCHEDULE
from config.celery import app


def test_the_sweep_is_scheduled_every_five_minutes_under_the_capstones_name():
    entry = BEAT_SCHEDULE["capstone-requeue-stuck-reviews"]
    assert entry["task"] == tasks.requeue_stuck_reviews.name
    assert entry["task"] == "capstone.tasks.requeue_stuck_reviews" and entry["task"] in app.tasks
    assert settings.CELERY_BEAT_SCHEDULE["capstone-requeue-stuck-reviews"] == entry


def test_reviews_go_to_the_reviews_queue():
    name = tasks.review_memo_version.name
    assert name == "capstone.tasks.review_memo_version" and name in app.tasks
    routes = prepare(settings.CELERY_TASK_ROUTES)
    assert routes[0](name, (), {}, {}) == {"queue": "reviews"}
