"""Settings for the chaos run (bench/chaos.py): the benches' (production settings, the
throttles that would count 200 learners on one loopback address as one client lifted),
with the broker's redelivery brought into the run's minutes.

A Celery worker SIGKILLed with a task taken (acks_late) leaves its message in Redis'
unacked set until `visibility_timeout` has passed since delivery, and workers sweep that
set every `unacked_restore_interval * unacked_restore_throttle` seconds. Production keeps
600 s and kombu's 100 s (a review is redelivered within about 12 minutes); the run uses
30 s and a 5 s sweep, so every killed task comes back while it watches. Both stay above
the longest task, which is what makes a shorter timeout safe. Never used by the service.
"""

from bench.settings_bench import *  # noqa: F403
from bench.settings_bench import CELERY_BROKER_TRANSPORT_OPTIONS

CELERY_BROKER_TRANSPORT_OPTIONS = {
    **CELERY_BROKER_TRANSPORT_OPTIONS,
    "visibility_timeout": 30,
    "unacked_restore_interval": 5,
    "unacked_restore_throttle": 1,
}

# The pages the LMS's learners land on name static files by the manifest's hashed names,
# as production's do; the run fetches none of them, so they are not compressed as well
# (whitenoise's compression takes 30 s of the run's set-up for files nobody reads).
STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"},
}
