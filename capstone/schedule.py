"""Beat entries for the capstone, merged into CELERY_BEAT_SCHEDULE by the settings."""

BEAT_SCHEDULE = {
    "capstone-requeue-stuck-reviews": {
        "task": "capstone.tasks.requeue_stuck_reviews",
        # Every 5 minutes: a review queued or running for 15 minutes (a lost message, a
        # worker killed before it acknowledged) is queued again.
        "schedule": 300.0,
    },
}
