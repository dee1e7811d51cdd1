"""Beat entries for certify, merged into CELERY_BEAT_SCHEDULE by the settings."""

BEAT_SCHEDULE = {
    "certify-expire-and-remind": {
        "task": "certify.tasks.expire_and_remind",
        # Hourly: expiry is also read from the date itself, so this only bounds how long
        # a stored status lags, and a reminder goes out within the hour it falls due.
        "schedule": 3600.0,
    },
    "certify-recalibrate": {
        "task": "certify.tasks.recalibrate",
        # Nightly (every 24 h from the beat's start): the 2PL fit over every template's
        # responses so far; a second calibration the same day only adds a row.
        "schedule": 86400.0,
    },
}
