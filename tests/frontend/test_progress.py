"""The instructor's progress page reads in words: lesson names as column headings
(shortened at a word, the full name in the abbr title), no numbered columns and no
legend, tables of at most MAX_COLUMNS lessons module by module; the CSV names learners
and lessons. (At 1280 px no table scrolls: tests/frontend/browser/test_quiz_lifecycle.)"""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.utils.html import escape

from curricula.models import Course
from curricula.services import curricula_load
from frontend.queries.common import lesson_skills
from frontend.queries.progress import MAX_COLUMNS, SHORT_TITLE, short_title
from tests.factories import CourseRoleFactory, EnrolmentFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("title", "short"),
    [
        ("GPU Memory Math", "GPU Memory Math"),
        ("Power, Cooling & the AI Data Center", "Power, Cooling & the AI Data Center"),
        ("Following a Request Through Prefill and Decode", "Following a Request Through Prefill…"),
        ("Cancellation, Retries and Stream Integrity", "Cancellation, Retries and Stream…"),
        (
            "The Layers and the Build-or-Buy Ladder of Doom",
            "The Layers and the Build-or-Buy Ladder…",
        ),
        # one word longer than the limit is cut where the limit falls
        (
            "Supercalifragilisticexpialidocious-and-many-more",
            "Supercalifragilisticexpialidocious-and-…",
        ),
    ],
)
def test_long_titles_are_shortened_at_a_word(title, short):
    assert short_title(title) == short
    assert len(short_title(title)) <= SHORT_TITLE


@pytest.fixture
def real_course(db):
    curricula_load()
    course = Course.objects.get(slug="learn-ai-infrastructure")
    teacher = CourseRoleFactory(user__username="teacher", course=course).user
    ada = UserFactory(username="ada", first_name="Ada", last_name="Lovelace")
    EnrolmentFactory(user=ada, course=course)
    EnrolmentFactory(user=UserFactory(username="=cmd"), course=course)
    return course, teacher


def test_columns_are_headed_by_lesson_names_in_tables_that_fit(client, real_course):
    course, teacher = real_course
    client.force_login(teacher)
    html = client.get(f"/teach/courses/{course.slug}/progress/").content.decode()
    lessons = [
        lesson for m in course.modules.all() for lesson in m.lessons.all() if lesson_skills(lesson)
    ]
    heads = re.findall(r'<th scope="col">(.*?)</th>', html)
    assert len(heads) == len(lessons)  # each lesson once, in words
    for lesson, head in zip(lessons, heads, strict=True):
        full = escape(lesson.title)
        if len(lesson.title) <= SHORT_TITLE:
            assert head == full
        else:
            shown = re.fullmatch(rf'<abbr title="{re.escape(full)}">(.+?…)</abbr>', head)
            assert shown and escape(short_title(lesson.title)) == shown.group(1)
    assert not re.search(r"<abbr[^>]*>\d+</abbr>", html) and "<ol>" not in html  # no legend
    tables = html.split('<table class="progress">')[1:]
    assert len(tables) >= 3 and all(t.count('<th scope="col">') <= MAX_COLUMNS for t in tables)
    assert "Intermediate, lessons 1 to 7 of 13" in html
    assert 'ada <span class="meta">Ada Lovelace</span>' in html


def test_the_csv_names_learners_and_lessons_and_is_safe_for_spreadsheets(client, real_course):
    course, teacher = real_course
    client.force_login(teacher)
    body = client.get(f"/teach/courses/{course.slug}/progress.csv").getvalue().decode()
    header, *rows = list(csv.reader(io.StringIO(body)))
    assert header[:3] == ["name", "username", "email"]
    assert "GPU Memory Math (gpu-memory-math): skills mastered" in header
    assert rows[1][:3] == ["Ada Lovelace", "ada", "ada@example.com"]
    assert rows[0][1] == "'=cmd"  # a cell a spreadsheet would run is quoted


def test_a_course_with_no_lesson_yet_still_lists_its_learners(client, db):
    role = CourseRoleFactory(user__username="teacher", course__slug="empty")
    EnrolmentFactory(user=UserFactory(username="early"), course=role.course)
    client.force_login(role.user)
    html = client.get("/teach/courses/empty/progress/").content.decode()
    assert '<th scope="row">early</th>' in html and "No lesson tests a skill yet" in html
