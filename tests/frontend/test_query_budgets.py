"""Pages read a fixed number of times, however long the course or the exam."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from assess.services.attempts import attempt_start
from tests.factories import LessonFactory, QuizFactory

pytestmark = pytest.mark.django_db


def count(client, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_course_page_queries_do_not_grow_with_lessons(client, learner, module, lesson):
    client.force_login(learner)
    small = count(client, "/courses/ai-infra/")
    for i in range(10):
        LessonFactory(module=module, templates=["kv-cache-per-token", "weights-memory"], order=i)
    assert count(client, "/courses/ai-infra/") == small <= 10


def test_exam_page_queries_do_not_grow_with_questions(client, learner, course):
    client.force_login(learner)
    short = QuizFactory(mode="exam", course=course, slots=[["weights-memory"]])
    long = QuizFactory(mode="exam", course=course, slots=[["weights-memory"]] * 8)
    a, _ = attempt_start(quiz=short, learner=learner)
    b, _ = attempt_start(quiz=long, learner=learner)
    assert count(client, f"/attempts/{a.pk}/") == count(client, f"/attempts/{b.pk}/") <= 8


def test_dashboard_and_lesson_pages_stay_small(client, learner, practice):
    client.force_login(learner)
    assert count(client, "/dashboard/") <= 9
    assert count(client, "/lessons/gpu-memory-math/") <= 9
    q = practice.question
    assert count(client, f"/attempts/{q.attempt_id}/q/{q.pk}/") <= 9
