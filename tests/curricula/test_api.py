"""The read-only curriculum API: shapes, anonymous access and query budgets."""

from __future__ import annotations

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from curricula.models import Lesson
from curricula.schema import load_catalog
from curricula.services import curricula_load
from tests.curricula import urls as test_urls
from tests.curricula.conftest import LEARN, find_lesson

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.curricula.urls")]


@pytest.fixture
def client() -> APIClient:
    curricula_load()
    return APIClient()  # anonymous


NOT_FOUND = {"type": "client_error", "errors": [{"code": "not_found", "attr": None}]}


def without_detail(body: dict) -> dict:
    """An error body with the human `detail` texts left out, to compare the rest."""
    errors = [{k: v for k, v in e.items() if k != "detail"} for e in body["errors"]]
    return {**body, "errors": errors}


def test_course_list(client, django_assert_max_num_queries):
    # A page costs a count and one select with the sizes annotated, however many courses.
    with django_assert_max_num_queries(2):
        response = client.get("/api/courses/")
    assert response.status_code == 200
    page = response.json()
    assert (page["count"], page["next"], page["previous"]) == (4, None, None)
    body = page["results"]
    assert [c["slug"] for c in body] == [
        "learn-ai-infrastructure",
        "foundations-of-ai-infrastructure",
        "ai-infrastructure-llm-d-vllm-and-gpus",
        "ai-infrastructure-from-scratch",
    ]
    assert set(body[0]) >= {"slug", "title", "summary", "module_count", "lesson_count"}
    counts = {c["slug"]: (c["module_count"], c["lesson_count"]) for c in body}
    assert counts == {
        "learn-ai-infrastructure": (3, 30),
        "foundations-of-ai-infrastructure": (6, 16),
        "ai-infrastructure-llm-d-vllm-and-gpus": (1, 12),
        "ai-infrastructure-from-scratch": (1, 6),
    }


def test_course_detail_shape(client):
    response = client.get("/api/courses/learn-ai-infrastructure/")
    assert response.status_code == 200
    body = response.json()
    assert (body["slug"], body["title"]) == ("learn-ai-infrastructure", "Learn AI Infrastructure")
    assert [(m["slug"], m["title"], len(m["lessons"])) for m in body["modules"]] == [
        ("basic", "Basic", 7),
        ("intermediate", "Intermediate", 13),
        ("advanced", "Advanced", 10),
    ]
    lesson = body["modules"][0]["lessons"][5]
    assert set(lesson) >= {"slug", "title", "minutes", "objectives", "templates"}
    expected = load_catalog().course("learn-ai-infrastructure").modules[0].lessons[5]
    assert lesson["slug"] == "gpu-memory-math"
    assert lesson["minutes"] == 30
    assert lesson["objectives"] == [objective.text for objective in expected.objectives]
    assert lesson["templates"] == expected.templates  # in the file's teaching order


@pytest.mark.parametrize("slug", ["learn-ai-infrastructure", "ai-infrastructure-from-scratch"])
def test_course_detail_queries_do_not_grow_with_the_course(
    client, slug, django_assert_max_num_queries
):
    # course, modules, lessons, template links: four, for 6 lessons or 30
    with django_assert_max_num_queries(4):
        response = client.get(f"/api/courses/{slug}/")
    assert response.status_code == 200


def test_lesson_detail(client, django_assert_max_num_queries):
    with django_assert_max_num_queries(2):
        response = client.get("/api/lessons/the-kv-cache/")
    assert response.status_code == 200
    body = response.json()
    assert body["slug"] == "the-kv-cache"
    assert body["title"] == "The KV Cache"
    assert body["minutes"] == 35
    assert body["status"] == "ready"
    assert body["templates"] == [
        "kv-cache-per-token",
        "kv-cache-total",
        "kv-max-sequences",
        "decode-step-batched",
        "kv-transfer-time",
        "paged-kv-blocks",
        "prefix-cache-ttft",
        "vllm-metrics-diagnosis",
    ]
    assert body["course"] == {"slug": "learn-ai-infrastructure", "title": "Learn AI Infrastructure"}
    assert body["module"] == {"slug": "intermediate", "title": "Intermediate"}
    assert all(isinstance(o, str) and o for o in body["objectives"])
    assert "kv-cache-bytes" in body["skills"]
    # the key ideas as the data file has them (Markdown, TeX maths), not the page's HTML
    lesson = Lesson.objects.get(slug="the-kv-cache")
    assert body["key_ideas"] == lesson.key_ideas and "$" in body["key_ideas"]
    assert "<math" not in body["key_ideas"]


def test_planned_lesson_has_no_templates_and_null_minutes_where_unknown(client, edit):
    # Every packaged lesson is tested now; a course may still plan one ahead of its problems.
    def plan(doc):
        find_lesson(doc, "triton-kernels").update(templates=[], status="planned", minutes=None)

    curricula_load(data_dir=edit(LEARN, plan))
    body = client.get("/api/lessons/triton-kernels/").json()
    assert (body["status"], body["templates"], body["minutes"]) == ("planned", [], None)


def test_course_list_pages(client):
    first = client.get("/api/courses/", {"page_size": 3}).json()
    assert (first["count"], len(first["results"]), first["previous"]) == (4, 3, None)
    assert "page=2" in first["next"]
    second = client.get(first["next"]).json()
    assert ([c["slug"] for c in second["results"]], second["next"]) == (
        ["ai-infrastructure-from-scratch"],
        None,
    )
    assert second["previous"]


# "" and "last": pages DRF would serve, though the schema says an integer
@pytest.mark.parametrize("page", ["3", "0", "abc", "", "last"])
def test_out_of_range_page_is_a_json_404(client, page):
    response = client.get("/api/courses/", {"page_size": 3, "page": page})
    assert response.status_code == 404
    assert without_detail(response.json()) == NOT_FOUND


@pytest.mark.parametrize("url", ["/api/courses/no-such-course/", "/api/lessons/no-such-lesson/"])
def test_unknown_slugs_are_json_404(client, url):
    response = client.get(url)
    assert response.status_code == 404
    assert without_detail(response.json()) == NOT_FOUND
    assert "slug" in response.json()["errors"][0]["detail"]


@pytest.mark.parametrize(
    "url", ["/api/courses/", "/api/courses/learn-ai-infrastructure/", "/api/lessons/quantization/"]
)
def test_read_only(client, url):
    assert client.post(url, {}, format="json").status_code == 405
    assert client.delete(url).status_code == 405


def test_openapi_documents_the_shapes():
    schema = SchemaGenerator(patterns=test_urls.urlpatterns).get_schema(request=None, public=True)
    assert {"/api/courses/", "/api/courses/{slug}/", "/api/lessons/{slug}/"} <= set(schema["paths"])
    components = schema["components"]["schemas"]
    lesson = components["Lesson"]["properties"]
    assert lesson["templates"]["type"] == "array"
    assert lesson["templates"]["items"]["type"] == "string"
    assert lesson["objectives"]["items"]["type"] == "string"
    assert components["CourseList"]["properties"]["lesson_count"]["type"] == "integer"
    ok = schema["paths"]["/api/courses/"]["get"]["responses"]["200"]["content"]
    assert ok["application/json"]["schema"] == {
        "$ref": "#/components/schemas/PaginatedCourseListList"
    }
    assert components["Lesson"]["properties"]["minutes"]["nullable"] is True
    assert components["CourseDetail"]["properties"]["modules"]["items"] == {
        "$ref": "#/components/schemas/Module"
    }
