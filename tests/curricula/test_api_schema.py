"""Every course and lesson the API serves fits the schema /api/schema/ serves.

The list, every course's outline and every lesson's detail are validated with
jsonschema against the operation's documented response, as a generated client would
read them; so are the 404 and an out-of-range page. Mounted on the project's URLconf.
"""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from curricula.services import curricula_load
from tests.openapi import assert_documented

pytestmark = pytest.mark.django_db


@pytest.fixture
def client() -> APIClient:
    curricula_load()
    return APIClient()


def test_every_course_and_lesson_fits_the_schema(client):
    page = assert_documented(
        client.get("/api/courses/", {"page_size": 200}), "get", "/api/courses/"
    )
    assert page["count"] == len(page["results"]) > 0
    lessons = 0
    for row in page["results"]:
        url = f"/api/courses/{row['slug']}/"
        course = assert_documented(client.get(url), "get", url)
        assert {k: course[k] for k in ("slug", "title", "summary", "order", "self_enrol")} == {
            k: row[k] for k in ("slug", "title", "summary", "order", "self_enrol")
        }
        for module in course["modules"]:
            for lesson in module["lessons"]:
                url = f"/api/lessons/{lesson['slug']}/"
                detail = assert_documented(client.get(url), "get", url)
                assert {k: detail[k] for k in lesson} == lesson
                assert detail["course"]["slug"] == course["slug"]
                lessons += 1
    assert lessons == sum(row["lesson_count"] for row in page["results"])


def test_a_partial_page_fits_the_schema(client):
    page = assert_documented(client.get("/api/courses/", {"page_size": 1}), "get", "/api/courses/")
    assert page["next"] and len(page["results"]) == 1


@pytest.mark.parametrize(
    "url", ["/api/courses/no-such-course/", "/api/lessons/no-such-lesson/", "/api/courses/?page=9"]
)
def test_not_found_is_the_documented_json_404(client, url):
    response = client.get(url)
    assert response.status_code == 404
    body = assert_documented(response, "get", url)
    assert body["errors"][0]["code"] == "not_found"
