"""Catalog, course and lesson pages, and starting lesson practice."""

import pytest

from assess.models import Question
from assess.services.responses import response_submit
from tests.frontend.helpers import part_of, right_text

pytestmark = pytest.mark.django_db


def test_course_catalog_lists_courses_with_sizes(client, lesson, kv_lesson):
    html = client.get("/courses/").content.decode()
    assert 'href="/courses/ai-infra/"' in html and "2 lessons" in html


def test_course_page_lists_modules_lessons_and_asks_anonymous_users_to_sign_in(client, lesson):
    html = client.get("/courses/ai-infra/").content.decode()
    assert "Basic" in html and 'href="/lessons/gpu-memory-math/"' in html
    assert "to practise and track your mastery" in html
    assert "<svg" not in html


def test_course_page_charts_the_learners_mastery(login, learner, lesson, kv_lesson, practice):
    response_submit(
        attempt=practice.attempt,
        question=practice.question,
        part="weights",
        text=right_text(part_of(practice.question)),
        idempotency_key="k1",
    )
    html = login(learner).get("/courses/ai-infra/").content.decode()
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="chart mastery"' in html
    chart = html[html.index('class="chart mastery"') : html.index("</svg>")]
    # The share of skills mastered: one right answer masters neither of its two skills.
    assert "GPU Memory Math" in chart and "0% (0 of 2 skills)" in chart
    assert "not started" in chart  # the KV lesson, not its prior
    assert 'data-lesson="gpu-memory-math"' in html and "0 of 2 skills mastered" in html
    assert "weakest: " in html


def test_unknown_course_and_lesson_are_404(client, db):
    assert client.get("/courses/nope/").status_code == 404
    assert client.get("/lessons/nope/").status_code == 404


def test_lesson_page_shows_objectives_and_a_practice_button(login, learner, lesson):
    html = login(learner).get("/lessons/gpu-memory-math/").content.decode()
    assert "Size a model&#x27;s weights in GB and GiB." in html
    assert 'action="/lessons/gpu-memory-math/practice/"' in html
    assert "No answers yet." in html


def test_practice_requires_sign_in(client, lesson):
    response = client.post("/lessons/gpu-memory-math/practice/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_practice_button_adds_a_question_and_opens_it(login, learner, lesson):
    response = login(learner).post("/lessons/gpu-memory-math/practice/")
    question = Question.objects.get(attempt__learner=learner)
    assert question.template_slug == "weights-memory"
    assert response["Location"] == f"/attempts/{question.attempt_id}/q/{question.pk}/"


def test_practice_on_a_lesson_without_problems_explains_itself(login, learner, module):
    from tests.factories import LessonFactory

    LessonFactory(module=module, slug="planned-one", templates=[])
    client = login(learner)
    response = client.post("/lessons/planned-one/practice/", follow=True)
    assert "no practice problems yet" in response.content.decode()


def test_lesson_page_lists_recent_answers(login, learner, lesson, practice):
    response_submit(
        attempt=practice.attempt,
        question=practice.question,
        part="weights",
        text="12 GB",
        idempotency_key="k1",
    )
    html = login(learner).get("/lessons/gpu-memory-math/").content.decode()
    assert "Your recent answers" in html and "12 GB" in html and "not correct" in html
    assert "Your mastery:" in html


def test_an_unpractised_skill_says_no_answers_yet_not_the_prior(login, learner, module):
    """A lesson half practised: its weakest skill has no answer yet, so pages say so
    rather than printing the model's prior as if it were measured (and never "not
    started" of a skill beside a started lesson)."""
    from assess.services.questions import practice_question_add
    from tests.factories import LessonFactory

    LessonFactory(module=module, slug="mixed", templates=["weights-memory", "kv-cache-per-token"])
    client = login(learner)
    # Ties at the prior go to the lesson's first skill: a weights-memory question.
    practice = practice_question_add(learner=learner, lesson=module.lessons.get())
    assert practice.question.template_slug == "weights-memory"
    response_submit(
        attempt=practice.attempt,
        question=practice.question,
        part="weights",
        text=right_text(part_of(practice.question)),
        idempotency_key="k1",
    )
    html = client.get("/lessons/mixed/").content.decode()
    assert "0 of 5 skills mastered</strong>; weakest: KV cache bytes, no answers yet" in html
    row = html[html.index('<th scope="row">KV cache bytes</th>') :].split("</tr>")[0]
    assert "—" in row and "no answers yet" in row and "20%" not in row
    assert (
        "weakest: KV cache bytes, no answers yet"
        in client.get("/courses/ai-infra/").content.decode()
    )
