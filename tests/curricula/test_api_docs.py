"""The curriculum API explains itself in the schema: every operation, parameter and
field is described, and the course list's example is a real course."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from curricula.api import COURSE_EXAMPLE
from curricula.services import curricula_load
from tests.openapi import JSON, project

PATHS = ["/api/courses/", "/api/courses/x/", "/api/lessons/x/"]


@pytest.mark.parametrize("path", PATHS)
def test_operation_parameters_and_fields_are_described(path):
    assert project().description_gaps("get", path) == []


def test_what_a_client_author_needs_is_explained():
    schema = project()
    lesson = schema.component("LessonDetail")["properties"]
    assert "problem templates" in lesson["templates"]["description"]
    assert "mastery" in lesson["skills"]["description"].lower()
    assert "null" in lesson["minutes"]["description"]
    enrol = schema.component("CourseList")["properties"]["self_enrol"]["description"]
    assert "/enrol/" in enrol and "instructors" in enrol


def test_course_list_example_fits_the_schema():
    schema = project()
    (example,) = schema.examples("get", "/api/courses/").values()
    assert schema.problems("get", "/api/courses/", 200, JSON, example) == []
    assert example["results"] == [COURSE_EXAMPLE]


@pytest.mark.django_db
def test_course_list_example_is_a_real_course():
    curricula_load()
    results = APIClient().get("/api/courses/").json()["results"]
    (served,) = [c for c in results if c["slug"] == COURSE_EXAMPLE["slug"]]
    assert {**served, "summary": None} == {**COURSE_EXAMPLE, "summary": None}
    assert served["summary"].startswith(COURSE_EXAMPLE["summary"].removesuffix("."))
