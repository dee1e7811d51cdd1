"""Enrolment in the pages: the course page's Enrol button, courses whose instructors
enrol their learners, quizzes listed only to enrolled learners, and the instructors'
learner list and progress table, which show enrolled learners only."""

import csv
import io

import pytest

from assess.models import Attempt, Enrolment
from assess.services.questions import practice_question_add
from assess.services.responses import response_submit
from curricula.models import Course
from tests.factories import (
    CourseFactory,
    CourseRoleFactory,
    EnrolmentFactory,
    LessonFactory,
    ModuleFactory,
    QuizFactory,
    UserFactory,
)
from tests.frontend.helpers import part_of, right_text

pytestmark = pytest.mark.django_db


def test_the_enrol_button_enrols_and_the_page_then_says_so(login, learner, lesson):
    client = login(learner)
    html = client.get("/courses/ai-infra/").content.decode()
    assert 'action="/courses/ai-infra/enrol/"' in html and "Enrol in this course" in html
    assert "You are enrolled" not in html
    response = client.post("/courses/ai-infra/enrol/")
    assert response.status_code == 302 and response["Location"] == "/courses/ai-infra/"
    enrolment = Enrolment.objects.get(user=learner)
    assert (enrolment.course.slug, enrolment.source) == ("ai-infra", "self")
    html = client.get("/courses/ai-infra/").content.decode()
    assert "You are enrolled in this course" in html and "Enrol in this course" not in html
    assert "You are enrolled in AI Infra." in html  # the one-time message
    client.post("/courses/ai-infra/enrol/")  # twice is harmless
    assert Enrolment.objects.count() == 1
    assert client.get("/courses/ai-infra/enrol/")["Location"] == "/courses/ai-infra/"


def test_anonymous_users_are_asked_to_sign_in_not_to_enrol(client, lesson):
    html = client.get("/courses/ai-infra/").content.decode()
    assert "Enrol in this course" not in html and "Sign in</a> to practise" in html
    response = client.post("/courses/ai-infra/enrol/")
    assert response["Location"].startswith("/accounts/login/")


def test_a_course_its_instructors_enrol_says_so_and_refuses_with_403(login, learner, lesson):
    Course.objects.filter(slug="ai-infra").update(self_enrol=False)
    client = login(learner)
    html = client.get("/courses/ai-infra/").content.decode()
    assert "instructors enrol its learners" in html and "Enrol in this course" not in html
    refused = client.post("/courses/ai-infra/enrol/")
    assert refused.status_code == 403
    assert "This course enrols learners through its instructors." in refused.content.decode()
    lesson_html = client.get("/lessons/gpu-memory-math/").content.decode()
    assert "Practice this lesson</button>" not in lesson_html
    assert "enrols its learners through its instructors" in lesson_html
    practice = client.post("/lessons/gpu-memory-math/practice/")
    assert practice.status_code == 403
    assert "enrols learners through its instructors" in practice.content.decode()
    assert not Enrolment.objects.exists() and not Attempt.objects.exists()


def test_lesson_practice_enrols_on_first_use(login, learner, lesson):
    client = login(learner)
    html = client.get("/lessons/gpu-memory-math/").content.decode()
    assert "Practising enrols you in AI Infra." in html
    client.post("/lessons/gpu-memory-math/practice/")
    assert Enrolment.objects.get(user=learner).source == "practice"
    assert "You are enrolled" in client.get("/courses/ai-infra/").content.decode()


def test_quizzes_list_and_start_only_for_enrolled_learners(login, learner, course):
    quiz = QuizFactory(title="Course homework", mode="homework", course=course)
    client = login(learner)
    assert "Course homework" not in client.get("/quizzes/").content.decode()
    assert client.post(f"/quizzes/{quiz.pk}/start/").status_code == 404
    client.post("/courses/ai-infra/enrol/")
    assert "Course homework" in client.get("/quizzes/").content.decode()
    assert client.post(f"/quizzes/{quiz.pk}/start/").status_code == 302


@pytest.fixture
def elsewhere(other_learner):
    """Another learner who practised the same template (same skills) in another course,
    and is not enrolled in ai-infra."""
    other_course = CourseFactory(slug="elsewhere")
    other_lesson = LessonFactory(
        module=ModuleFactory(course=other_course), slug="elsewhere", templates=["weights-memory"]
    )
    practice = practice_question_add(learner=other_learner, lesson=other_lesson)
    response_submit(
        attempt=practice.attempt,
        question=practice.question,
        part="weights",
        text=right_text(part_of(practice.question)),
        idempotency_key="elsewhere",
    )
    return other_learner


def test_progress_shows_enrolled_learners_only(login, instructor, learner, practice, elsewhere):
    """`learner` practised here (and so is enrolled); `other` answered the same skills in
    another course; `quiet` is enrolled and has not answered yet."""
    EnrolmentFactory(user=UserFactory(username="quiet"), course=practice.attempt.quiz.course)
    response_submit(
        attempt=practice.attempt,
        question=practice.question,
        part="weights",
        text=right_text(part_of(practice.question)),
        idempotency_key="here",
    )
    client = login(instructor)
    html = client.get("/teach/courses/ai-infra/progress/").content.decode()
    assert '<th scope="row">learner</th>' in html and '<th scope="row">quiet</th>' in html
    assert ">other<" not in html
    assert "0/2" in html  # learner: none of the lesson's two skills mastered yet
    body = client.get("/teach/courses/ai-infra/progress.csv").getvalue().decode()
    rows = list(csv.reader(io.StringIO(body)))
    assert [r[1] for r in rows[1:]] == ["learner", "quiet"]  # name, username, email, ...
    assert rows[2][3:] == ["", ""]  # quiet: not started


def test_instructors_list_add_and_remove_learners(login, instructor, enrolled, other_learner):
    client = login(instructor)
    html = client.get("/teach/courses/ai-infra/learners/").content.decode()
    assert '<th scope="row">learner</th>' in html and ">other<" not in html
    assert '<label for="id_username">Username</label>' in html

    response = client.post("/teach/courses/ai-infra/learners/", {"username": "other"})
    assert response["Location"] == "/teach/courses/ai-infra/learners/"
    assert Enrolment.objects.get(user=other_learner).source == "instructor"
    html = client.get(response["Location"]).content.decode()
    assert "other is now enrolled." in html and '<th scope="row">other</th>' in html

    unknown = client.post("/teach/courses/ai-infra/learners/", {"username": "nobody"})
    assert unknown.status_code == 200 and "No user is called" in unknown.content.decode()

    removed = client.post("/teach/courses/ai-infra/learners/remove/", {"username": "learner"})
    assert removed["Location"] == "/teach/courses/ai-infra/learners/"
    assert not Enrolment.objects.filter(user=enrolled).exists()
    html = client.get("/teach/courses/ai-infra/learners/").content.decode()
    assert "learner is no longer enrolled." in html


def test_a_removed_learner_no_longer_sees_the_course_quizzes(login, instructor, enrolled, course):
    quiz = QuizFactory(title="Course homework", mode="homework", course=course)
    login(instructor).post("/teach/courses/ai-infra/learners/remove/", {"username": "learner"})
    client = login(enrolled)
    assert "Course homework" not in client.get("/quizzes/").content.decode()
    assert client.post(f"/quizzes/{quiz.pk}/start/").status_code == 404


def test_learners_pages_are_404_for_anyone_but_the_courses_instructors(login, learner, course):
    other_teacher = UserFactory(username="elsewhere-teacher")
    CourseRoleFactory(user=other_teacher, course=CourseFactory(slug="theirs"))
    for user in (learner, other_teacher):
        client = login(user)
        assert client.get("/teach/courses/ai-infra/learners/").status_code == 404
        assert (
            client.post("/teach/courses/ai-infra/learners/", {"username": "x"}).status_code == 404
        )
        remove = client.post("/teach/courses/ai-infra/learners/remove/", {"username": "learner"})
        assert remove.status_code == 404
