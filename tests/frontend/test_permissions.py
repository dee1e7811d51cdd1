"""Who may open what: sign-in walls, another learner's attempt, instructor pages."""

import pytest

from tests.factories import CourseFactory, QuizFactory

pytestmark = pytest.mark.django_db

SIGNED_IN_PAGES = ["/dashboard/", "/teach/", "/teach/quizzes/new/", "/teach/preview/"]


@pytest.mark.parametrize("path", SIGNED_IN_PAGES)
def test_anonymous_users_are_sent_to_sign_in(client, path):
    response = client.get(path)
    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next={path}"


def test_the_quiz_list_tells_a_visitor_how_to_get_in(client):
    """Not a sign-in wall: sign up, sign in with your company, or launch from your LMS."""
    response = client.get("/quizzes/")
    html = response.content.decode()
    assert response.status_code == 200
    assert 'href="/accounts/signup/"' in html and 'href="/accounts/sso/"' in html
    assert "Launch from your LMS" in html


def test_anonymous_users_cannot_open_an_attempt(client, practice):
    response = client.get(f"/attempts/{practice.attempt.pk}/")
    assert response["Location"].startswith("/accounts/login/")


def test_another_learners_attempt_is_404_for_every_action(login, other_learner, practice):
    client = login(other_learner)
    a, q = practice.attempt.pk, practice.question.pk
    assert client.get(f"/attempts/{a}/").status_code == 404
    assert client.get(f"/attempts/{a}/q/{q}/").status_code == 404
    for action in ("answer/", "draft/", "vary/", "reveal/"):
        assert (
            client.post(f"/attempts/{a}/q/{q}/{action}", {"part-weights": "1"}).status_code == 404
        )
    assert client.post(f"/attempts/{a}/finish/").status_code == 404


def test_a_question_of_another_attempt_is_404(login, learner, practice, exam_attempt):
    other_q = exam_attempt.questions.first()
    client = login(learner)
    assert client.get(f"/attempts/{practice.attempt.pk}/q/{other_q.pk}/").status_code == 404


@pytest.mark.parametrize(
    "path", ["/teach/", "/teach/quizzes/new/", "/teach/preview/?template=weights-memory"]
)
def test_learners_cannot_open_instructor_pages(login, learner, path):
    assert login(learner).get(path).status_code == 403


def test_learners_get_404_on_quiz_analysis_and_course_progress(login, learner, exam):
    client = login(learner)
    assert client.get(f"/teach/quizzes/{exam.pk}/items/").status_code == 404
    assert client.get("/teach/courses/ai-infra/progress/").status_code == 404
    assert client.get("/teach/courses/ai-infra/progress.csv").status_code == 404
    assert client.get("/teach/courses/ai-infra/learners/").status_code == 404
    assert "Teach" not in client.get("/").content.decode().split("</nav>")[0]


def test_an_instructor_of_another_course_gets_404(login, instructor, db):
    other = CourseFactory(slug="other-course")
    quiz = QuizFactory(course=other)
    client = login(instructor)
    assert client.get(f"/teach/quizzes/{quiz.pk}/items/").status_code == 404
    assert client.get("/teach/courses/other-course/progress/").status_code == 404
    assert client.get("/teach/courses/other-course/learners/").status_code == 404


def test_an_instructor_may_review_a_learners_attempt_but_not_answer(
    login, instructor, learner, exam_attempt
):
    client = login(instructor)
    html = client.get(f"/attempts/{exam_attempt.pk}/").content.decode()
    assert "by learner" in html and "Finish and submit" not in html
    assert '<form class="answer"' not in html
    q = exam_attempt.questions.first()
    assert client.post(f"/attempts/{exam_attempt.pk}/q/{q.pk}/answer/").status_code == 404
    assert client.post(f"/attempts/{exam_attempt.pk}/q/{q.pk}/reveal/").status_code == 404
