"""Names and Roles: an instructor's launch offering NRPS brings the LMS course's roster
in (lti1p3platform's membership handler as the LMS), so the course lists learners who
have not launched yet; their own first launch then finds the same Burn-in user."""

from __future__ import annotations

import pytest
import requests
from django.core.cache import cache
from lti_tool.models import Key, LtiMembership, LtiUser

from assess.models import Attempt, Enrolment
from tests.lti.conftest import INSTRUCTOR, LEARNER
from tests.lti.lms_services import MEMBERSHIPS_URL, FakeLms, LmsAdapter, nrps_claim

pytestmark = pytest.mark.django_db


def member(sub, role=LEARNER, status="Active", **extra):
    return {"user_id": sub, "roles": [role], "status": status, **extra}


@pytest.fixture
def lms(platform, tool_key, monkeypatch):
    cache.clear()
    lms = FakeLms(key=platform.key, tool_jwks=Key.objects.as_jwks())
    lms.members = [
        member("roster-1", given_name="Grace", family_name="Hopper", email="grace@example.org"),
        member("roster-2", status="Inactive"),
        member("teacher-sub", role=INSTRUCTOR),
    ]
    session = requests.Session()
    session.mount("https://lms.example.org/", LmsAdapter(lms))
    monkeypatch.setattr("lti.platform_client._session", session)
    return lms


def instructor_launch(platform, capture, **claims):
    with capture(execute=True):
        response = platform.launch(sub="teacher-sub", roles=[INSTRUCTOR], **claims)
    assert response.status_code == 303, response.content
    return response


def enrolled_subs(course) -> set[str]:
    users = Enrolment.objects.filter(course=course).values("user_id")
    return set(LtiUser.objects.filter(auth_user__in=users).values_list("sub", flat=True))


def test_an_instructor_launch_brings_the_roster_in(
    platform, lms, course, django_capture_on_commit_callbacks
):
    instructor_launch(platform, django_capture_on_commit_callbacks, **nrps_claim())
    assert enrolled_subs(course) == {"roster-1"}  # active learners only
    grace = LtiUser.objects.get(sub="roster-1")
    assert (grace.auth_user.first_name, grace.auth_user.email) == ("Grace", "grace@example.org")
    memberships = {m.user.sub: m for m in LtiMembership.objects.select_related("user")}
    assert set(memberships) == {"roster-1", "roster-2", "teacher-sub"}
    assert memberships["roster-2"].is_active is False
    assert memberships["teacher-sub"].is_instructor

    # Grace's own first launch finds the user the roster made: no second account
    learner_client = platform.client.__class__(enforce_csrf_checks=True)
    platform.client = learner_client
    assert platform.launch(sub="roster-1").status_code == 303
    assert Attempt.objects.get().learner == grace.auth_user
    assert Enrolment.objects.filter(course=course).count() == 1


def test_a_second_launch_soon_after_does_not_sync_again(
    platform, lms, django_capture_on_commit_callbacks
):
    instructor_launch(platform, django_capture_on_commit_callbacks, **nrps_claim())
    instructor_launch(platform, django_capture_on_commit_callbacks, **nrps_claim())
    assert lms.calls.count(("GET", "/contexts/course-a/memberships")) == 1


def test_every_page_is_read(platform, lms, course, django_capture_on_commit_callbacks):
    lms.members = [member(f"page-{i}") for i in range(5)]
    claim = nrps_claim(MEMBERSHIPS_URL + "?limit=2")
    instructor_launch(platform, django_capture_on_commit_callbacks, **claim)
    assert lms.calls.count(("GET", "/contexts/course-a/memberships")) == 3
    assert enrolled_subs(course) == {f"page-{i}" for i in range(5)}


def test_odd_member_fields_do_not_fail_the_roster(
    platform, lms, course, django_capture_on_commit_callbacks
):
    lms.members = [
        member("odd-1", given_name="x" * 2000, email="not an email", status="Weird"),
        {"user_id": "", "roles": [LEARNER]},  # dropped: no id
    ]
    instructor_launch(platform, django_capture_on_commit_callbacks, **nrps_claim())
    assert enrolled_subs(course) == {"odd-1"}
    assert len(LtiUser.objects.get(sub="odd-1").given_name) == 500


def test_a_launch_without_the_claim_or_from_a_learner_reads_no_roster(
    platform, lms, django_capture_on_commit_callbacks
):
    instructor_launch(platform, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        assert platform.launch(sub="learner-x", **nrps_claim()).status_code == 303
    assert lms.calls == []


def test_a_refused_roster_is_logged_and_writes_nothing(
    platform, lms, course, django_capture_on_commit_callbacks, caplog
):
    lms.fail_next("GET", "/memberships", 403)
    instructor_launch(platform, django_capture_on_commit_callbacks, **nrps_claim())
    assert enrolled_subs(course) == set()
    assert "roster of LMS context" in caplog.text and "HTTP 403" in caplog.text


def test_a_roster_past_its_bound_is_refused_and_writes_nothing(
    platform, lms, course, django_capture_on_commit_callbacks, caplog, monkeypatch
):
    """Every page's members are written in one transaction, so their number is bounded
    (MAX_MEMBERS), as each page's size and time are (lti/bounded_read.py)."""
    monkeypatch.setattr("lti.roster.MAX_MEMBERS", 3)
    lms.members = [member(f"page-{i}") for i in range(5)]
    instructor_launch(
        platform, django_capture_on_commit_callbacks, **nrps_claim(MEMBERSHIPS_URL + "?limit=2")
    )
    assert enrolled_subs(course) == set()
    assert "more than 3 members" in caplog.text


def test_an_lms_answer_past_its_size_is_refused_and_writes_nothing(
    platform, lms, course, django_capture_on_commit_callbacks, caplog, monkeypatch
):
    monkeypatch.setattr("lti.platform_client.MAX_ANSWER_BYTES", 200)
    lms.members = [member(f"big-{i}", given_name="x" * 100) for i in range(5)]
    instructor_launch(platform, django_capture_on_commit_callbacks, **nrps_claim())
    assert enrolled_subs(course) == set()
    assert "the answer is larger than 200 bytes" in caplog.text
