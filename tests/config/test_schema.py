"""The OpenAPI schema of the whole project builds, validates and has no warnings."""

import io

from django.core.management import call_command


def test_schema_builds_without_warnings(tmp_path):
    target = tmp_path / "schema.yaml"
    call_command(
        "spectacular", "--fail-on-warn", "--validate", "--file", str(target), stdout=io.StringIO()
    )
    text = target.read_text()
    for path in (
        "/api/hardware/accelerators/",
        "/api/courses/",
        "/api/quizzes/",
        "/api/me/mastery/",
    ):
        assert path in text
