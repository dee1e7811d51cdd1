"""Redis as a cache that an outage degrades instead of breaking.

Production keeps its cache on Redis (CACHE_URL): the sign-in throttles' counts, the
certification thresholds, LTI nonces and key sets, LMS access tokens. Django's
RedisCache raises on a dead server and waits forever on a hung one, so an answer that
changed mastery (whose after-commit handler reads the thresholds) would come back as a
500 although it is stored. Here every read misses and every write is dropped, with a
warning, after at most the socket timeouts set in settings:

- `get` returns the default and `get_or_set` computes the value (from the database),
- `set`, `delete` and friends do nothing,
- `add` answers False: a claim is not granted. That fails closed where a claim guards
  something (an LTI nonce used once, a roster refresh once per interval) and merely
  skips a refresh elsewhere.

The sign-in throttles must keep counting while Redis is down (not counting would lift every
limit): they read and write through the cache's `raising()`, which lets the error through, and
count in a per-process store meanwhile (api_common/throttles.py).
"""

from __future__ import annotations

import logging

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

log = logging.getLogger(__name__)


class TolerantRedisCache(RedisCache):
    def raising(self) -> _Raising:
        """This cache's get and set without the tolerance, for a caller with a fallback
        of its own (the sign-in throttles)."""
        return _Raising(self)

    def _tolerant(self, op: str, fallback, call):
        try:
            return call()
        except RedisError as err:
            log.warning("cache %s skipped, Redis unavailable: %s", op, err)
            return fallback

    def get(self, key, default=None, version=None):
        return self._tolerant(
            "get", default, lambda: super(TolerantRedisCache, self).get(key, default, version)
        )

    def get_many(self, keys, version=None):
        return self._tolerant(
            "get_many", {}, lambda: super(TolerantRedisCache, self).get_many(keys, version)
        )

    def has_key(self, key, version=None):
        return self._tolerant(
            "has_key", False, lambda: super(TolerantRedisCache, self).has_key(key, version)
        )

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._tolerant(
            "add", False, lambda: super(TolerantRedisCache, self).add(key, value, timeout, version)
        )

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        self._tolerant(
            "set", None, lambda: super(TolerantRedisCache, self).set(key, value, timeout, version)
        )

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        return self._tolerant(
            "set_many",
            list(data),
            lambda: super(TolerantRedisCache, self).set_many(data, timeout, version),
        )

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._tolerant(
            "touch", False, lambda: super(TolerantRedisCache, self).touch(key, timeout, version)
        )

    def delete(self, key, version=None):
        return self._tolerant(
            "delete", False, lambda: super(TolerantRedisCache, self).delete(key, version)
        )

    def delete_many(self, keys, version=None):
        self._tolerant(
            "delete_many", None, lambda: super(TolerantRedisCache, self).delete_many(keys, version)
        )


class _Raising:
    """A TolerantRedisCache's get and set with Redis's errors let through."""

    def __init__(self, cache: TolerantRedisCache):
        self._cache = cache

    def get(self, key, default=None):
        return RedisCache.get(self._cache, key, default)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT):
        RedisCache.set(self._cache, key, value, timeout)
