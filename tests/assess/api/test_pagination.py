"""Every assess list is one page: `{count, next, previous, results}`, `?page=` from 1 and
`?page_size=` (at most 200); a page past the end is a JSON 404. The bodies are the ones
the schema documents."""

from __future__ import annotations

import pytest

from api_common.pagination import MAX_PAGE_SIZE
from assess.models import Enrolment, Quiz
from tests.assess.helpers import error_of
from tests.factories import EnrolmentFactory, QuizFactory, UserFactory
from tests.openapi import assert_documented

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.assess.urls")]


@pytest.fixture
def quizzes(db) -> list[Quiz]:
    return [QuizFactory(title=f"Q{i}", slots=[["gb-gib"]]) for i in range(5)]


def test_a_page_and_its_links(api, quizzes):
    r = api.get("/api/quizzes/?page_size=2")
    assert_documented(r, "get", "/api/quizzes/")
    first = r.json()
    assert set(first) == {"count", "next", "previous", "results"}
    assert first["count"] == 5 and len(first["results"]) == 2 and first["previous"] is None
    assert first["next"].endswith("/api/quizzes/?page=2&page_size=2")

    last = api.get("/api/quizzes/?page=3&page_size=2").json()
    assert len(last["results"]) == 1 and last["next"] is None
    assert last["previous"].endswith("page=2&page_size=2")
    seen = [
        q["id"]
        for p in (1, 2, 3)
        for q in api.get(f"/api/quizzes/?page={p}&page_size=2").json()["results"]
    ]
    assert sorted(seen) == sorted(q.pk for q in quizzes)  # every quiz once, none twice


def test_the_default_page_holds_every_short_list(api, quizzes):
    body = api.get("/api/quizzes/").json()
    assert body["count"] == 5 and len(body["results"]) == 5 and body["next"] is None


def test_the_largest_page_size_is_served(api, quizzes):
    r = api.get(f"/api/quizzes/?page_size={MAX_PAGE_SIZE}")
    assert r.status_code == 200 and len(r.json()["results"]) == 5


@pytest.mark.parametrize("size", [MAX_PAGE_SIZE + 1, 0, -1, "null", "2.5", "", "٣"])
def test_a_page_size_outside_the_schema_is_a_400_naming_it(api, quizzes, size):
    r = api.get(f"/api/quizzes/?page_size={size}")
    error = error_of(r, 400)
    assert error["attr"] == "page_size" and error["code"] == "invalid"
    assert_documented(r, "get", "/api/quizzes/")


@pytest.mark.parametrize("page", ["4", "0", "last-but-one", "99999999999999999999"])
def test_a_page_out_of_range_is_a_json_404(api, quizzes, page):
    r = api.get(f"/api/quizzes/?page={page}&page_size=2")
    assert error_of(r, 404)["code"] == "not_found"
    assert_documented(r, "get", "/api/quizzes/")


def test_attempts_items_and_enrolments_are_pages_too(api, client_for, learner, instructor, course):
    quiz = QuizFactory(course=course, slots=[["gb-gib"]])
    EnrolmentFactory(user=learner, course=course)
    for name in ("ann", "bob"):
        EnrolmentFactory(user=UserFactory(username=name), course=course)
    started = api.post(f"/api/quizzes/{quiz.pk}/attempts/")
    assert started.status_code == 201
    # item analysis counts closed attempts only
    assert api.post(f"/api/attempts/{started.json()['id']}/finish/").status_code == 200
    teacher = client_for(instructor)
    for client, path, url in [
        (api, "/api/quizzes/{id}/attempts/", f"/api/quizzes/{quiz.pk}/attempts/"),
        (teacher, "/api/quizzes/{id}/items/", f"/api/quizzes/{quiz.pk}/items/"),
        (teacher, "/api/courses/{slug}/enrolments/", f"/api/courses/{course.slug}/enrolments/"),
    ]:
        r = client.get(url)
        assert_documented(r, "get", path)
        body = r.json()
        assert set(body) == {"count", "next", "previous", "results"}
        assert body["count"] == len(body["results"]) >= 1
    page = teacher.get(f"/api/courses/{course.slug}/enrolments/?page_size=1&page=2").json()
    assert page["count"] == Enrolment.objects.filter(course=course).count() == 3
    assert [row["username"] for row in page["results"]] == ["bob"]
