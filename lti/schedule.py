"""Beat entries for lti, merged into CELERY_BEAT_SCHEDULE by the settings."""

BEAT_SCHEDULE = {
    "lti-requeue-scores": {
        "task": "lti.tasks.requeue_scores",
        # Every 5 minutes: a score pending for 10 minutes (broker down when its grade
        # was released, a lost message) is queued again; delivery is once per row.
        "schedule": 300.0,
    },
}
