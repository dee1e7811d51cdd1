"""Test settings: the same environment-driven settings, with test-only conveniences."""

import os

os.environ.setdefault("DEBUG", "1")

from config.settings import *  # noqa: E402,F403
from config.settings import STORAGES  # noqa: E402

# The live server cannot serve hashed static files: plain storage in tests.
STORAGES = {
    **STORAGES,
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
STATIC_URL = "/static/"
# No collected static files in tests: WhiteNoise walks STATIC_ROOT each time a test
# client loads the middleware (every new client), and the benches' collectstatic leaves
# one in the checkout (1,275 files here: the quiz-creation fuzz test took 73 s, 18 s
# without). The live server serves static files from the apps' folders (the finders).
STATIC_ROOT = None
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
# Tests own their cache: a per-process memory cache (cleared before every test by
# tests/conftest.py), never a shared one named by CACHE_URL.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# Exams' variants are drawn ahead only where a test asks for it (settings.PREDRAW_VARIANTS
# = True, or assess.services.drawn_variants called directly): the PostgreSQL pass names a
# broker, which would switch it on for every published exam the suite makes.
PREDRAW_VARIANTS = False
