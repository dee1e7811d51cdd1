"""The learner's dashboard: enrolled courses, skills over time, attempts, and the
certificates placeholder."""

import pytest

from assess.services.questions import practice_question_add
from assess.services.responses import response_submit
from tests.factories import CourseFactory, EnrolmentFactory, LessonFactory, ModuleFactory
from tests.frontend.helpers import gib_slip_text, part_of, right_text

pytestmark = pytest.mark.django_db


def test_an_empty_dashboard_says_what_to_do(login, learner):
    html = login(learner).get("/dashboard/").content.decode()
    assert "No answers yet" in html and "No attempts yet" in html
    assert "You are not enrolled in any course yet" in html
    assert "No certificate yet" in html and "/certify/" in html


def answer(practice, text, key):
    return response_submit(
        attempt=practice.attempt,
        question=practice.question,
        part="weights",
        text=text,
        idempotency_key=key,
    )


def test_dashboard_charts_skill_history_and_lists_attempts(login, learner, lesson, practice):
    part = part_of(practice.question)
    answer(practice, gib_slip_text(part), "a")  # first try: evidence
    answer(practice, right_text(part), "b")  # a later try: not evidence
    second = practice_question_add(learner=learner, lesson=lesson)
    answer(second, right_text(part_of(second.question)), "c")  # first try: evidence
    html = login(learner).get("/dashboard/").content.decode()
    assert 'class="chart history"' in html
    chart = html[html.index('class="chart history"') : html.index("</svg>")]
    # One line per skill of weights-memory, one point per evidence answer: 2 x 2.
    assert chart.count("<circle") == 4 and chart.count('class="series"') == 2
    assert "weights-bytes" in chart and "units-gb-gib" in chart
    assert "GPU Memory Math" not in chart  # skills, not a lesson minimum
    # Lesson practice enrolled the learner: the course and the lesson's summary show.
    assert "AI Infra" in html and 'href="/lessons/gpu-memory-math/"' in html
    assert "0 of 2" in html
    skills = html[html.index("<caption>Your skills now</caption>") :]
    assert '<th scope="row">weights-bytes</th>' in skills
    assert '<td class="num">2</td>' in skills  # two answers of evidence
    assert f'href="/attempts/{practice.attempt.pk}/"' in html
    assert "Practice: GPU Memory Math" in html
    # placeholder only: no certificate is invented
    section = html[html.index('id="cert-h"') :]
    assert "certificate" in section.lower() and "<table" not in section


def test_dashboard_lists_only_the_courses_the_learner_is_enrolled_in(login, learner, lesson):
    """An enrolled course shows even before any answer; a course the learner is not in
    does not, though its lesson tests the same skill the learner has practised."""
    EnrolmentFactory(user=learner, course=lesson.module.course)
    other = CourseFactory(slug="elsewhere", title="Elsewhere Course")
    LessonFactory(
        module=ModuleFactory(course=other),
        slug="elsewhere-lesson",
        title="Elsewhere Lesson",
        templates=["weights-memory"],
    )
    html = login(learner).get("/dashboard/").content.decode()
    assert "AI Infra" in html and "GPU Memory Math" in html and "not started" in html
    assert "Elsewhere Course" not in html and "Elsewhere Lesson" not in html
