"""The OpenAPI schema of the assess routes generates with no warning and validates."""

from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_schema_has_no_warnings(tmp_path):
    out = tmp_path / "schema.yaml"
    stderr = StringIO()
    call_command(
        "spectacular",
        "--urlconf",
        "tests.assess.urls",
        "--fail-on-warn",
        "--validate",
        "--file",
        str(out),
        stderr=stderr,
    )
    assert stderr.getvalue() == ""
    text = out.read_text()
    for path in (
        "/api/quizzes/{id}/attempts/",
        "/api/attempts/{id}/responses/",
        "/api/auth/token/",
    ):
        assert path in text
