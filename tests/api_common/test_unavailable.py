"""The database unreachable mid-request is a 503 with Retry-After, in the API's error
format under /api/ and as the 503 page elsewhere; any other error stays a 500.

The failure is simulated by patching the read each view makes (the real dropped
connection and restart run against a private PostgreSQL in tests/faults/)."""

from unittest import mock

import pytest
from django.db import InterfaceError, OperationalError
from django.test import Client, override_settings

from api_common.unavailable import CODE, RETRY_AFTER

CASES = [
    # path, what to break, the exception, expected status
    ("/api/courses/", "curricula.selectors.course_list", OperationalError, 503),
    ("/api/courses/", "curricula.selectors.course_list", InterfaceError, 503),
    ("/", "hardware_db.catalog.accelerators", OperationalError, 503),
    ("/", "hardware_db.catalog.accelerators", InterfaceError, 503),
    ("/", "hardware_db.catalog.accelerators", RuntimeError, 500),
    ("/api/courses/", "curricula.selectors.course_list", RuntimeError, 500),
]


@pytest.mark.django_db
@override_settings(DEBUG=False)
def test_database_errors_are_503_with_retry_after():
    client = Client(raise_request_exception=False)
    seen = []
    for path, target, error, expected in CASES:
        with mock.patch(target, side_effect=error("server closed the connection")):
            response = client.get(path)
        seen.append((path, error.__name__, response.status_code))
        assert response.status_code == expected, (path, error, response.content[:300])
        if expected != 503:
            assert "Retry-After" not in response
            continue
        assert response["Retry-After"] == str(RETRY_AFTER)
        if path.startswith("/api/"):
            body = response.json()
            assert body["type"] == "server_error"
            assert [e["code"] for e in body["errors"]] == [CODE]
            assert body["errors"][0]["attr"] is None
        else:
            assert b"Unavailable for a moment" in response.content
    assert len(seen) == len(CASES)
