"""Every main page, HTML plus the CSS and JavaScript it links, stays under 150 KB.

Measured on the real curricula (the 30-lesson course is the longest course page) with a
learner who has answered, an exam in progress and an instructor's analysis.
"""

import re

import pytest
from django.contrib.staticfiles import finders

from assess.services.attempts import attempt_start
from assess.services.questions import practice_question_add
from assess.services.responses import response_submit
from assess.services.reveals import part_reveal
from curricula.models import Course, Lesson
from curricula.services import curricula_load
from tests.factories import CourseRoleFactory, QuizFactory, UserFactory

pytestmark = pytest.mark.django_db

LIMIT = 150 * 1024
ASSET = re.compile(r'<(?:link rel="stylesheet" href|script src)="([^"]+)"')


def weight(client, url: str) -> tuple[int, int]:
    response = client.get(url)
    assert response.status_code == 200, url
    html = response.content
    assets = 0
    for src in ASSET.findall(html.decode()):
        path = finders.find(src.removeprefix("/static/"))
        assert path, src
        with open(path, "rb") as f:
            assets += len(f.read())
    return len(html), assets


@pytest.fixture
def site(client):
    curricula_load()
    course = Course.objects.get(slug="learn-ai-infrastructure")
    learner = UserFactory(username="learner")
    teacher = CourseRoleFactory(user__username="teacher", course=course).user
    lesson = Lesson.objects.get(slug="gpu-memory-math")
    practice = practice_question_add(learner=learner, lesson=lesson)
    q = practice.question
    text = "1"  # any readable answer: the page then carries feedback
    response_submit(
        attempt=practice.attempt,
        question=q,
        part=q.answers[0]["name"],
        text=text,
        idempotency_key="w1",
    )
    # and, once the part is revealed, its answer and the worked solution: the heaviest.
    part_reveal(attempt=practice.attempt, question=q, part=q.answers[0]["name"])
    exam = QuizFactory(
        mode="exam", course=course, slots=[["weights-memory"], ["kv-cache-total"], ["tp-min-gpus"]]
    )
    exam_attempt, _ = attempt_start(quiz=exam, learner=learner)
    return {
        "learner": learner,
        "teacher": teacher,
        "pages": {
            "home": "/",
            "courses": "/courses/",
            "course": "/courses/learn-ai-infrastructure/",
            "lesson": "/lessons/gpu-memory-math/",
            "question with feedback": f"/attempts/{practice.attempt.pk}/q/{q.pk}/",
            "exam": f"/attempts/{exam_attempt.pk}/",
            "dashboard": "/dashboard/",
            "hardware": "/hardware/",
            "compare": "/hardware/compare/?a=h100-sxm&b=mi300x",
            "roofline": "/hardware/roofline/?accelerator=h100-sxm&precision=bf16",
        },
        "teacher_pages": {
            "quiz builder": "/teach/quizzes/new/",
            "item analysis": f"/teach/quizzes/{exam.pk}/items/",
            "progress": "/teach/courses/learn-ai-infrastructure/progress/",
            "learners": "/teach/courses/learn-ai-infrastructure/learners/",
        },
    }


def test_main_pages_weigh_less_than_150_kb(client, site, capsys):
    rows = []
    client.force_login(site["learner"])
    rows += [(name, *weight(client, url)) for name, url in site["pages"].items()]
    client.force_login(site["teacher"])
    rows += [(name, *weight(client, url)) for name, url in site["teacher_pages"].items()]
    with capsys.disabled():
        print("\npage weights (HTML + linked CSS/JS, uncompressed):")
        for name, html, assets in rows:
            print(
                f"  {name:<24} {html / 1024:6.1f} KB HTML + {assets / 1024:5.1f} KB assets"
                f" = {(html + assets) / 1024:6.1f} KB"
            )
    for name, html, assets in rows:
        assert html + assets < LIMIT, (name, html, assets)
