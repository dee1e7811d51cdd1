"""The capstone memo API: the brief, submitting a memo and its versions, reading it with
its reviews, the instructor's decision and the lists. Every response is checked against
the project's schema (assert_documented), so what the schema promises is what is sent.

Celery runs eagerly here; a review runs when the submitting transaction commits
(django_capture_on_commit_callbacks(execute=True) around the request)."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from assess.models import Enrolment
from capstone.api.serializers import (
    BriefCandidateSerializer,
    BriefDerivedSerializer,
    BriefSerializer,
    MemoReviewSerializer,
    ReviewCriterionSerializer,
)
from capstone.memo_review.brief import brief_for
from capstone.memo_review.example import example_memo
from capstone.memo_review.review import review_memo
from capstone.models import Capstone, Memo, MemoDecision, MemoVersion
from capstone.services import CAPSTONE_COURSE, MAX_MEMO_CHARS
from tests.assess.helpers import age_memo_versions, error_body, error_of, rows_of
from tests.factories import CourseFactory, CourseRoleFactory, UserFactory
from tests.openapi import JSON, assert_documented, project

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.assess.urls")]

MEMOS = "/api/memos/"
BRIEF = "/api/capstone/brief/"


@pytest.fixture
def course(db):
    """The capstone's course; `instructor` teaches it."""
    return CourseFactory(slug=CAPSTONE_COURSE)


@pytest.fixture
def teacher(client_for, instructor) -> APIClient:
    return client_for(instructor)


@pytest.fixture
def post(django_capture_on_commit_callbacks):
    """post(client, path, body, review=True): the response, documented; with review, the
    on-commit callbacks (the review) run after the request."""

    def run(client, path: str, body, *, review: bool = True):
        with django_capture_on_commit_callbacks(execute=review):
            r = client.post(path, body, format="json")
        assert_documented(r, "post", path)
        return r

    return run


def _memo_text(learner) -> str:
    seed = Capstone.objects.get(learner=learner).seed
    return example_memo(brief_for(seed))


@pytest.fixture
def memo(api, learner, course, post) -> dict:
    """The learner's memo, version 1 reviewed; the body of GET /api/memos/{id}/."""
    api.post(BRIEF)
    r = post(api, MEMOS, {"markdown": _memo_text(learner)})
    assert r.status_code == 201, r.content
    return get(api, r.json()["id"])


def get(client, memo_id: int, status: int = 200) -> dict:
    r = client.get(f"{MEMOS}{memo_id}/")
    assert r.status_code == status, r.content
    return assert_documented(r, "get", f"{MEMOS}{memo_id}/")


# ---------------------------------------------------------------------------- brief


def test_the_brief_is_drawn_once_by_a_post_and_enrols_the_learner(api, learner, course):
    """POST starts the capstone (201), again gives the same brief (200); GET reads it."""
    r = api.post(BRIEF)
    body = assert_documented(r, "post", BRIEF)
    assert r.status_code == 201
    capstone = Capstone.objects.get(learner=learner)
    brief = brief_for(capstone.seed)
    assert body["seed"] == capstone.seed and body["course"] == CAPSTONE_COURSE
    assert body["brief"] == json.loads(json.dumps(brief.as_dict()))
    assert body["markdown"] == brief.markdown() and body["memo"] is None
    assert Enrolment.objects.filter(user=learner, course=course).exists()
    again = api.post(BRIEF)
    assert again.status_code == 200 and assert_documented(again, "post", BRIEF) == body
    r = api.get(BRIEF)
    assert r.status_code == 200 and assert_documented(r, "get", BRIEF) == body
    assert Capstone.objects.count() == 1


def test_reading_the_brief_before_starting_is_a_404_that_writes_nothing(
    client_for, learner, staff, course
):
    """Issue 33 item 8: the GET used to enrol whoever looked in Foundations and draw them
    a capstone (managers who looked showed up in its progress CSV). Now it is a 404 in
    the error format, saying how to start, and neither table gains a row."""
    for user in (learner, staff, UserFactory(username="a-manager")):
        client = client_for(user)
        r = client.get(BRIEF)
        assert error_of(r, 404)["detail"].startswith("You have not started the capstone")
        assert_documented(r, "get", BRIEF)
        r = client.head(BRIEF)
        assert r.status_code == 404
    assert not Capstone.objects.exists()
    assert not Enrolment.objects.filter(course=course).exists()


def test_the_brief_names_the_memo_once_there_is_one(api, memo):
    assert api.get(BRIEF).json()["memo"] == memo["id"]


def test_a_course_closed_to_self_enrolment_is_a_403(api, course):
    course.self_enrol = False
    course.save()
    r = api.post(BRIEF)
    assert error_of(r, 403)["code"] == "permission_denied"
    assert_documented(r, "post", BRIEF)
    assert not Capstone.objects.exists()
    assert api.get(BRIEF).status_code == 404


def test_no_capstone_course_is_a_409(api, db):
    for method in ("get", "post"):
        r = getattr(api, method)(BRIEF)
        assert error_of(r, 409)["code"] == "conflict"
        assert_documented(r, method, BRIEF)


@pytest.mark.parametrize("seed", [0, 1, 7, 2**20, 2**47 + 12345])
def test_the_brief_schema_names_every_field_the_brief_has(seed):
    """A field the brief gains or loses must show in the schema too."""
    data = json.loads(json.dumps(brief_for(seed).as_dict()))
    assert set(data) == set(BriefSerializer().fields)
    assert set(data["derived"]) == set(BriefDerivedSerializer().fields)
    for candidate in data["candidates"]:
        assert set(candidate) == set(BriefCandidateSerializer().fields)
    body = {
        "seed": seed,
        "brief_version": 2,
        "course": "c",
        "brief": data,
        "markdown": "",
        "memo": None,
    }
    assert project().problems("get", BRIEF, 200, JSON, body) == []


# --------------------------------------------------------------------------- submit


def test_submitting_creates_version_1_and_it_is_reviewed(api, learner, course, post):
    api.post(BRIEF)
    text = _memo_text(learner)
    r = post(api, MEMOS, {"markdown": text})
    assert r.status_code == 201
    created = r.json()
    assert created["status"] == "in_review" and created["learner"] == "learner"
    assert [v["number"] for v in created["versions"]] == [1]
    assert created["versions"][0]["markdown"] == text
    body = get(api, created["id"])
    [version] = body["versions"]
    assert version["review_status"] == "done" and version["deliveries"] == 1
    assert version["review"]["score"] == version["score"] and version["score"] is not None
    assert body["adjusted_score"] == pytest.approx(version["score"])
    assert body["decisions"] == []
    stored = MemoVersion.objects.get()
    assert version["review"] == json.loads(json.dumps(stored.review))


@pytest.mark.parametrize("mistakes", [(), ("arithmetic", "gb-vs-gib"), ("missing-section",)])
def test_the_review_schema_names_every_field_the_review_has(mistakes):
    """A field the review gains or loses must show in the schema too."""
    brief = brief_for(20261130)
    review = review_memo(brief, example_memo(brief, mistakes=mistakes)).as_dict()
    assert set(review) == set(MemoReviewSerializer().fields)
    for criterion in review["criteria"]:
        assert set(criterion) == set(ReviewCriterionSerializer().fields)
    component = project().component("MemoReview")
    assert set(component["required"]) == set(review)


def test_submitting_draws_the_brief_when_the_learner_has_not(api, learner, course, post):
    r = post(api, MEMOS, {"markdown": "## Assumptions\nFirst words."})
    assert r.status_code == 201
    assert Capstone.objects.filter(learner=learner).exists()


def test_the_review_is_null_until_a_worker_has_written_it(api, course, post):
    r = post(api, MEMOS, {"markdown": "## Demand\nQueued."}, review=False)
    [version] = get(api, r.json()["id"])["versions"]
    assert version["review_status"] == "queued"
    assert (version["review"], version["score"], version["max_score"]) == (None, None, None)
    assert (version["started_at"], version["reviewed_at"], version["deliveries"]) == (None, None, 0)
    assert get(api, r.json()["id"])["adjusted_score"] is None


def test_a_failed_review_shows_its_reason(api, course, post, monkeypatch):
    from capstone.memo_review import review

    def broken(brief, text):
        raise ValueError("the parser fell over")

    monkeypatch.setattr(review, "review_memo", broken)
    r = post(api, MEMOS, {"markdown": "## Demand\nText."})
    [version] = get(api, r.json()["id"])["versions"]
    assert version["review_status"] == "failed" and version["review"] is None
    assert "the parser fell over" in version["review_error"]


def test_a_second_memo_is_a_409_naming_where_versions_go(api, memo, post):
    r = post(api, MEMOS, {"markdown": "## Demand\nAgain."})
    error = error_of(r, 409)
    assert f"/api/memos/{memo['id']}/versions/" in error["detail"]
    assert MemoVersion.objects.count() == 1 and Memo.objects.count() == 1


BAD_MARKDOWN = [
    ({}, "required"),
    ({"markdown": None}, "null"),
    ({"markdown": ""}, "blank"),
    ({"markdown": " \n\t "}, "blank"),
    ({"markdown": "x" * (MAX_MEMO_CHARS + 1)}, "max_length"),
    ({"markdown": "## Demand\nA\x00B"}, "null_characters_not_allowed"),
    ({"markdown": ["## Demand"]}, "invalid"),
    ({"markdown": 0}, "invalid"),  # not stored as "0": the schema says string
    ({"markdown": True}, "invalid"),
]


@pytest.mark.parametrize(("body", "code"), BAD_MARKDOWN, ids=lambda x: str(x)[:20])
def test_unusable_markdown_is_a_400_on_markdown(api, course, post, body, code):
    r = post(api, MEMOS, body)
    error = error_of(r, 400, "markdown")
    assert error["code"] == code
    assert not Memo.objects.exists() and not Capstone.objects.exists()


def test_a_lone_surrogate_is_a_400_not_a_server_error(api, course):
    r = api.generic("POST", MEMOS, '{"markdown": "## Demand \\ud800"}', "application/json")
    # Refused by the JSON parser (api_common/parsers.py), before any field sees it.
    [error] = error_body(r, 400)["errors"]
    assert (error["code"], error["attr"]) == ("parse_error", None)
    assert "lone surrogate" in error["detail"]
    assert_documented(r, "post", MEMOS)


def test_the_longest_memo_is_taken_whitespace_and_all(api, course, post):
    text = "  ## Assumptions\n" + "x" * (MAX_MEMO_CHARS - 18) + "\n"
    assert len(text) == MAX_MEMO_CHARS
    r = post(api, MEMOS, {"markdown": text})
    assert r.status_code == 201
    assert MemoVersion.objects.get().markdown == text


# ------------------------------------------------------------------------- versions


def test_a_resubmission_is_version_2_with_its_own_review(api, memo, post):
    age_memo_versions()
    memo = get(api, memo["id"])  # as aged
    path = f"{MEMOS}{memo['id']}/versions/"
    r = post(api, path, {"markdown": "## Assumptions\nShorter now."})
    assert r.status_code == 201
    assert [v["number"] for v in r.json()["versions"]] == [1, 2]
    body = get(api, memo["id"])
    first, second = body["versions"]
    assert first == memo["versions"][0]  # kept as it was, review and all
    assert second["review_status"] == "done" and second["score"] < first["score"]
    assert body["adjusted_score"] == pytest.approx(second["score"])


def test_only_the_author_adds_versions(client_for, other_learner, teacher, staff, memo, post):
    path = f"{MEMOS}{memo['id']}/versions/"
    assert error_of(post(client_for(other_learner), path, {"markdown": "x"}), 404)
    for client in (teacher, client_for(staff)):
        r = post(client, path, {"markdown": ""})  # 403 before the body is read
        assert error_of(r, 403)["code"] == "permission_denied"
    assert MemoVersion.objects.count() == 1


def test_an_approved_memo_takes_no_version(api, teacher, memo, post):
    assert (
        post(teacher, f"{MEMOS}{memo['id']}/decision/", {"decision": "approve"}).status_code == 201
    )
    r = post(api, f"{MEMOS}{memo['id']}/versions/", {"markdown": "## Demand\nMore."})
    assert "approved" in error_of(r, 409)["detail"]
    assert MemoVersion.objects.count() == 1


def test_a_version_with_unusable_markdown_is_a_400(api, memo, post):
    r = post(api, f"{MEMOS}{memo['id']}/versions/", {"markdown": "   "})
    assert error_of(r, 400, "markdown")["code"] == "blank"


# --------------------------------------------------------------------------- access


def test_who_reads_a_memo(client_for, api, other_learner, teacher, staff, memo):
    for client in (api, teacher, client_for(staff)):
        assert get(client, memo["id"]) == memo
    elsewhere = client_for(CourseRoleFactory().user)  # instructs another course
    for client in (client_for(other_learner), elsewhere):
        assert error_of(client.get(f"{MEMOS}{memo['id']}/"), 404)["code"] == "not_found"
    assert error_of(api.get(f"{MEMOS}{memo['id'] + 1}/"), 404)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", BRIEF),
        ("get", MEMOS),
        ("post", MEMOS),
        ("get", f"{MEMOS}1/"),
        ("post", f"{MEMOS}1/versions/"),
        ("post", f"{MEMOS}1/decision/"),
    ],
)
def test_anonymous_is_a_401(course, method, path):
    r = getattr(APIClient(), method)(path, {}, format="json")
    assert error_of(r, 401)
    assert_documented(r, method, path)


# ------------------------------------------------------------------------- decision


def _decide(post, client, memo_id: int, body: dict):
    return post(client, f"{MEMOS}{memo_id}/decision/", body)


def test_an_instructor_requests_changes_with_an_adjustment(api, teacher, memo, post):
    [criterion] = [c for c in memo["versions"][0]["review"]["criteria"] if c["code"] == "sections"]
    points = criterion["max_points"] - 1
    body = {
        "decision": "request_changes",
        "comment": "The fleet does not cover the peak.",
        "adjustments": [{"criterion": "sections", "points": points, "comment": "One is thin."}],
    }
    r = _decide(post, teacher, memo["id"], body)
    assert r.status_code == 201
    decided = r.json()
    assert decided["status"] == "changes_requested"
    [decision] = decided["decisions"]
    assert decision["instructor"] == "teacher" and decision["decision"] == "request_changes"
    assert decision["comment"] == body["comment"] and decision["version"] == 1
    assert decision["adjustments"] == body["adjustments"]
    score = memo["versions"][0]["score"]
    assert decided["adjusted_score"] == pytest.approx(score - criterion["points"] + points)
    assert get(api, memo["id"]) == decided  # the learner sees the decision and its comments


def test_staff_approve_and_the_memo_is_final(client_for, staff, memo, post):
    r = _decide(post, client_for(staff), memo["id"], {"decision": "approve"})
    assert r.status_code == 201 and r.json()["status"] == "approved"
    assert (
        r.json()["decisions"][0]["comment"] == "" and r.json()["decisions"][0]["adjustments"] == []
    )


@pytest.mark.parametrize(
    ("adjustment", "attr", "code"),
    [
        (
            {"criterion": "no-such", "points": 0, "comment": "x"},
            "adjustments.0.criterion",
            "invalid",
        ),
        (
            {"criterion": "sections", "points": 1000, "comment": "x"},
            "adjustments.0.points",
            "invalid",
        ),
        (
            {"criterion": "sections", "points": -1, "comment": "x"},
            "adjustments.0.points",
            "min_value",
        ),
        ({"criterion": "sections", "points": 1}, "adjustments.0.comment", "required"),
        ({"criterion": "sections", "points": 1, "comment": " "}, "adjustments.0.comment", "blank"),
        ({"points": 1, "comment": "x"}, "adjustments.0.criterion", "required"),
        (
            {"criterion": "sections", "points": "1", "comment": "x"},
            "adjustments.0.points",
            "invalid",
        ),
        (
            {"criterion": "sections", "points": True, "comment": "x"},
            "adjustments.0.points",
            "invalid",
        ),
        ({"criterion": "sections", "points": 1, "comment": 7}, "adjustments.0.comment", "invalid"),
    ],
)
def test_a_bad_adjustment_is_a_400_naming_it(teacher, memo, post, adjustment, attr, code):
    body = {"decision": "approve", "adjustments": [adjustment]}
    error = error_of(_decide(post, teacher, memo["id"], body), 400, attr)
    assert error["code"] == code
    assert not MemoDecision.objects.exists()
    assert Memo.objects.get().status == "in_review"


@pytest.mark.parametrize(
    ("body", "attr"),
    [
        ({}, "decision"),
        ({"decision": "maybe"}, "decision"),
        ({"decision": "approve", "adjustments": "none"}, "adjustments"),
        ({"decision": "approve", "adjustments": [None]}, "adjustments.0"),
        ({"decision": "approve", "comment": "x" * 5001}, "comment"),
        ({"decision": "approve", "comment": 0}, "comment"),
    ],
)
def test_a_bad_decision_body_is_a_400(teacher, memo, post, body, attr):
    error_of(_decide(post, teacher, memo["id"], body), 400, attr)
    assert not MemoDecision.objects.exists()


def test_the_learner_may_not_decide_and_strangers_do_not_see_the_memo(
    api, client_for, other_learner, memo, post
):
    r = _decide(post, api, memo["id"], {"decision": "nonsense"})  # 403 before the body
    assert error_of(r, 403)["code"] == "permission_denied"
    r = _decide(post, client_for(other_learner), memo["id"], {"decision": "approve"})
    assert error_of(r, 404)
    assert not MemoDecision.objects.exists() and Memo.objects.get().status == "in_review"


def test_no_decision_before_the_latest_version_is_reviewed(api, teacher, memo, post):
    age_memo_versions()
    post(api, f"{MEMOS}{memo['id']}/versions/", {"markdown": "## Demand\nv2"}, review=False)
    r = _decide(post, teacher, memo["id"], {"decision": "approve"})
    assert "review" in error_of(r, 409)["detail"]
    assert not MemoDecision.objects.exists()


# ---------------------------------------------------------------------------- lists


def test_a_learner_lists_their_own_memo(api, client_for, other_learner, memo):
    r = api.get(MEMOS)
    assert_documented(r, "get", MEMOS)
    [row] = rows_of(r)
    assert row["id"] == memo["id"] and row["status"] == "in_review"
    assert row["latest_version"]["number"] == 1
    assert row["latest_version"]["score"] == memo["versions"][0]["score"]
    assert "markdown" not in json.dumps(row)
    assert rows_of(client_for(other_learner).get(MEMOS)) == []


def test_the_instructors_queue_puts_memos_in_review_first(client_for, teacher, course, post):
    ids = []
    for i in range(3):
        learner = UserFactory(username=f"writer{i}")
        r = post(client_for(learner), MEMOS, {"markdown": f"## Demand\nMemo {i}."})
        ids.append(r.json()["id"])
    assert _decide(post, teacher, ids[1], {"decision": "request_changes"}).status_code == 201
    r = teacher.get(MEMOS)
    assert_documented(r, "get", MEMOS)
    rows = rows_of(r)
    assert [row["id"] for row in rows] == [ids[2], ids[0], ids[1]]
    assert [row["status"] for row in rows] == ["in_review", "in_review", "changes_requested"]
    assert rows_of(client_for(CourseRoleFactory().user).get(MEMOS)) == []
    page = teacher.get(f"{MEMOS}?page_size=2").json()
    assert page["count"] == 3 and len(page["results"]) == 2 and page["next"]


def test_reading_a_memo_costs_the_same_queries_whatever_its_versions(api, memo, post):
    def count() -> int:
        with CaptureQueriesContext(connection) as ctx:
            assert api.get(f"{MEMOS}{memo['id']}/").status_code == 200
        return len(ctx.captured_queries)

    one = count()
    for i in range(3):
        age_memo_versions()
        r = post(api, f"{MEMOS}{memo['id']}/versions/", {"markdown": f"## Demand\nv{i}"})
        assert r.status_code == 201
    assert count() == one


# --------------------------------------------------------------------------- schema

STATUSES = {
    ("get", BRIEF): {"200", "401", "404", "409"},
    ("post", BRIEF): {"200", "201", "401", "403", "409"},
    ("get", MEMOS): {"200", "400", "401", "404"},
    ("post", MEMOS): {"201", "400", "401", "403", "409"},
    ("get", "/api/memos/{id}/"): {"200", "401", "404"},
    ("get", "/api/memos/{id}/versions/"): {"200", "400", "401", "404"},
    ("post", "/api/memos/{id}/versions/"): {"201", "400", "401", "403", "404", "409", "429"},
    ("post", "/api/memos/{id}/decision/"): {"201", "400", "401", "403", "404", "409"},
}


@pytest.mark.parametrize(("method", "path"), list(STATUSES), ids=str)
def test_each_operation_documents_its_statuses_and_explains_itself(method, path):
    op = project().operation(method, path)
    documented = set(op["responses"])
    assert STATUSES[(method, path)] <= documented
    assert "422" not in documented
    assert ("429" in documented) == (STATUSES[(method, path)] >= {"429"})
    assert len(op["description"]) > 80 and op["summary"]
    if method == "get":
        assert project().description_gaps(method, path) == []
    elif path == BRIEF:  # starting the capstone takes no body
        assert "requestBody" not in op
    else:
        assert list(op["requestBody"]["content"]) == [JSON]
        assert op["requestBody"]["content"][JSON]["examples"]


def test_request_bodies_say_what_the_server_refuses():
    schemas = project().document["components"]["schemas"]
    markdown = schemas["MemoInputRequest"]["properties"]["markdown"]
    assert (markdown["minLength"], markdown["maxLength"]) == (1, MAX_MEMO_CHARS)
    decision = schemas["MemoDecisionInputRequest"]
    assert decision["required"] == ["decision"]
    adjustment = schemas["MemoAdjustmentRequest"]
    assert set(adjustment["required"]) == {"criterion", "points", "comment"}
    assert adjustment["properties"]["points"]["minimum"] == 0
    assert adjustment["properties"]["comment"]["minLength"] == 1


def test_what_can_be_null_is_nullable_and_nothing_else():
    schemas = project().document["components"]["schemas"]
    version = schemas["MemoVersion"]["properties"]
    nullable = {name for name, field in version.items() if field.get("nullable")}
    assert nullable == {"score", "max_score", "review", "started_at", "reviewed_at"}
    assert schemas["Memo"]["properties"]["adjusted_score"]["nullable"] is True
    assert schemas["CapstoneBrief"]["properties"]["memo"]["nullable"] is True
    assert schemas["ReviewCriterion"]["properties"]["misconception"]["nullable"] is True


def test_the_documented_examples_fit_the_schema():
    for path in (MEMOS, "/api/memos/{id}/versions/", "/api/memos/{id}/decision/"):
        op = project().operation("post", path)
        name = op["requestBody"]["content"][JSON]["schema"]["$ref"].rsplit("/", 1)[1]
        component = project().component(name)
        for example in op["requestBody"]["content"][JSON]["examples"].values():
            assert set(example["value"]) <= set(component["properties"]), (path, example)
            assert set(component.get("required", [])) <= set(example["value"]), (path, example)


def test_nobody_decides_on_their_own_memo(client_for, teacher, staff, course, post):
    """The probe's path: an instructor (or staff) posts a memo, then posts a decision on
    it: 403 before the body is read, and nothing is decided; a colleague may."""
    for client in (teacher, client_for(staff)):
        r = post(client, MEMOS, {"markdown": "## Assumptions\nMine."})
        assert r.status_code == 201, r.content
        memo_id = r.json()["id"]
        for body in ({"decision": "approve"}, {}):
            r = post(client, f"{MEMOS}{memo_id}/decision/", body)
            assert "your own memo" in error_of(r, 403)["detail"]
        assert not MemoDecision.objects.filter(memo_id=memo_id).exists()
        assert Memo.objects.get(pk=memo_id).status == Memo.Status.IN_REVIEW
    colleague = client_for(CourseRoleFactory(course=course).user)
    r = post(colleague, f"{MEMOS}{memo_id}/decision/", {"decision": "approve"})
    assert r.status_code == 201 and r.json()["status"] == "approved"


# ------------------------------------------------------------------------ the limits


def test_a_second_version_within_a_minute_is_a_429_with_retry_after(api, memo, post):
    path = f"{MEMOS}{memo['id']}/versions/"
    r = post(api, path, {"markdown": "## Demand\nToo soon."})
    assert error_of(r, 429)["code"] == "throttled"
    assert 1 <= int(r["Retry-After"]) <= 60
    assert MemoVersion.objects.count() == 1
    age_memo_versions()
    assert post(api, path, {"markdown": "## Demand\nNow."}).status_code == 201


def test_the_thirty_first_version_is_a_409_naming_the_limit(api, memo, post):
    from capstone.services import MAX_VERSIONS

    path = f"{MEMOS}{memo['id']}/versions/"
    for n in range(2, MAX_VERSIONS + 1):
        age_memo_versions()
        assert post(api, path, {"markdown": f"v{n}"}, review=False).status_code == 201
    age_memo_versions()
    r = post(api, path, {"markdown": "one too many"}, review=False)
    assert "30 versions" in error_of(r, 409)["detail"]
    assert MemoVersion.objects.count() == MAX_VERSIONS


def test_versions_come_a_page_at_a_time(api, client_for, other_learner, teacher, memo, post):
    age_memo_versions()
    post(api, f"{MEMOS}{memo['id']}/versions/", {"markdown": "## Demand\nv2"})
    path = f"{MEMOS}{memo['id']}/versions/"
    r = api.get(path, {"page_size": 1})
    body = assert_documented(r, "get", path)
    assert r.status_code == 200 and body["count"] == 2 and body["next"]
    [first] = body["results"]
    assert first["number"] == 1 and first["markdown"] == memo["versions"][0]["markdown"]
    second = api.get(path, {"page_size": 1, "page": 2}).json()["results"]
    assert [v["number"] for v in second] == [2]
    assert rows_of(teacher.get(path))[1]["markdown"] == "## Demand\nv2"  # its instructor
    assert error_of(client_for(other_learner).get(path), 404)
