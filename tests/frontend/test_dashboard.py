"""The learner's dashboard: enrolled courses, skills over time, attempts, and the
certificates placeholder."""

import pytest

from assess.models import SkillMastery
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
    assert "Bytes of weights" in chart and "GB and GiB" in chart  # words, not slugs
    assert "weights-bytes" not in chart
    assert "GPU Memory Math" not in chart  # skills, not a lesson minimum
    # Lesson practice enrolled the learner: the course and the lesson's summary show.
    assert "AI Infra" in html and 'href="/lessons/gpu-memory-math/"' in html
    assert "0 of 2" in html
    skills = html[html.index("<caption>Your skills now</caption>") :]
    assert '<th scope="row">Bytes of weights</th>' in skills
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


def course_section(html: str, slug: str) -> str:
    start = html.index(f'aria-labelledby="course-{slug}-h"')
    return html[start : html.index("</section>", start)]


def test_lessons_are_grouped_under_a_heading_per_course(login, learner, lesson, practice):
    """Two enrolled courses: each has its own heading with its own lessons under it, and
    a lesson of one never shows under the other."""
    answer(practice, right_text(part_of(practice.question)), "a")
    other = CourseFactory(slug="serving", title="Serving Course", order=5)
    EnrolmentFactory(user=learner, course=other)
    LessonFactory(
        module=ModuleFactory(course=other),
        slug="decode",
        title="Decode Lesson",
        templates=["kv-cache-per-token"],
    )
    html = login(learner).get("/dashboard/").content.decode()
    assert '<h3 id="course-ai-infra-h"><a href="/courses/ai-infra/">AI Infra</a></h3>' in html
    assert '<h3 id="course-serving-h"><a href="/courses/serving/">Serving Course</a></h3>' in html
    mine, theirs = course_section(html, "ai-infra"), course_section(html, "serving")
    assert "GPU Memory Math" in mine and "Decode Lesson" not in mine
    assert "Decode Lesson" in theirs and "GPU Memory Math" not in theirs
    assert "1 of 1 lesson started" in mine and "0 of 1 lesson started" in theirs


def test_each_practised_skill_reads_in_words_and_figures(login, learner, lesson, practice):
    """Per course, every practised skill: its estimate as a percentage and a word, the
    bar only repeating them; unpractised skills are listed as not started."""
    part = part_of(practice.question)
    answer(practice, right_text(part), "a")
    p = SkillMastery.objects.get(learner=learner, skill="weights-bytes").p_mastery
    html = login(learner).get("/dashboard/").content.decode()
    mine = course_section(html, "ai-infra")
    row = mine[mine.index('<span class="skill-name">Bytes of weights</span>') :]
    row = row[: row.index("</li>")]
    assert f"<strong>{p * 100:.0f}%</strong>, practising" in row
    assert f'value="{p:.3f}" aria-hidden="true"' in row  # the bar repeats the figure
    assert "(1 answer)" in row
    assert "0 of 2 skills mastered" in mine


def test_a_course_not_practised_lists_its_skills_as_not_started(login, learner, lesson):
    EnrolmentFactory(user=learner, course=lesson.module.course)
    mine = course_section(login(learner).get("/dashboard/").content.decode(), "ai-infra")
    assert "No skill of this course practised yet." in mine
    assert "No answers yet: 2 skills" in mine and "Bytes of weights" in mine
    assert "weights-bytes" not in mine  # skills in words, never their slugs


def test_dashboard_queries_do_not_grow_with_lessons_or_courses(client, learner, lesson, practice):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def count() -> int:
        with CaptureQueriesContext(connection) as ctx:
            assert client.get("/dashboard/").status_code == 200
        return len(ctx.captured_queries)

    client.force_login(learner)
    few = count()
    for i in range(3):
        course = CourseFactory(slug=f"extra-{i}", title=f"Extra {i}")
        EnrolmentFactory(user=learner, course=course)
        module = ModuleFactory(course=course)
        for j in range(8):
            LessonFactory(module=module, templates=["kv-cache-per-token", "gb-gib"], order=j)
    html = client.get("/dashboard/").content.decode()
    assert html.count('class="course-progress"') == 4
    assert count() == few


def test_signing_in_without_a_next_page_lands_on_the_dashboard(client, learner):
    from tests.factories import PASSWORD

    response = client.post("/accounts/login/", {"login": "learner", "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/dashboard/"
