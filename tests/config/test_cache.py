"""A cache on a Redis that is down or hung degrades (config/cache.py): reads miss,
writes are dropped, claims are refused, each within the socket timeouts; with Redis up
it is Django's RedisCache."""

from __future__ import annotations

import os
import socket
import time
import uuid

import pytest

from config.cache import TolerantRedisCache

OPTIONS = {"socket_timeout": 0.5, "socket_connect_timeout": 0.5}


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def every_operation(cache) -> dict:
    return {
        "get": cache.get("k", "default"),
        "get_or_set": cache.get_or_set("k", lambda: "from the database", 60),
        "get_many": cache.get_many(["a", "b"]),
        "has_key": cache.has_key("k"),
        "add": cache.add("claim", 1, 60),
        "set": cache.set("k", 1, 60),
        "set_many": cache.set_many({"a": 1}, 60),
        "touch": cache.touch("k", 60),
        "delete": cache.delete("k"),
        "delete_many": cache.delete_many(["a"]),
    }


DEGRADED = {
    "get": "default",
    "get_or_set": "from the database",
    "get_many": {},
    "has_key": False,
    "add": False,  # a claim (an LTI nonce, a roster refresh) is not granted
    "set": None,
    "set_many": ["a"],
    "touch": False,
    "delete": False,
    "delete_many": None,
}


def test_a_down_redis_degrades_every_operation_at_once(caplog):
    cache = TolerantRedisCache(f"redis://127.0.0.1:{closed_port()}/0", {"OPTIONS": OPTIONS})
    started = time.monotonic()
    assert every_operation(cache) == DEGRADED
    assert time.monotonic() - started < 5
    assert "Redis unavailable" in caplog.text


def test_a_hung_redis_costs_at_most_the_timeouts(silent_server):
    cache = TolerantRedisCache(f"redis://127.0.0.1:{silent_server}/0", {"OPTIONS": OPTIONS})
    started = time.monotonic()
    assert cache.get("k", "default") == "default"
    assert cache.add("claim", 1, 60) is False
    assert time.monotonic() - started < 4  # two operations, 0.5 s socket timeout each


@pytest.mark.skipif(not os.environ.get("CELERY_BROKER_URL"), reason="needs the real Redis")
def test_with_redis_up_it_is_a_cache():
    url = os.environ["CELERY_BROKER_URL"].rsplit("/", 1)[0] + "/12"
    cache = TolerantRedisCache(url, {"OPTIONS": OPTIONS, "KEY_PREFIX": uuid.uuid4().hex})
    assert cache.add("claim", 1, 60) is True and cache.add("claim", 1, 60) is False
    cache.set("k", "v", 60)
    assert cache.get("k") == "v"
    assert cache.get_or_set("g", lambda: "computed", 60) == "computed" == cache.get("g")
    cache.delete_many(["k", "g", "claim"])
