"""The progress page and its CSV at a course's scale (issue 43): the page shows
PAGE_SIZE learners at a time with the queries of a small class; the CSV streams every
learner, reading CSV_CHUNK learners at a time, so its queries grow with the chunks and
its memory with none of it."""

from __future__ import annotations

import csv
import gc
import io
import tracemalloc

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from assess.models import SkillMastery
from assess.selectors.gradebook import PAGE_SIZE
from curricula.models import Course
from curricula.services import curricula_load
from frontend.queries import progress
from frontend.queries.common import lesson_skills
from frontend.views import csv_download
from tests.factories import CourseRoleFactory, EnrolmentFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def course(db):
    curricula_load()
    course = Course.objects.get(slug="learn-ai-infrastructure")
    course.teacher = CourseRoleFactory(user__username="teacher", course=course).user
    skills = sorted(
        {s for m in course.modules.all() for x in m.lessons.all() for s in lesson_skills(x)}
    )
    course.skills = skills
    return course


def enrol(course, count: int, start: int = 0) -> None:
    """Learners l0000.. enrolled, each with a started skill (a cell to show)."""
    for i in range(start, start + count):
        user = UserFactory(username=f"l{i:04d}")
        EnrolmentFactory(user=user, course=course)
        SkillMastery.objects.create(learner=user, skill=course.skills[i % len(course.skills)],
                                    p_mastery=0.97, responses=4)  # fmt: skip


def page_queries(client, course, query: str = "") -> tuple[int, str]:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(f"/teach/courses/{course.slug}/progress/{query}")
    assert response.status_code == 200
    return len(ctx.captured_queries), response.content.decode()


def test_the_page_shows_a_page_of_learners_with_the_queries_of_a_small_class(client, course):
    client.force_login(course.teacher)
    enrol(course, 3)
    small, html = page_queries(client, course)
    assert "Pages of learners" not in html  # one page: no pager
    enrol(course, PAGE_SIZE + 2, start=3)
    large, html = page_queries(client, course)
    assert large == small  # nothing per learner (the pager's count runs for one page too)
    assert '<th scope="row">l0049</th>' in html and '<th scope="row">l0050</th>' not in html
    assert f"Page 1 of 2 ({PAGE_SIZE + 5} learners)" in html
    _, second = page_queries(client, course, "?page=2")
    assert '<th scope="row">l0050</th>' in second and '<th scope="row">l0049</th>' not in second
    assert '<th scope="row">l0054</th>' in second
    _, wrong = page_queries(client, course, "?page=x")  # a mangled link: the first page
    assert "Page 1 of 2" in wrong


def test_the_csv_streams_every_learner_a_chunk_at_a_time(client, course, monkeypatch):
    monkeypatch.setattr(progress, "CSV_FIRST_CHUNK", 2)
    monkeypatch.setattr(progress, "CSV_CHUNK", 4)
    client.force_login(course.teacher)
    enrol(course, 6)

    def download() -> tuple[int, list[list[str]]]:
        with CaptureQueriesContext(connection) as ctx:
            response = client.get(f"/teach/courses/{course.slug}/progress.csv")
            body = response.getvalue().decode()  # the queries run as it streams
        assert response.streaming and response.status_code == 200
        return len(ctx.captured_queries), list(csv.reader(io.StringIO(body)))

    two_chunks, rows = download()  # 2 learners, then 4
    assert [r[1] for r in rows[1:]] == [f"l{i:04d}" for i in range(6)]  # each once, in order
    enrol(course, 4, start=6)
    three_chunks, rows = download()  # 2, 4, 4
    assert [r[1] for r in rows[1:]] == [f"l{i:04d}" for i in range(10)]
    assert three_chunks == two_chunks + 3  # a chunk's three reads, whatever its learners


def test_the_csv_holds_a_chunk_of_learners_not_the_course(client, course, monkeypatch):
    """The memory a download takes (tracemalloc's peak while it streams, each write
    dropped as it is sent) grows by less than 150 bytes a learner from 100 learners to
    500, read 50 at a time and written 10 lines at a time: an id a learner is held for
    the whole download, their names and emails only for their chunk (held whole, the
    peak grew by about 240 bytes a learner here, now by about 45). Both downloads read
    more than one chunk: the peak comes as a chunk is read while the one before is still
    held, which a download of one chunk never does."""
    monkeypatch.setattr(progress, "CSV_FIRST_CHUNK", 50)
    monkeypatch.setattr(progress, "CSV_CHUNK", 50)
    monkeypatch.setattr(csv_download, "FIRST_LINES", 10)  # the lines joined into a write
    monkeypatch.setattr(csv_download, "LINES_PER_CHUNK", 10)
    client.force_login(course.teacher)

    def peak() -> int:
        """What the download holds, not when the collector runs: its unreachable cycles
        (the ORM's queries) are collected after each write, the process's older objects
        frozen so that each collection is cheap. Left to the collector's timing, they
        moved the growth between 78 and 152 bytes a learner from one run to the next."""
        gc.collect()
        gc.freeze()
        tracemalloc.start()
        try:
            response = client.get(f"/teach/courses/{course.slug}/progress.csv")
            rows = -1  # the header
            for chunk in response.streaming_content:
                rows += chunk.count(b"\n")
                gc.collect()
            _, top = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
            gc.unfreeze()
        assert rows == learners
        return top

    learners = 100
    enrol(course, learners)
    peak()  # the first download fills what every later one reuses (caches, templates)
    small = peak()
    enrol(course, 400, start=learners)
    learners += 400
    large = peak()
    assert large - small < 400 * 150, (small, large)


def test_the_csv_reads_a_page_of_learners_first_then_larger_chunks():
    assert list(progress.csv_chunks(0)) == []
    assert list(progress.csv_chunks(30)) == [(0, 30)]
    first, chunk = progress.CSV_FIRST_CHUNK, progress.CSV_CHUNK
    assert list(progress.csv_chunks(first + chunk + 1)) == [
        (0, first),
        (first, first + chunk),
        (first + chunk, first + chunk + 1),
    ]


def test_an_outsider_gets_404_before_anything_streams(client, course):
    client.force_login(UserFactory(username="outsider"))
    response = client.get(f"/teach/courses/{course.slug}/progress.csv")
    assert response.status_code == 404 and not response.streaming
