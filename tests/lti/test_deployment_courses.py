"""A deployment opens only what staff authorised it for (lti.models.DeploymentCourse) and
the course-less quizzes its own deep linking placed (DeploymentQuiz): any other quiz is a
403 that writes nothing, to a learner as to an instructor, and grants no role; the
picker offers only what the deployment may open; the roster enrols only in authorised
courses; and the upgrade authorises what existing links already open."""

from __future__ import annotations

import re
from importlib import import_module

import pytest
from django.apps import apps as django_apps
from lti_tool.models import LtiContext, LtiDeployment, LtiResourceLink

from assess.models import Attempt, CourseRole, Enrolment
from lti.models import DeploymentCourse, DeploymentQuiz, ResourceLinkQuiz
from tests.factories import CourseFactory, QuizFactory
from tests.lti.conftest import CLAIM, DEPLOYMENT, INSTRUCTOR, LEARNER, row_counts, signed_in_user

MIGRATION = import_module("lti.migrations.0004_deployment_authorisations")


@pytest.fixture
def deployment(registration) -> LtiDeployment:
    return LtiDeployment.objects.get(deployment_id=DEPLOYMENT)


@pytest.fixture
def elsewhere(db):
    """A quiz of a course the deployment was never authorised for."""
    return QuizFactory(course=CourseFactory(slug="not-for-this-lms"), title="Elsewhere")


def _launch_of(platform, quiz, *, roles, link="link-x", context="course-a"):
    return platform.launch(
        roles=roles,
        **{
            CLAIM + "custom": {"quiz_id": str(quiz.pk)},
            CLAIM + "resource_link": {"id": link},
            CLAIM + "context": {"id": context, "title": "An LMS course"},
        },
    )


@pytest.mark.parametrize("roles", [[INSTRUCTOR], [LEARNER]], ids=["instructor", "learner"])
def test_a_quiz_outside_the_list_is_a_403_that_writes_nothing(platform, elsewhere, roles):
    before = row_counts()
    response = _launch_of(platform, elsewhere, roles=roles)
    assert response.status_code == 403
    assert "not authorised" in response.content.decode()
    assert row_counts() == before
    assert signed_in_user(platform.client) is None


def test_an_authorised_course_launches_and_grants_the_scoped_role(platform, deployment, elsewhere):
    DeploymentCourse.objects.create(deployment=deployment, course=elsewhere.course)
    assert _launch_of(platform, elsewhere, roles=[INSTRUCTOR]).status_code == 303
    role = CourseRole.objects.get(course=elsewhere.course)
    assert role.lti_context.id_on_platform == "course-a"


def test_a_course_taken_off_the_list_closes_its_stored_links(platform, deployment, quiz):
    """A link launched while authorised keeps its quiz (ResourceLinkQuiz), but once staff
    take the course off the list its launches are refused too."""
    assert _launch_of(platform, quiz, roles=[LEARNER], link="kept").status_code == 303
    DeploymentCourse.objects.filter(deployment=deployment).delete()
    before = row_counts()
    assert _launch_of(platform, quiz, roles=[LEARNER], link="kept").status_code == 403
    assert row_counts() == before


def test_a_quiz_with_no_course_opens_only_where_deep_linking_placed_it(platform, deployment):
    open_quiz = QuizFactory(course=None, title="Open drill")
    before = row_counts()
    assert _launch_of(platform, open_quiz, roles=[LEARNER]).status_code == 403
    assert row_counts() == before

    # the deployment's own deep linking places it: then it launches
    response = platform.deep_link_launch()
    assert response.status_code == 303
    url = response["Location"]
    page = platform.client.get(url, secure=True).content.decode()
    assert "Open drill" in page and 'id="authorised"' in page
    token = platform.client.cookies["csrftoken"].value
    picked = platform.client.post(
        url,
        {"quiz": str(open_quiz.pk), "csrfmiddlewaretoken": token},
        secure=True,
        HTTP_REFERER="https://testserver" + url,
    )
    assert picked.status_code == 200
    assert DeploymentQuiz.objects.filter(deployment=deployment, quiz=open_quiz).exists()
    platform.client.logout()
    assert _launch_of(platform, open_quiz, roles=[LEARNER], link="placed").status_code == 303
    assert Attempt.objects.filter(quiz=open_quiz).exists()


def test_the_picker_offers_only_authorised_courses(platform, deployment, quiz):
    """An instructor of two courses deep-links from a deployment authorised for one."""
    assert platform.launch(sub="teacher-sub", roles=[INSTRUCTOR]).status_code == 303
    user = CourseRole.objects.get().user
    other = QuizFactory(course=CourseFactory(slug="also-taught"), title="Also taught")
    CourseRole.objects.create(user=user, course=other.course, role=CourseRole.Role.INSTRUCTOR)
    response = platform.deep_link_launch()
    page = platform.client.get(response["Location"], secure=True).content.decode()
    assert quiz.title in page and "Also taught" not in page
    said = re.search(
        r'id="authorised">This LMS connection may open the quizzes of\s+([^,]+),', page
    )
    assert said and said.group(1) == quiz.course.title


def test_the_roster_enrols_only_in_authorised_courses(deployment, quiz, elsewhere, monkeypatch):
    """Links of a course no longer authorised bring no enrolments."""
    from lti import roster

    context = LtiContext.objects.create(
        deployment=deployment, id_on_platform="c", memberships_url="https://lms/m"
    )
    for n, linked in enumerate((quiz, elsewhere)):
        link = LtiResourceLink.objects.create(context=context, id_on_platform=f"l{n}")
        ResourceLinkQuiz.objects.create(resource_link=link, quiz=linked)
    member = {"user_id": "u1", "roles": [LEARNER], "status": "Active"}
    monkeypatch.setattr(roster, "fetch_members", lambda context: [member])
    roster.roster_sync(context=context)
    assert set(Enrolment.objects.values_list("course__slug", flat=True)) == {quiz.course.slug}


def test_the_upgrade_authorises_what_existing_links_open(deployment, quiz, elsewhere):
    """The data migration, run on rows as an upgrade finds them: each deployment gets the
    courses of its links' quizzes, and its links' course-less quizzes."""
    DeploymentCourse.objects.all().delete()
    open_quiz = QuizFactory(course=None)
    context = LtiContext.objects.create(deployment=deployment, id_on_platform="c")
    for n, linked in enumerate((quiz, quiz, open_quiz)):
        link = LtiResourceLink.objects.create(context=context, id_on_platform=f"l{n}")
        ResourceLinkQuiz.objects.create(resource_link=link, quiz=linked)
    MIGRATION.authorise_what_is_linked(django_apps, None)
    assert list(DeploymentCourse.objects.values_list("deployment", "course")) == [
        (deployment.pk, quiz.course_id)
    ]
    assert list(DeploymentQuiz.objects.values_list("deployment", "quiz")) == [
        (deployment.pk, open_quiz.pk)
    ]


def test_staff_authorise_a_course_in_the_admin(client, deployment, elsewhere):
    from tests.factories import UserFactory

    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    url = f"/admin/lti_tool/ltideployment/{deployment.pk}/change/"
    page = client.get(url)
    assert page.status_code == 200 and "Authorised Burn-in courses" in page.content.decode()
    existing = DeploymentCourse.objects.get(deployment=deployment)
    prefix, quizzes = "burnin_courses", "burnin_quizzes"
    form = {
        "is_active": "on",
        f"{prefix}-TOTAL_FORMS": "2",
        f"{prefix}-INITIAL_FORMS": "1",
        f"{prefix}-0-id": str(existing.pk),
        f"{prefix}-0-deployment": str(deployment.pk),
        f"{prefix}-0-course": str(existing.course_id),
        f"{prefix}-1-deployment": str(deployment.pk),
        f"{prefix}-1-course": str(elsewhere.course_id),
        f"{quizzes}-TOTAL_FORMS": "0",
        f"{quizzes}-INITIAL_FORMS": "0",
    }
    response = client.post(url, form)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert set(DeploymentCourse.objects.values_list("course_id", flat=True)) == {
        existing.course_id,
        elsewhere.course_id,
    }
