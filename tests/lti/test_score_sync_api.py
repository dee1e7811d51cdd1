"""/api/quizzes/{id}/lms-scores/: the quiz's instructors read its LMS grade passback (the
rows, filtered by state, and their counts) and resend what the LMS did not take. Anyone
else is a 404 (a learner, another course's instructor), anonymous a 401; every answer is
what the schema documents."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from lti_tool.models import LtiContext, LtiDeployment, LtiUser
from rest_framework.test import APIClient

from lti.models import ScoreSync
from tests.factories import CourseFactory, CourseRoleFactory, QuizFactory, UserFactory
from tests.openapi import assert_documented, project

pytestmark = pytest.mark.django_db

LIST = "/api/quizzes/{id}/lms-scores/"
SUMMARY = "/api/quizzes/{id}/lms-scores/summary/"
RESEND = "/api/quizzes/{id}/lms-scores/resend/"


def client_for(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def get(user, template: str, quiz, query: str = ""):
    response = client_for(user).get(template.format(id=quiz.pk) + query)
    return response.status_code, assert_documented(response, "get", template)


def resend(user, quiz, body=None):
    response = client_for(user).post(RESEND.format(id=quiz.pk), body, format="json")
    return response.status_code, assert_documented(response, "post", RESEND)


@pytest.fixture
def context(registration):
    deployment = LtiDeployment.objects.get(registration=registration)
    return LtiContext.objects.create(
        deployment=deployment, id_on_platform="course-a", title="LMS course A"
    )


@pytest.fixture
def make_sync(registration, context, quiz):
    n = iter(range(1, 100))

    def make(learner, state="sent", *, on=None, **fields) -> ScoreSync:
        i = next(n)
        lti_user = LtiUser.objects.create(
            registration=registration, sub=f"sub-{i}", name=learner.username, auth_user=learner
        )
        defaults = {
            "score_given": 1.0,
            "score_maximum": 2.0,
            "timestamp": timezone.now() - timedelta(minutes=i),
            "tries": 1,
        }
        if state == "sent":
            defaults |= {"sent_score_given": 1.0, "sent_at": timezone.now()}
        if state == "failed":
            defaults |= {"reason": "The LMS answered 422", "permanent": True}
        return ScoreSync.objects.create(
            context=context,
            quiz=on or quiz,
            lti_user=lti_user,
            learner=learner,
            state=state,
            **(defaults | fields),
        )

    return make


@pytest.fixture
def rows(make_sync):
    """Sent for Ann, failed for Bob and Cy (Bob's permanent), pending for Dee."""
    ann = UserFactory(username="ann", first_name="Ann", last_name="Archer")
    bob = UserFactory(username="bob", first_name="Bob", last_name="Baker")
    cy = UserFactory(username="cy")
    dee = UserFactory(username="dee", first_name="Dee", last_name="Dane")
    return {
        "ann": make_sync(ann, "sent"),
        "bob": make_sync(bob, "failed"),
        "cy": make_sync(cy, "failed", permanent=False, reason="Retries ran out"),
        "dee": make_sync(dee, "pending", tries=0),
    }


@pytest.fixture
def queued(monkeypatch):
    """The ids each resend queues (the delivery itself is tests/lti/test_grades.py's)."""
    calls: list[list[int]] = []
    monkeypatch.setattr("lti.grades.enqueue", lambda ids: calls.append(sorted(ids)))
    return calls


# ------------------------------------------------------------------------------- reads


def test_instructor_reads_the_rows_failed_first(instructor, quiz, rows):
    status, body = get(instructor, LIST, quiz)
    assert status == 200
    assert body["count"] == 4
    assert [r["learner"]["username"] for r in body["results"]] == ["bob", "cy", "dee", "ann"]
    bob = body["results"][0]
    assert bob == {
        "id": rows["bob"].pk,
        "learner": {"id": rows["bob"].learner_id, "username": "bob", "name": "Bob Baker"},
        "lms_user_id": rows["bob"].lti_user.sub,
        "lms_context": {"title": "LMS course A", "id_on_platform": "course-a"},
        "state": "failed",
        "permanent": True,
        "reason": "The LMS answered 422",
        "tries": 1,
        "score_given": 1.0,
        "score_maximum": 2.0,
        "sent_score_given": None,
        "sent_at": None,
        "updated_at": bob["updated_at"],
    }
    assert body["results"][1]["learner"]["name"] == "cy"  # no full name: the username
    ann = body["results"][3]
    assert (ann["state"], ann["sent_score_given"]) == ("sent", 1.0) and ann["sent_at"]


def test_staff_reads_any_quiz(staff, quiz, rows):
    assert get(staff, LIST, quiz)[0] == 200


@pytest.mark.parametrize(
    ("state", "names"), [("failed", ["bob", "cy"]), ("pending", ["dee"]), ("sent", ["ann"])]
)
def test_rows_filtered_by_state(instructor, quiz, rows, state, names):
    status, body = get(instructor, LIST, quiz, f"?state={state}")
    assert status == 200
    assert [r["learner"]["username"] for r in body["results"]] == names
    assert {r["state"] for r in body["results"]} == {state}


@pytest.mark.parametrize("value", ["done", "", "FAILED"])
def test_an_unknown_state_is_a_400_naming_state(instructor, quiz, rows, value):
    status, body = get(instructor, LIST, quiz, f"?state={value}")
    assert status == 400
    assert [(e["attr"], e["code"]) for e in body["errors"]] == [("state", "invalid_choice")]


def test_rows_are_paged(instructor, quiz, rows):
    status, body = get(instructor, LIST, quiz, "?page_size=3")
    assert (status, body["count"], len(body["results"])) == (200, 4, 3)
    assert body["next"]


def test_only_the_quizs_own_rows(instructor, quiz, rows, make_sync, course):
    other_quiz = QuizFactory(course=course, title="Another")
    make_sync(UserFactory(username="eve"), "failed", on=other_quiz)
    status, body = get(instructor, LIST, quiz)
    assert "eve" not in {r["learner"]["username"] for r in body["results"]}
    assert get(instructor, SUMMARY, other_quiz)[1] == {
        "pending": 0,
        "sent": 0,
        "failed": 1,
        "unsent": 1,
    }


def test_summary_counts_by_state(instructor, quiz, rows):
    status, body = get(instructor, SUMMARY, quiz)
    assert status == 200
    assert body == {"pending": 1, "sent": 1, "failed": 2, "unsent": 3}


def test_summary_of_a_quiz_without_rows_is_all_zero(instructor, quiz):
    assert get(instructor, SUMMARY, quiz) == (
        200,
        {"pending": 0, "sent": 0, "failed": 0, "unsent": 0},
    )


def test_list_and_summary_are_one_query_each(instructor, quiz, rows, django_assert_max_num_queries):
    client = client_for(instructor)
    with django_assert_max_num_queries(4):  # the quiz, the count, the page, (the user)
        assert client.get(LIST.format(id=quiz.pk)).status_code == 200
    with django_assert_max_num_queries(3):
        assert client.get(SUMMARY.format(id=quiz.pk)).status_code == 200


# ------------------------------------------------------------------------------ resend


def test_resend_every_unsent_row_changes_only_the_failed(
    instructor, quiz, rows, queued, django_capture_on_commit_callbacks
):
    before = {k: ScoreSync.objects.get(pk=r.pk) for k, r in rows.items()}
    with django_capture_on_commit_callbacks(execute=True):
        status, body = resend(instructor, quiz)
    assert (status, body) == (200, {"resent": 3})
    assert queued == [sorted([rows["bob"].pk, rows["cy"].pk, rows["dee"].pk])]
    after = {k: ScoreSync.objects.get(pk=r.pk) for k, r in rows.items()}
    for name in ("bob", "cy"):
        row = after[name]
        assert (row.state, row.permanent, row.reason, row.tries) == ("pending", False, "", 0)
        assert row.timestamp > before[name].timestamp
    for name in ("ann", "dee"):  # sent: untouched; pending: queued again as it is
        assert after[name].updated_at == before[name].updated_at
        assert after[name].state == before[name].state


def test_resend_of_named_rows(instructor, quiz, rows, queued, django_capture_on_commit_callbacks):
    ids = [rows["bob"].pk, rows["ann"].pk]  # a sent row named: left alone
    with django_capture_on_commit_callbacks(execute=True):
        status, body = resend(instructor, quiz, {"ids": ids})
    assert (status, body) == (200, {"resent": 1})
    assert queued == [[rows["bob"].pk]]
    states = dict(ScoreSync.objects.values_list("learner__username", "state"))
    assert states == {"ann": "sent", "bob": "pending", "cy": "failed", "dee": "pending"}


def test_resend_ignores_another_quizs_rows(
    instructor, quiz, rows, make_sync, course, queued, django_capture_on_commit_callbacks
):
    other = make_sync(UserFactory(username="eve"), "failed", on=QuizFactory(course=course))
    with django_capture_on_commit_callbacks(execute=True):
        status, body = resend(instructor, quiz, {"ids": [other.pk]})
    assert (status, body) == (200, {"resent": 0})
    assert ScoreSync.objects.get(pk=other.pk).state == "failed"


def test_an_empty_list_resends_nothing(instructor, quiz, rows, queued):
    assert resend(instructor, quiz, {"ids": []}) == (200, {"resent": 0})
    assert ScoreSync.objects.filter(state="failed").count() == 2


@pytest.mark.parametrize(
    ("body", "attr", "code"),
    [
        ({"ids": "12"}, "ids", "not_a_list"),
        ({"ids": 12}, "ids", "not_a_list"),
        ({"ids": None}, "ids", "null"),
        ({"ids": {"a": 1}}, "ids", "not_a_list"),
        ({"ids": [1, "x"]}, "ids.1", "invalid"),
        ({"ids": [1.5]}, "ids.0", "invalid"),
        ({"ids": [0]}, "ids.0", "min_value"),
        ({"ids": [2**70]}, "ids.0", "max_value"),
        ({"ids": list(range(1, 1002))}, "ids", "max_length"),
        ([1, 2], "non_field_errors", "invalid"),
    ],
)
def test_a_bad_body_is_a_400_naming_the_field(instructor, quiz, rows, queued, body, attr, code):
    status, error = resend(instructor, quiz, body)
    assert status == 400
    assert [(e["attr"], e["code"]) for e in error["errors"]] == [(attr, code)]
    assert ScoreSync.objects.filter(state="failed").count() == 2
    assert queued == []


def test_a_thousand_ids_are_fine(instructor, quiz, rows, queued):
    assert resend(instructor, quiz, {"ids": list(range(1, 1001))})[0] == 200


# -------------------------------------------------------------------------- who may


@pytest.fixture
def learner(db):
    return UserFactory(username="learner")


@pytest.fixture
def other_instructor(db):
    return CourseRoleFactory(user__username="elsewhere", course=CourseFactory(slug="other")).user


@pytest.mark.parametrize("who", ["learner", "other_instructor", "rows_learner"])
def test_anyone_but_the_quizs_instructors_gets_404(request, quiz, rows, queued, who):
    user = rows["bob"].learner if who == "rows_learner" else request.getfixturevalue(who)
    assert get(user, LIST, quiz)[0] == 404
    assert get(user, SUMMARY, quiz)[0] == 404
    assert resend(user, quiz)[0] == 404
    assert resend(user, quiz, {"ids": "bad"})[0] == 404  # the gate comes before the body
    assert ScoreSync.objects.filter(state="failed").count() == 2


def test_an_unknown_quiz_is_a_404(instructor, quiz):
    class Missing:
        pk = quiz.pk + 1000

    assert get(instructor, LIST, Missing)[0] == 404
    assert resend(instructor, Missing)[0] == 404


def test_anonymous_gets_401(quiz, rows):
    for template in (LIST, SUMMARY):
        status, body = get(None, template, quiz)
        assert status == 401 and body["errors"][0]["code"] == "not_authenticated"
    assert resend(None, quiz)[0] == 401


# -------------------------------------------------------------------------- schema


def test_the_operations_document_their_statuses_and_fields():
    doc = project()
    for method, path, statuses in (
        ("get", LIST, {"200", "400", "401", "404"}),
        ("get", SUMMARY, {"200", "401", "404"}),
        ("post", RESEND, {"200", "400", "401", "404"}),
    ):
        op = doc.operation(method, path)
        assert statuses <= set(op["responses"]), (method, path)
        assert "403" not in op["responses"]
        assert len(op["description"]) > 80 and op["summary"]
        assert doc.description_gaps(method, path) == []
        assert {"tokenAuth": []} in op["security"]
    row = doc.component("ScoreSync")
    assert set(row["required"]) == {
        "id",
        "learner",
        "lms_user_id",
        "lms_context",
        "state",
        "permanent",
        "reason",
        "tries",
        "score_given",
        "score_maximum",
        "sent_score_given",
        "sent_at",
        "updated_at",
    }
    assert row["properties"]["sent_score_given"]["nullable"] is True
    assert row["properties"]["sent_at"]["nullable"] is True
    assert doc.component("ScoreSyncStateEnum")["enum"] == ["pending", "sent", "failed"]
    params = {p["name"] for p in doc.operation("get", LIST)["parameters"]}
    assert {"state", "page", "page_size"} <= params
    body = doc.component("ResendInputRequest")
    assert body["properties"]["ids"]["maxItems"] == 1000
    assert "required" not in body
    assert set(doc.component("ScoreSyncCounts")["required"]) == {
        "pending",
        "sent",
        "failed",
        "unsent",
    }
