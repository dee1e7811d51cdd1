"""Beat entries for assess, merged into CELERY_BEAT_SCHEDULE by the settings."""

BEAT_SCHEDULE = {
    "assess-expire-attempts": {
        "task": "assess.tasks.expire_attempts",
        # Every minute: submissions check the deadline themselves, so this only bounds
        # how long a timed-out attempt shows as open.
        "schedule": 60.0,
    },
    "assess-release-mastery": {
        "task": "assess.tasks.release_mastery",
        # Every minute: held answers of a quiz with feedback after its close reach
        # mastery within a minute of the close (finish and expiry release at once).
        "schedule": 60.0,
    },
    "assess-top-up-variants": {
        "task": "assess.tasks.top_up_variants",
        # Every minute: a quiz's pool is filled within a minute of the hour before it
        # opens, and what a burst of starts took is drawn again before the next burst.
        "schedule": 60.0,
    },
}
