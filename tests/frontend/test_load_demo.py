"""manage.py load_demo: idempotent demo accounts, instructor role, two quizzes, and the
demo learner enrolled in their course."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from assess.models import CourseRole, Enrolment, Memo, Quiz
from curricula.services import curricula_load

pytestmark = pytest.mark.django_db


def test_load_demo_needs_the_curricula():
    with pytest.raises(CommandError, match="load_curricula"):
        call_command("load_demo")


def test_load_demo_is_idempotent_and_prints_the_accounts(
    client, capsys, django_capture_on_commit_callbacks
):
    curricula_load()
    with django_capture_on_commit_callbacks(execute=True):  # the memo's review
        call_command("load_demo")
    first = capsys.readouterr().out
    call_command("load_demo")
    second = capsys.readouterr().out
    for line in ("learner", "learner-demo-pass", "instructor-demo-pass", "admin-demo-pass"):
        assert line in first and line in second
    assert "[created]" in first and "[created]" not in second and "[exists]" in second
    users = get_user_model().objects
    assert users.count() == 3 and users.get(username="admin").is_staff
    roles = CourseRole.objects.order_by("course__slug")
    assert [(r.user.username, r.course.slug, r.role) for r in roles] == [
        ("instructor", "foundations-of-ai-infrastructure", "instructor"),
        ("instructor", "learn-ai-infrastructure", "instructor"),
    ]
    practice, exam = Quiz.objects.get(mode="practice"), Quiz.objects.get(mode="exam")
    assert exam.time_limit.total_seconds() == 600 and exam.feedback == "after_attempt"
    assert practice.slots.count() >= 3 and exam.slots.count() >= 3
    # once per course, though the command ran twice
    enrolments = Enrolment.objects.order_by("course__slug")
    assert [(e.user.username, e.course.slug) for e in enrolments] == [
        ("learner", "foundations-of-ai-infrastructure"),
        ("learner", exam.course.slug),
    ]
    assert practice.course == exam.course
    assert "learner enrolled in learn-ai-infrastructure [created]" in first
    assert "learner enrolled in learn-ai-infrastructure [exists]" in second
    # The learner's capstone memo, submitted once and reviewed (in-process Celery): its
    # planted GB/GiB slip is named, and it waits in the instructor's queue.
    (memo,) = Memo.objects.all()
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
