"""Session fixtures of the API contract tests: the app served by gunicorn on its own
database (tests/contract/live.py), its schema as served, and a client generated from it.

Nothing here touches pytest's test database, so these tests need no `db` fixture and leave
the rest of the suite alone.
"""

from __future__ import annotations

import json
import urllib.request

import pytest

from tests.contract.generated import GeneratedApi, generate
from tests.contract.live import LiveApp
from tests.openapi import OpenApiDocument


@pytest.fixture(scope="session")
def live_app(tmp_path_factory):
    app = LiveApp(tmp_path_factory.mktemp("contract-app")).start()
    yield app
    app.stop()


@pytest.fixture(scope="session")
def schema_file(live_app, tmp_path_factory):
    """/api/schema/?format=json as the live server serves it."""
    url = f"{live_app.url}/api/schema/?format=json"
    with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310 - 127.0.0.1
        assert response.status == 200
        text = response.read().decode()
    path = tmp_path_factory.mktemp("contract-schema") / "schema.json"
    path.write_text(text)
    return path


@pytest.fixture(scope="session")
def document(schema_file):
    return OpenApiDocument(json.loads(schema_file.read_text()))


@pytest.fixture(scope="session")
def generation(schema_file, tmp_path_factory):
    return generate(schema_file, tmp_path_factory.mktemp("contract-client"))


@pytest.fixture(scope="session")
def api(generation, live_app, document):
    assert generation.returncode == 0, generation.output
    return GeneratedApi(generation, live_app, document)


@pytest.fixture(scope="session")
def seed(live_app):
    return live_app.seed
