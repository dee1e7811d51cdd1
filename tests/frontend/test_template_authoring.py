"""The template authoring pages: a course-wide instructor writes a template in YAML,
sees its problems by field as they type, previews three seeds with answers, saves
versions, reads what each version changed, publishes it and finds it in the quiz
builder's library; hostile text stays inert; nobody else reaches a course's drafts."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from django.test import Client

from authoring.models import AuthoredTemplate, AuthoredVersion
from tests.factories import CourseRoleFactory, UserFactory

EXAMPLE = Path(__file__).parents[1] / "problems" / "authored" / "data" / "team-kv-budget.yaml"
HTMX = {"HTTP_HX_REQUEST": "true"}
pytestmark = pytest.mark.django_db


@pytest.fixture
def role():
    return CourseRoleFactory()


@pytest.fixture
def author(role) -> Client:
    client = Client()
    client.force_login(role.user)
    return client


def _new(role) -> str:
    return f"/teach/courses/{role.course.slug}/templates/new/"


def test_the_starter_text_saves_as_a_draft(author, role):
    page = author.get(_new(role))
    assert page.status_code == 200
    text = page.context["text"]
    assert "lessons: [" in text
    r = author.post(_new(role), {"text": text})
    assert r.status_code == 302, r.content[:2000]
    row = AuthoredTemplate.objects.get()
    assert r["Location"] == f"/teach/templates/{row.slug}/"
    assert row.status == "draft" and row.course == role.course
    listing = author.get(f"/teach/courses/{role.course.slug}/templates/").content.decode()
    assert row.slug in listing


def test_problems_by_field_keep_the_text_and_store_nothing(author, role):
    text = EXAMPLE.read_text().replace("label: KV cache for one sequence\n", "label: KV\n")
    text = text.replace("unit: byte", "unit: parsecs")
    r = author.post(_new(role), {"text": text})
    assert r.status_code == 400
    body = r.content.decode()
    assert "parts[0].unit" in body and "parsecs" in body
    assert r.context["text"] == text  # nothing typed is lost
    assert not AuthoredVersion.objects.exists()

    live = author.post(
        f"/teach/courses/{role.course.slug}/templates/check/", {"text": text}, **HTMX
    )
    assert live.status_code == 200 and "parts[0].unit" in live.content.decode()
    fine = author.post(
        f"/teach/courses/{role.course.slug}/templates/check/", {"text": EXAMPLE.read_text()}, **HTMX
    )
    assert "No problems" in fine.content.decode()
    broken = author.post(
        f"/teach/courses/{role.course.slug}/templates/check/", {"text": "slug: [unclosed"}, **HTMX
    )
    assert "(file)" in broken.content.decode() and "not valid YAML" in broken.content.decode()


def test_preview_shows_three_seeds_with_answers_and_the_check(author, role):
    path = f"/teach/courses/{role.course.slug}/templates/preview/"
    r = author.post(path, {"text": EXAMPLE.read_text()}, **HTMX)
    assert r.status_code == 200
    preview = r.context["preview"]
    assert [v.seed for v in preview.variants] == [0, 1, 2]
    body = r.content.decode()
    assert "Seed 2" in body and "k-or-v-only" in body and "50 of 50" in body
    assert not AuthoredTemplate.objects.exists()
    # Without JavaScript the button posts the whole page, the text kept.
    page = author.post(path, {"text": EXAMPLE.read_text()})
    assert page.status_code == 200 and "Seed 0" in page.content.decode()
    assert page.context["text"] == EXAMPLE.read_text()


@pytest.mark.parametrize(
    "field",
    ["statement", "solution", "hint", "label", "feedback"],
)
def test_hostile_author_text_renders_inert_in_the_preview(author, role, field):
    data = yaml.safe_load(EXAMPLE.read_text())
    hostile = '<script>alert(1)</script> <img src=x onerror="alert(2)"> [go](javascript:alert(3))'
    if field == "statement":
        data["statement"] += "\n\n" + hostile
    elif field == "solution":
        data["solution"] += "\n\n" + hostile
    elif field == "hint":
        data["hints"] = [hostile]
    elif field == "label":
        data["parts"][0]["label"] = "KV " + hostile
    else:
        data["parts"][0]["misconceptions"][0]["feedback"] = hostile
    r = author.post(
        f"/teach/courses/{role.course.slug}/templates/preview/",
        {"text": yaml.safe_dump(data, sort_keys=False)},
        **HTMX,
    )
    body = r.content.decode()
    assert r.status_code == 200
    assert "<script>alert(1)" not in body and "<img src=x" not in body
    assert 'href="javascript:' not in body


def test_versions_show_what_changed_and_publish_puts_it_in_the_builder(author, role):
    author.post(_new(role), {"text": EXAMPLE.read_text()})
    edit = "/teach/templates/team-kv-budget/"
    changed = EXAMPLE.read_text().replace(
        "title: KV cache for one sequence on our serving nodes",
        "title: KV cache for one long sequence on our serving nodes",
    )
    r = author.post(edit, {"text": changed})
    assert r.status_code == 302
    page = author.get(edit)
    body = page.content.decode()
    assert "Version 2" in body and "Version 1" in body
    assert "+title: KV cache for one long sequence" in body
    assert "-title: KV cache for one sequence on our" in body
    assert page.context["text"].startswith("slug: team-kv-budget")

    author.post(f"{edit}publish/")
    assert AuthoredTemplate.objects.get().status == "published"
    builder = author.get("/teach/quizzes/new/").content.decode()
    assert "team-kv-budget" in builder and "written for this course" in builder


@pytest.mark.parametrize("who", ["learner", "other_instructor"])
def test_nobody_else_reaches_the_courses_templates(role, who):
    Client().force_login(role.user)
    owner = Client()
    owner.force_login(role.user)
    owner.post(_new(role), {"text": EXAMPLE.read_text()})
    user = UserFactory() if who == "learner" else CourseRoleFactory().user
    client = Client()
    client.force_login(user)
    assert client.get(f"/teach/courses/{role.course.slug}/templates/").status_code == 403
    assert client.post(_new(role), {"text": EXAMPLE.read_text()}).status_code == 403
    assert client.get("/teach/templates/team-kv-budget/").status_code == 404
    assert client.post("/teach/templates/team-kv-budget/publish/").status_code == 404
    assert AuthoredTemplate.objects.get().status == "draft"


def test_only_the_latest_versions_within_the_bound_are_compared(author, role, monkeypatch):
    """difflib is quadratic in lines that differ everywhere and the page compares each
    version with the one before, so it compares the latest DIFFED_VERSIONS, each pair
    within MAX_COMPARED_LINES; the others say they were not compared."""
    from frontend.queries import template_authoring

    text = EXAMPLE.read_text()
    author.post(_new(role), {"text": text})
    edit = "/teach/templates/team-kv-budget/"
    for n in range(2, 5):
        text = text.replace(
            f"title: KV cache for one {'long ' * (n - 2)}",
            f"title: KV cache for one {'long ' * (n - 1)}",
        )
        assert author.post(edit, {"text": text}).status_code == 302
    monkeypatch.setattr(template_authoring, "DIFFED_VERSIONS", 2)
    page = author.get(edit)
    shown = {v.number: (v.compared, bool(v.diff)) for v in page.context["history"]}
    assert shown == {4: (True, True), 3: (True, True), 2: (False, False), 1: (True, False)}
    assert "not compared with version 1 here" in page.content.decode()

    monkeypatch.setattr(template_authoring, "MAX_COMPARED_LINES", 5)
    shown = {v.number: v.compared for v in author.get(edit).context["history"]}
    assert shown == {4: False, 3: False, 2: False, 1: True}
