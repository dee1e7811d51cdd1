"""The benches serve the service through bench.urls (the floor endpoints beside it), so
what a bench measures must answer as the service does, errors included: a database
outage met in middleware is the service's 503 with Retry-After, not Django's 500."""

from unittest import mock

import pytest
from django.db import OperationalError
from django.test import Client, override_settings

from tests.factories import UserFactory


@pytest.mark.django_db
@pytest.mark.parametrize("urlconf", ["config.urls", "bench.urls"])
def test_an_outage_met_in_middleware_is_a_503_under_either_urlconf(urlconf):
    client = Client(raise_request_exception=False)
    client.force_login(UserFactory())  # a session cookie: the middleware reads the session
    load = "django.contrib.sessions.backends.db.SessionStore.load"
    with override_settings(ROOT_URLCONF=urlconf), mock.patch(load, side_effect=OperationalError):
        response = client.post("/api/attempts/1/responses/", {}, content_type="application/json")
    assert response.status_code == 503
    assert response["Retry-After"]
    assert response.json()["errors"][0]["code"] == "service_unavailable"
