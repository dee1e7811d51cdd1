"""manage.py load_demo: idempotent demo accounts, instructor role, two quizzes, the
demo learner enrolled in their course, and the certification demo (an organisation, its
manager, a team with one certified and one expired engineer)."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from assess.models import CourseRole, Enrolment, Quiz
from capstone.models import Memo
from certify.models import Certificate
from certify.services.tracks import tracks_load
from curricula.services import curricula_load
from orgs.models import Membership, Team

pytestmark = pytest.mark.django_db


def test_load_demo_needs_the_curricula():
    with pytest.raises(CommandError, match="load_curricula"):
        call_command("load_demo")


def test_load_demo_needs_the_tracks():
    curricula_load()
    with pytest.raises(CommandError, match="load_tracks"):
        call_command("load_demo")
    assert not get_user_model().objects.exists()  # failed before writing anything


def test_load_demo_is_idempotent_and_prints_the_accounts(
    client, capsys, django_capture_on_commit_callbacks
):
    curricula_load()
    tracks_load()
    with django_capture_on_commit_callbacks(execute=True):  # the memo's review
        call_command("load_demo")
    first = capsys.readouterr().out
    certificates = list(Certificate.objects.order_by("pk").values())
    call_command("load_demo")
    second = capsys.readouterr().out
    for line in ("learner", "learner-demo-pass", "instructor-demo-pass", "admin-demo-pass"):
        assert line in first and line in second
    assert "manager-demo-pass" in first and "oncall-demo-pass" in first
    assert "[created]" in first and "[created]" not in second and "[exists]" in second
    users = get_user_model().objects
    assert users.count() == 6 and users.get(username="admin").is_staff
    roles = CourseRole.objects.order_by("course__slug")
    assert [(r.user.username, r.course.slug, r.role) for r in roles] == [
        ("instructor", "foundations-of-ai-infrastructure", "instructor"),
        ("instructor", "learn-ai-infrastructure", "instructor"),
    ]
    practice, exam = Quiz.objects.get(mode="practice"), Quiz.objects.get(mode="exam")
    assert exam.time_limit.total_seconds() == 600 and exam.feedback == "after_attempt"
    assert practice.slots.count() >= 3 and exam.slots.count() >= 3
    # once per course, though the command ran twice
    enrolments = Enrolment.objects.order_by("course__slug", "user__username")
    assert [(e.user.username, e.course.slug) for e in enrolments] == [
        ("learner", "foundations-of-ai-infrastructure"),
        ("oncall", "foundations-of-ai-infrastructure"),  # their approved capstone memo
        ("learner", exam.course.slug),
    ]
    assert practice.course == exam.course
    assert "learner enrolled in learn-ai-infrastructure [created]" in first
    assert "learner enrolled in learn-ai-infrastructure [exists]" in second
    # The learner's capstone memo, submitted once and reviewed (in-process Celery): its
    # planted GB/GiB slip is named, and it waits in the instructor's queue.
    memo = Memo.objects.get(capstone__learner__username="learner")
    (version,) = memo.versions.all()
    assert version.review_status == "done" and version.deliveries == 1
    weights = next(c for c in version.review["criteria"] if c["code"] == "weights")
    assert weights["misconception"] == "gb-vs-gib"
    assert "capstone memo" in first and "capstone memo [exists]" in second
    for username in ("learner", "instructor", "admin"):
        assert client.login(username=username, password=f"{username}-demo-pass")
    # The demo learner sees both demo quizzes on the quiz list.
    client.login(username="learner", password="learner-demo-pass")
    html = client.get("/quizzes/").content.decode()
    assert practice.title in html and "Demo exam: sizing a deployment" in html
    # The certification demo: one certified engineer (issued by the service, on real
    # evidence), one expired, the learner in progress; nothing new on the second run.
    assert list(Certificate.objects.order_by("pk").values()) == certificates
    holders = {c.holder.username: c for c in Certificate.objects.select_related("holder")}
    assert set(holders) == {"oncall", "lapsed"}
    assert holders["oncall"].status == "valid" and holders["oncall"].evidence["memo"]
    assert holders["lapsed"].status == "expired"
    team = Team.objects.get(name="Inference on-call", organization__name="Demo GPU Cloud")
    assert [t.slug for t in team.tracks.all()] == ["inference-serving-oncall"]
    members = sorted(team.members.values_list("user__username", flat=True))
    assert members == ["lapsed", "learner", "oncall"]
    assert Membership.objects.get(user__username="manager").role == "manager"
    client.login(username="manager", password="manager-demo-pass")
    html = client.get(f"/teams/{team.pk}/").content.decode()
    assert "Certified until" in html and "Expired" in html and "In progress" in html
