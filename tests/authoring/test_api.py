"""The authoring API: a course-wide instructor writes, checks, previews, versions,
publishes and archives a template; nobody else sees or changes a course's drafts; every
response is what the schema documents."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml
from rest_framework.test import APIClient

from assess.models import Quiz
from assess.services.attempts import attempt_finish, attempt_start
from assess.services.responses import response_submit
from authoring.models import AuthoredTemplate, AuthoredVersion
from hardware_db import catalog
from problems.engine.variants import Variant
from tests.assess.helpers import error_of, rows_of
from tests.factories import CourseFactory, CourseRoleFactory, QuizFactory, UserFactory
from tests.openapi import assert_documented

EXAMPLE = Path(__file__).parents[1] / "problems" / "authored" / "data" / "team-kv-budget.yaml"
pytestmark = pytest.mark.django_db


@pytest.fixture
def document():
    return yaml.safe_load(EXAMPLE.read_text())


@pytest.fixture
def role():
    return CourseRoleFactory()


def _client(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def author(role) -> APIClient:
    return _client(role.user)


def call(client, method: str, path: str, body=None):
    response = getattr(client, method)(path, body, format="json")
    assert_documented(response, method, path)
    return response


def base(course) -> str:
    return f"/api/courses/{course.slug}/authored-templates/"


def created(author, role, document) -> dict:
    r = call(author, "post", base(role.course), {"document": document})
    assert r.status_code == 201, r.content
    return r.json()


def test_create_read_list_and_versions(author, role, document):
    body = created(author, role, document)
    assert body["slug"] == "team-kv-budget" and body["status"] == "draft"
    assert body["course"] == role.course.slug
    assert [v["number"] for v in body["versions"]] == [1]
    assert body["versions"][0]["saved_by"] == role.user.username
    assert body["document"]["title"] == document["title"]

    changed = copy.deepcopy(document)
    changed["title"] = "KV cache for one sequence, second try"
    r = call(author, "put", "/api/authored-templates/team-kv-budget/", {"document": changed})
    assert r.status_code == 200, r.content
    assert [v["number"] for v in r.json()["versions"]] == [2, 1]
    assert r.json()["document"]["title"] == changed["title"]

    r = call(author, "get", "/api/authored-templates/team-kv-budget/versions/1/")
    assert r.json()["document"]["title"] == document["title"]
    assert (
        call(author, "get", "/api/authored-templates/team-kv-budget/versions/9/").status_code == 404
    )

    rows = rows_of(call(author, "get", base(role.course)))
    assert [(r["slug"], r["versions"], r["status"]) for r in rows] == [
        ("team-kv-budget", 2, "draft")
    ]


def test_an_invalid_document_names_each_field_and_stores_nothing(author, role, document):
    hostile = copy.deepcopy(document)
    hostile["parts"][0]["answer"] = "__import__('os').system('true')"
    r = call(author, "post", base(role.course), {"document": hostile})
    assert error_of(r, 400, "document")["detail"].startswith("parts[0].answer: ")
    del document["title"]
    r = call(author, "post", base(role.course), {"document": document})
    assert error_of(r, 400, "document")["detail"].startswith("title: ")
    assert not AuthoredTemplate.objects.exists() and not AuthoredVersion.objects.exists()

    for doc, field in ((document, "title"), (hostile, "parts[0].answer")):
        r = call(author, "post", base(role.course) + "check/", {"document": doc})
        assert r.status_code == 200
        assert r.json()["valid"] is False
        assert field in {p["field"] for p in r.json()["problems"]}
    assert not AuthoredTemplate.objects.exists()

    r = call(author, "post", base(role.course), {"document": "slug: x"})
    assert error_of(r, 400, "document")["code"] == "not_a_dict"


def test_check_passes_a_good_document_and_knows_its_own_slug(author, role, document):
    r = call(author, "post", base(role.course) + "check/", {"document": document})
    assert r.json() == {"valid": True, "problems": []}
    created(author, role, document)
    r = call(author, "post", base(role.course) + "check/", {"document": document})
    assert r.json()["valid"] is False and r.json()["problems"][0]["field"] == "slug"
    body = {"document": document, "slug": "team-kv-budget"}
    assert call(author, "post", base(role.course) + "check/", body).json()["valid"] is True


def test_preview_draws_the_seeds_with_exact_answers_and_the_check(author, role, document):
    r = call(
        author, "post", base(role.course) + "preview/", {"document": document, "seeds": [4, 7]}
    )
    assert r.status_code == 200, r.content
    body = r.json()
    assert [v["seed"] for v in body["variants"]] == [4, 7]
    for variant in body["variants"]:
        p = variant["parameters"]
        model = catalog.model(p["model"])
        # 2 (K and V) x layers x KV heads x head width x 2 bytes (BF16) x tokens
        expected = 2 * model.n_layers * model.n_kv_heads * model.head_dim * 2 * p["tokens"]
        kv = next(a for a in variant["answers"] if a["part"] == "kv")
        assert kv["unit"] == "GiB"  # the unit the statement asks in
        assert float(kv["value"]) == pytest.approx(expected / 2**30, rel=1e-5)
        assert model.name in variant["statement_html"]
    assert body["checked"] == 50 and body["failures"] == []
    slip = next(m for m in body["misconceptions"] if m["misconception"] == "k-or-v-only")
    assert slip["applies"] == 50 and slip["distinguishable"] == 50
    assert not AuthoredTemplate.objects.exists()

    default = call(author, "post", base(role.course) + "preview/", {"document": document})
    assert [v["seed"] for v in default.json()["variants"]] == [0, 1, 2]
    too_many = {"document": document, "seeds": list(range(11))}
    assert error_of(call(author, "post", base(role.course) + "preview/", too_many), 400, "seeds")


def test_publish_and_archive(author, role, document):
    created(author, role, document)
    r = call(author, "post", "/api/authored-templates/team-kv-budget/publish/")
    assert r.status_code == 200, r.content
    assert r.json()["status"] == "published"
    r = call(author, "post", "/api/authored-templates/team-kv-budget/archive/")
    assert r.json()["status"] == "archived"


def test_publish_refuses_a_template_whose_slip_is_never_told_apart(author, role, document):
    document["parts"][0]["misconceptions"][0]["answer"] = document["parts"][0]["answer"]
    created(author, role, document)
    r = call(author, "post", "/api/authored-templates/team-kv-budget/publish/")
    assert "k-or-v-only" in error_of(r, 409)["detail"]
    assert AuthoredTemplate.objects.get().status == "draft"


@pytest.mark.parametrize("who", ["learner", "other_instructor", "scoped_instructor"])
def test_only_the_courses_course_wide_instructors_and_staff(role, document, who, lms_context):
    created(_client(role.user), role, document)
    if who == "learner":
        user = UserFactory()
    elif who == "other_instructor":
        user = CourseRoleFactory(course=CourseFactory()).user
    else:
        user = CourseRoleFactory(course=role.course, lti_context=lms_context).user
    client = _client(user)
    assert call(client, "get", base(role.course)).status_code == 403
    assert call(client, "post", base(role.course), {"document": document}).status_code == 403
    body = {"document": document}
    assert call(client, "post", base(role.course) + "check/", body).status_code == 403
    assert call(client, "post", base(role.course) + "preview/", body).status_code == 403
    detail = "/api/authored-templates/team-kv-budget/"
    assert call(client, "get", detail).status_code == 404
    assert call(client, "put", detail, body).status_code == 404
    assert call(client, "post", detail + "publish/").status_code == 404
    assert call(client, "post", detail + "archive/").status_code == 404
    assert call(client, "get", detail + "versions/1/").status_code == 404
    assert AuthoredVersion.objects.count() == 1
    assert AuthoredTemplate.objects.get().status == "draft"

    staff = _client(UserFactory(is_staff=True))
    assert call(staff, "get", detail).status_code == 200


def _answered_exam(slug: str, learner):
    """A closed exam attempt of the learner on the template, its `kv` answered rightly
    under the version drawn."""
    quiz = QuizFactory(slots=[[slug]], mode=Quiz.Mode.EXAM)
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    question = attempt.questions.get()
    variant = Variant.from_params(slug, question.params, question.template_version)
    part = variant.parts["kv"]
    response_submit(
        attempt=attempt,
        question=question,
        part="kv",
        text=f"{part.value!r} {part.unit}",
        idempotency_key="regrade-1",
    )
    attempt_finish(attempt=attempt)
    return attempt, question


def test_an_edit_leaves_drawn_questions_alone_until_a_regrade(author, role, document):
    created(author, role, document)
    call(author, "post", "/api/authored-templates/team-kv-budget/publish/")
    attempt, question = _answered_exam("team-kv-budget", UserFactory())
    attempt.refresh_from_db()
    assert attempt.score == pytest.approx(0.5)  # kv right, fits_batch unanswered
    statement = question.statement_html

    edited = copy.deepcopy(document)
    edited["parts"][0]["answer"] = "3 * " + document["parts"][0]["answer"]
    call(author, "put", "/api/authored-templates/team-kv-budget/", {"document": edited})
    call(author, "post", "/api/authored-templates/team-kv-budget/publish/")
    question.refresh_from_db()
    assert question.template_version == 1 and question.statement_html == statement

    path = "/api/authored-templates/team-kv-budget/regrade/"
    dry = call(author, "post", path, {"dry_run": True}).json()
    assert dry["questions"] == 1 and dry["refused"] == ""
    assert [(c["old"], c["new"]) for c in dry["changes"]] == [(1.0, 0.0)]
    question.refresh_from_db()
    assert question.template_version == 1

    done = call(author, "post", path, {})
    assert done.status_code == 200, done.content
    assert done.json()["attempts"] == [{"attempt_id": attempt.pk, "old": 0.5, "new": 0.0}]
    question.refresh_from_db()
    attempt.refresh_from_db()
    assert question.template_version == 2 and attempt.score == 0.0


def test_a_regrade_the_new_version_cannot_take_is_refused_and_stores_nothing(
    author, role, document
):
    created(author, role, document)
    call(author, "post", "/api/authored-templates/team-kv-budget/publish/")
    attempt, question = _answered_exam("team-kv-budget", UserFactory())
    renamed = copy.deepcopy(document)
    renamed["params"]["seq_tokens"] = renamed["params"].pop("tokens")
    text = yaml.safe_dump(renamed).replace("* tokens", "* seq_tokens")
    text = text.replace("{{tokens}}", "{{seq_tokens}}")
    renamed = yaml.safe_load(text)
    r = call(author, "put", "/api/authored-templates/team-kv-budget/", {"document": renamed})
    assert r.status_code == 200, r.content
    call(author, "post", "/api/authored-templates/team-kv-budget/publish/")

    r = call(author, "post", "/api/authored-templates/team-kv-budget/regrade/", {})
    assert f"question {question.pk} drew parameters" in error_of(r, 409)["detail"]
    question.refresh_from_db()
    attempt.refresh_from_db()
    assert question.template_version == 1 and attempt.score == pytest.approx(0.5)


def test_nobody_regrades_answers_of_their_own(author, role, document):
    created(author, role, document)
    call(author, "post", "/api/authored-templates/team-kv-budget/publish/")
    _answered_exam("team-kv-budget", role.user)
    r = call(author, "post", "/api/authored-templates/team-kv-budget/regrade/", {})
    assert "yourself" in error_of(r, 403)["detail"]
    staff = _client(UserFactory(is_staff=True))
    assert (
        call(staff, "post", "/api/authored-templates/team-kv-budget/regrade/", {}).status_code
        == 200
    )


HOSTILE = [
    "__import__('os')",
    "().__class__",
    "model.__class__",
    "model.not_a_field",
    "9**9**9",
    "1+" * 50_000 + "1",
    "(" * 200 + "1" + ")" * 200,
    "(lambda: 1)()",
    "[x for x in (1, 2)]",
    "tokens[0]",
    "open('/etc/passwd')",
]


@pytest.mark.parametrize("expression", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_expressions_are_refused_by_field_and_store_nothing(
    author, role, document, expression
):
    document["parts"][0]["answer"] = expression
    r = call(author, "post", base(role.course), {"document": document})
    assert error_of(r, 400, "document")["detail"].startswith("parts[0].answer: ")
    assert not AuthoredTemplate.objects.exists() and not AuthoredVersion.objects.exists()
