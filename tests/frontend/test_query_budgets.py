"""Pages read a fixed number of times, however long the course or the exam."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from assess.models import Extension
from assess.selectors.attempt_rows import _statements
from assess.services.attempts import attempt_start
from assess.services.questions import practice_question_add
from assess.services.responses import response_submit
from tests.factories import EnrolmentFactory, LessonFactory, QuizFactory, UserFactory

pytestmark = pytest.mark.django_db


def count(client, url: str) -> int:
    """Queries of one 200 GET, a streamed body's own reads included."""
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
        if response.streaming:
            response.getvalue()
        assert response.status_code == 200
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
    # 5 today: session, user, attempt, its questions with their responses and reveals
    # (one statement; the policy needs the reveals: a revealed part is closed), the
    # menu's roles.
    assert count(client, f"/attempts/{a.pk}/") == count(client, f"/attempts/{b.pk}/") <= 5


def test_the_start_page_reads_the_learners_extension_and_confirmation_with_its_gate(
    client, enrolled, course
):
    """Starting a timed exam from its page, with an extension: the learner's extension
    and email confirmation come with the quiz's gate (selectors.quiz_get_for_start), so
    it costs an untimed exam's queries, and the extension is applied."""

    def start(quiz) -> int:
        with CaptureQueriesContext(connection) as ctx:
            response = client.post(f"/quizzes/{quiz.pk}/start/")
        assert response.status_code == 302 and response["Location"].startswith("/attempts/")
        return len(ctx.captured_queries)

    client.force_login(enrolled)
    untimed = QuizFactory(mode="exam", course=course, slots=[["weights-memory"]])
    timed = QuizFactory(
        mode="exam", course=course, slots=[["weights-memory"]], time_limit=timedelta(minutes=45)
    )
    Extension.objects.create(quiz=timed, learner=enrolled, extra_time=timedelta(minutes=15))
    assert start(timed) == start(untimed)
    attempt = timed.attempts.get()
    assert attempt.deadline - attempt.started_at == timedelta(minutes=60)


def test_a_paper_reads_its_rows_with_the_statements_every_attempt_read_makes(
    client, learner, course
):
    """The paper's questions, answers and reveals are assess.selectors.attempt_rows'
    one statement (SQL written once, not querysets built at every page: the web-page
    exam in bench/README.md); adaptive practice, a history of variants, keeps its own."""
    client.force_login(learner)
    quiz = QuizFactory(mode="exam", course=course, slots=[["weights-memory"]] * 2)
    a, _ = attempt_start(quiz=quiz, learner=learner)
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(f"/attempts/{a.pk}/").status_code == 200
    sqls = [q["sql"] for q in ctx.captured_queries]
    head = _statements()["active"].split(" WHERE ")[0]
    assert len([s for s in sqls if s.startswith(head)]) == 1


def test_dashboard_and_lesson_pages_stay_small(client, learner, practice):
    client.force_login(learner)
    assert count(client, "/dashboard/") <= 10  # + the learner's answers per template
    assert count(client, "/lessons/gpu-memory-math/") <= 10  # + answers per template
    q = practice.question
    assert count(client, f"/attempts/{q.attempt_id}/q/{q.pk}/") <= 9


def practise(learner, lesson, key: str) -> None:
    """One practice question answered once (a first try: evidence for its skills)."""
    p = practice_question_add(learner=learner, lesson=lesson)
    part = p.question.answers[0]["name"]
    response_submit(
        attempt=p.attempt, question=p.question, part=part, text="1", idempotency_key=key
    )


def test_dashboard_queries_do_not_grow_with_practice(client, learner, lesson, kv_lesson):
    client.force_login(learner)
    practise(learner, lesson, "first")
    few = count(client, "/dashboard/")
    for i in range(5):  # more answers, more skills, more lessons started
        practise(learner, kv_lesson, f"kv{i}")
    assert count(client, "/dashboard/") == few


def test_progress_and_learners_pages_do_not_grow_with_learners(client, instructor, course, lesson):
    client.force_login(instructor)
    EnrolmentFactory(user=UserFactory(), course=course)
    pages = ("/teach/courses/ai-infra/progress/", "/teach/courses/ai-infra/learners/")
    few = [count(client, url) for url in pages]
    for _ in range(10):
        learner = UserFactory()
        EnrolmentFactory(user=learner, course=course)
        practise(learner, lesson, "k")
    assert [count(client, url) for url in pages] == few
    assert max(few) <= 12


def test_the_progress_csv_does_not_grow_with_learners_or_lessons_started(
    client, instructor, course, lesson, kv_lesson
):
    import csv
    import io

    client.force_login(instructor)

    def download() -> tuple[int, list[list[str]]]:
        with CaptureQueriesContext(connection) as ctx:
            response = client.get("/teach/courses/ai-infra/progress.csv")
            body = response.getvalue().decode()  # the queries run as it streams
        assert response.streaming and response.status_code == 200
        return len(ctx.captured_queries), list(csv.reader(io.StringIO(body)))

    first = UserFactory(username="few")
    EnrolmentFactory(user=first, course=course)
    practise(first, lesson, "k")
    few, rows = download()
    assert [r[1] for r in rows[1:]] == ["few"]
    for i in range(12):  # each with both lessons started (a figure in every column)
        learner = UserFactory(username=f"many{i:02d}")
        EnrolmentFactory(user=learner, course=course)
        practise(learner, lesson, "k")
        practise(learner, kv_lesson, "kv")
    many, rows = download()
    assert many == few  # one chunk at both sizes (CSV_FIRST_CHUNK learners)
    by_name = {r[1]: r[3:] for r in rows[1:]}
    assert sorted(by_name) == ["few"] + [f"many{i:02d}" for i in range(12)]
    assert all(all(by_name[f"many{i:02d}"]) for i in range(12))


def test_the_mastery_api_does_not_grow_with_answers(client, learner, lesson, kv_lesson):
    from rest_framework.authtoken.models import Token

    key = Token.objects.create(user=learner).key
    practise(learner, lesson, "first")

    def api_count() -> int:
        with CaptureQueriesContext(connection) as ctx:
            response = client.get("/api/me/mastery/", HTTP_AUTHORIZATION=f"Token {key}")
        assert response.status_code == 200
        return len(ctx.captured_queries)

    few = api_count()
    for i in range(5):
        practise(learner, kv_lesson, f"kv{i}")
    assert api_count() == few


def test_item_analysis_does_not_grow_with_attempts(client, instructor, course):
    from django.core.cache import cache

    from assess.services.attempts import attempt_finish

    exam = QuizFactory(mode="exam", course=course, slots=[["weights-memory"], ["gb-gib"]])
    client.force_login(instructor)

    def sit(n: int) -> None:
        for _ in range(n):
            learner = UserFactory()
            EnrolmentFactory(user=learner, course=course)
            attempt, _ = attempt_start(quiz=exam, learner=learner)
            q = attempt.questions.first()
            response_submit(attempt=attempt, question=q, part=q.answers[0]["name"], text="1",
                            idempotency_key=f"{learner.pk}")  # fmt: skip
            attempt_finish(attempt=attempt)

    def computed() -> int:
        cache.clear()  # computed afresh, not the kept one
        return count(client, f"/teach/quizzes/{exam.pk}/items/")

    sit(1)
    few = computed()
    sit(4)
    assert computed() == few
    assert count(client, f"/teach/quizzes/{exam.pk}/items/") < few  # kept: no analysis read
