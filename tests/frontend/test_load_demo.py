"""manage.py load_demo: idempotent demo accounts, instructor role, two quizzes, and the
demo learner enrolled in their course."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from assess.models import CourseRole, Enrolment, Quiz
from curricula.services import curricula_load

pytestmark = pytest.mark.django_db


def test_load_demo_needs_the_curricula():
    with pytest.raises(CommandError, match="load_curricula"):
        call_command("load_demo")


def test_load_demo_is_idempotent_and_prints_the_accounts(client, capsys):
    curricula_load()
    call_command("load_demo")
    first = capsys.readouterr().out
    call_command("load_demo")
    second = capsys.readouterr().out
    for line in ("learner", "learner-demo-pass", "instructor-demo-pass", "admin-demo-pass"):
        assert line in first and line in second
    assert "[created]" in first and "[created]" not in second and "[exists]" in second
    users = get_user_model().objects
    assert users.count() == 3 and users.get(username="admin").is_staff
    role = CourseRole.objects.get()
    assert (role.user.username, role.course.slug, role.role) == (
        "instructor",
        "learn-ai-infrastructure",
        "instructor",
    )
    practice, exam = Quiz.objects.get(mode="practice"), Quiz.objects.get(mode="exam")
    assert exam.time_limit.total_seconds() == 600 and exam.feedback == "after_attempt"
    assert practice.slots.count() >= 3 and exam.slots.count() >= 3
    enrolment = Enrolment.objects.get()  # once, though the command ran twice
    assert (enrolment.user.username, enrolment.course) == ("learner", exam.course)
    assert practice.course == exam.course
    assert "learner enrolled in learn-ai-infrastructure [created]" in first
    assert "learner enrolled in learn-ai-infrastructure [exists]" in second
    for username in ("learner", "instructor", "admin"):
        assert client.login(username=username, password=f"{username}-demo-pass")
    # The demo learner sees both demo quizzes on the quiz list.
    client.login(username="learner", password="learner-demo-pass")
    html = client.get("/quizzes/").content.decode()
    assert practice.title in html and "Demo exam: sizing a deployment" in html
