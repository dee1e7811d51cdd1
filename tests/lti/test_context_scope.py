"""An LMS instructor sees only their own LMS course's learners.

Two LMS courses on two LMSs (two registrations, two issuers) link the same Burn-in quiz;
a learner launches from each, and a third learner studies on Burn-in directly. The
instructor who launched from LMS course A is an instructor of the Burn-in course scoped
to A: in every instructor read (attempts, an attempt, enrolments, item analysis, the
progress page, LMS scores and their page, extensions) they see A's learner only, and they
make no course-wide change (quiz create, enrolments: 403). A course-wide instructor
(a CourseRole with no LMS context) still sees everyone.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from lti_tool.models import LtiContext, LtiDeployment, LtiUser
from rest_framework.test import APIClient

from assess.models import Attempt, CourseRole, Enrolment, Extension, Question
from assess.services.attempts import attempt_finish, attempt_start
from lti.models import DeploymentCourse, ScoreSync
from tests.assess.helpers import answer
from tests.factories import CourseRoleFactory, QuizFactory, UserFactory
from tests.lti.conftest import (
    CLAIM,
    DEPLOYMENT,
    INSTRUCTOR,
    KEYSET_URL,
    Platform,
    register_lms,
)

pytestmark = pytest.mark.django_db

ISS_B = "https://lms.other-university.edu"
CLIENT_B = "burnin-at-other"
DEPLOYMENT_B = "deployment-b"
KEYSET_B = ISS_B + "/jwks"


class PlatformB(Platform):
    """Another university's LMS: its own issuer, client id, deployment, keys, and its
    own course ("course-x") unless a launch names another."""

    def __init__(self, client: Client, quiz):
        super().__init__(
            client,
            quiz,
            issuer=ISS_B,
            client_id=CLIENT_B,
            deployment=DEPLOYMENT_B,
            keyset_url=KEYSET_B,
        )

    def claims(self, nonce: str, **kwargs) -> dict:
        claims = super().claims(nonce, **kwargs)
        if CLAIM + "context" not in kwargs:
            claims[CLAIM + "context"] = {"id": "course-x", "title": "LMS course X"}
        return claims


@pytest.fixture
def quiz(course):
    """Timed, so an extension can give extra time."""
    return QuizFactory(course=course, title="Memory drill", time_limit=timedelta(minutes=30))


@pytest.fixture
def platform_b(platform, quiz, tool_key, monkeypatch):
    register_lms(
        name="Other LMS",
        issuer=ISS_B,
        client_id=CLIENT_B,
        deployment=DEPLOYMENT_B,
        keyset_url=KEYSET_B,
        courses=[quiz.course],
    )
    other = PlatformB(Client(enforce_csrf_checks=True), quiz)

    def keyset(url, timeout=None, stream=False):
        return (platform if url == KEYSET_URL else other).serve_keyset(url, timeout, stream)

    monkeypatch.setattr("lti.keysets.requests.get", keyset)
    return other


def _user(sub: str):
    return LtiUser.objects.get(sub=sub).auth_user


def _answer_once(learner, attempt: Attempt) -> None:
    api = APIClient()
    api.force_authenticate(learner)
    question = Question.objects.filter(attempt=attempt).order_by("order", "id").first()
    part = question.answers[0]
    assert answer(api, attempt.pk, question.pk, part).status_code == 201


@pytest.fixture
def world(platform, platform_b, quiz, course):
    """Launches from A (teacher, learner) and B (teacher, learner), each learner with one
    answer; a direct learner with one answer; a failed LMS score per LMS learner; an
    extension per learner."""
    for p, teacher, learner in (
        (platform, "teach-a", "learn-a"),
        (platform_b, "teach-b", "learn-b"),
    ):
        assert p.launch(sub=teacher, roles=[INSTRUCTOR]).status_code == 303
        assert p.launch(sub=learner).status_code == 303
    direct = UserFactory(username="direct-learner")
    Enrolment.objects.create(user=direct, course=course, source=Enrolment.Source.SELF)
    attempt_start(quiz=quiz, learner=direct)
    w = {
        "teacher_a": _user("teach-a"),
        "teacher_b": _user("teach-b"),
        "a": _user("learn-a"),
        "b": _user("learn-b"),
        "direct": direct,
        "course_wide": CourseRoleFactory(course=course).user,
    }
    for key in ("a", "b", "direct"):
        attempt = Attempt.objects.get(quiz=quiz, learner=w[key])
        w[f"attempt_{key}"] = attempt
        _answer_once(w[key], attempt)
        Extension.objects.create(quiz=quiz, learner=w[key], extra_time=timedelta(minutes=5))
    for key in ("a", "b"):
        lti_user = LtiUser.objects.get(auth_user=w[key])
        w[f"sync_{key}"] = ScoreSync.objects.create(
            context=LtiContext.objects.get(deployment__registration=lti_user.registration),
            quiz=quiz,
            lti_user=lti_user,
            learner=w[key],
            score_given=1.0,
            score_maximum=1.0,
            timestamp=timezone.now(),
            state=ScoreSync.State.FAILED,
            reason="The LMS answered 422",
            tries=1,
        )
    return w


def api_for(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def page_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# ------------------------------------------------------------------------ the launches


def test_a_teaching_launch_makes_a_role_scoped_to_its_lms_context(world):
    roles = CourseRole.objects.filter(lti_context__isnull=False).select_related("lti_context")
    assert {(r.user, r.lti_context.id_on_platform) for r in roles} == {
        (world["teacher_a"], "course-a"),
        (world["teacher_b"], "course-x"),
    }
    # Launching again adds nothing.
    assert CourseRole.objects.filter(user=world["teacher_a"]).count() == 1


def test_a_teaching_launch_with_no_context_gets_no_role(platform, quiz):
    state, nonce = platform.login()
    claims = platform.claims(nonce, sub="teach-nowhere", roles=[INSTRUCTOR])
    del claims[CLAIM + "context"]
    response = platform.post(platform.sign(claims), state)
    assert response.status_code == 303
    assert response["Location"] == reverse("course-detail", args=[quiz.course.slug])
    assert not CourseRole.objects.filter(user=_user("teach-nowhere")).exists()
    assert platform.client.get(response["Location"], secure=True).status_code == 200


# --------------------------------------------------------------------------- the reads


def _attempt_learners(user, quiz) -> set:
    body = api_for(user).get(f"/api/quizzes/{quiz.pk}/attempts/").json()
    return {Attempt.objects.get(pk=r["id"]).learner_id for r in body["results"]}


def test_attempt_lists_are_scoped(world, quiz):
    assert _attempt_learners(world["teacher_a"], quiz) == {world["a"].pk}
    assert _attempt_learners(world["teacher_b"], quiz) == {world["b"].pk}
    everyone = {world[k].pk for k in ("a", "b", "direct")}
    assert _attempt_learners(world["course_wide"], quiz) == everyone


def test_another_lms_courses_attempt_is_a_404(world):
    api = api_for(world["teacher_a"])
    assert api.get(f"/api/attempts/{world['attempt_a'].pk}/").status_code == 200
    assert api.get(f"/api/attempts/{world['attempt_b'].pk}/").status_code == 404
    assert api.get(f"/api/attempts/{world['attempt_direct'].pk}/").status_code == 404
    wide = api_for(world["course_wide"])
    assert wide.get(f"/api/attempts/{world['attempt_b'].pk}/").status_code == 200


def test_course_enrolments_are_scoped(world, course):
    url = f"/api/courses/{course.slug}/enrolments/"
    body = api_for(world["teacher_a"]).get(url).json()
    assert [r["username"] for r in body["results"]] == [world["a"].username]
    wide = api_for(world["course_wide"]).get(url).json()
    assert wide["count"] == 3


def _finish_all(world) -> None:
    for key in ("a", "b", "direct"):
        attempt_finish(attempt=world[f"attempt_{key}"])


def test_item_analysis_counts_only_in_scope_attempts(world, quiz):
    _finish_all(world)
    url = f"/api/quizzes/{quiz.pk}/items/"
    mine = api_for(world["teacher_a"]).get(url).json()["results"]
    assert sum(i["responses"] for i in mine) == 1
    wide = api_for(world["course_wide"]).get(url).json()["results"]
    assert sum(i["responses"] for i in wide) == 3


def test_pages_show_only_in_scope_learners(world, quiz, course):
    client = page_for(world["teacher_a"])
    for url in (
        reverse("course-progress", args=[course.slug]),
        reverse("course-learners", args=[course.slug]),
        reverse("quiz-lms-grades", args=[quiz.pk]),
    ):
        html = client.get(url).content.decode()
        assert world["a"].username in html, url
        assert world["b"].username not in html, url
        assert world["direct"].username not in html, url
    items = client.get(reverse("quiz-items", args=[quiz.pk]))
    assert items.status_code == 200
    assert items.context["page"].attempts == 0  # open attempts count once they close
    _finish_all(world)
    assert client.get(reverse("quiz-items", args=[quiz.pk])).context["page"].attempts == 1
    index = client.get(reverse("teach")).context["page"]
    assert {q.pk: q.n_attempts for q in index.quizzes} == {quiz.pk: 1}
    wide = page_for(world["course_wide"]).get(reverse("course-progress", args=[course.slug]))
    html = wide.content.decode()
    assert all(world[k].username in html for k in ("a", "b", "direct"))


def test_lms_scores_are_those_of_the_instructors_context(world, quiz, monkeypatch):
    monkeypatch.setattr("lti.grades.enqueue", lambda ids: None)  # delivery is not tested here
    api = api_for(world["teacher_a"])
    rows = api.get(f"/api/quizzes/{quiz.pk}/lms-scores/").json()["results"]
    assert [r["id"] for r in rows] == [world["sync_a"].pk]
    summary = api.get(f"/api/quizzes/{quiz.pk}/lms-scores/summary/").json()
    assert (summary["failed"], summary["unsent"]) == (1, 1)
    # B's row, named or not, is never resent by A's instructor.
    resend = f"/api/quizzes/{quiz.pk}/lms-scores/resend/"
    body = api.post(resend, {"ids": [world["sync_b"].pk]}, format="json").json()
    assert body["resent"] == 0
    assert api.post(resend, {}, format="json").json()["resent"] == 1
    states = dict(ScoreSync.objects.values_list("learner_id", "state"))
    assert states == {world["a"].pk: "pending", world["b"].pk: "failed"}
    # the page's resend too: B's instructor resends B's row only
    ScoreSync.objects.filter(pk=world["sync_a"].pk).update(state="failed")
    page_for(world["teacher_b"]).post(reverse("quiz-lms-grades", args=[quiz.pk]))
    states = dict(ScoreSync.objects.values_list("learner_id", "state"))
    assert states == {world["a"].pk: "failed", world["b"].pk: "pending"}
    wide = api_for(world["course_wide"]).get(f"/api/quizzes/{quiz.pk}/lms-scores/").json()
    assert wide["count"] == 2


def test_extensions_are_scoped(world, quiz):
    api = api_for(world["teacher_a"])
    url = f"/api/quizzes/{quiz.pk}/extensions/"
    assert [r["learner"] for r in api.get(url).json()["results"]] == [world["a"].pk]
    grant = {"extra_time_minutes": 10}
    assert api.put(f"{url}{world['a'].pk}/", grant, format="json").status_code == 200
    refused = api.put(f"{url}{world['b'].pk}/", grant, format="json")
    assert refused.status_code == 400
    assert refused.json()["errors"][0]["attr"] == "learner"
    assert api.delete(f"{url}{world['b'].pk}/").status_code == 404
    assert Extension.objects.filter(learner=world["b"]).exists()
    assert api.delete(f"{url}{world['a'].pk}/").status_code == 204
    wide = api_for(world["course_wide"]).get(url).json()
    assert wide["count"] == 2  # b's and the direct learner's


# -------------------------------------------------------------------- course-wide writes


def test_a_scoped_instructor_makes_no_course_wide_change(world, course):
    api = api_for(world["teacher_a"])
    created = api.post(
        "/api/quizzes/",
        {
            "title": "Mine",
            "mode": "practice",
            "course": course.slug,
            "slots": [{"templates": ["gb-gib"]}],
        },
        format="json",
    )
    assert created.status_code == 403
    assert "ask a Burn-in administrator" in created.content.decode()
    url = f"/api/courses/{course.slug}/enrolments/"
    added = api.post(url, {"username": world["teacher_b"].username}, format="json")
    assert added.status_code == 403
    assert "ask a Burn-in administrator" in added.content.decode()
    assert api.delete(f"{url}{world['a'].username}/").status_code == 403
    assert Enrolment.objects.filter(user=world["a"]).exists()
    # a course-wide instructor may
    wide = api_for(world["course_wide"])
    assert (
        wide.post(url, {"username": world["teacher_b"].username}, format="json").status_code == 201
    )


def test_the_deep_linking_picker_offers_the_scoped_instructors_course(world, quiz):
    from lti.selectors import linkable_quizzes

    deployment = LtiDeployment.objects.get(deployment_id=DEPLOYMENT)
    assert quiz in linkable_quizzes(user=world["teacher_a"], deployment=deployment)
    DeploymentCourse.objects.filter(deployment=deployment).delete()
    assert quiz not in linkable_quizzes(user=world["teacher_a"], deployment=deployment)
