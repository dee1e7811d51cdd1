"""The instructor's progress table: per enrolled learner, per lesson, how many of the
lesson's skills they have mastered and their weakest skill's estimate.

Readable at 1280 px with no column hidden in a scroller: the lessons are split into
tables of at most MAX_COLUMNS, module by module (a long module in even parts), each
column headed by the lesson's name, shortened at a word (the full name in the heading's
abbr title). The CSV names the learners and the lessons in words.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.core.paginator import Page, Paginator

from api_common.collector import collector_paused
from assess import selectors
from assess.mastery import bkt
from assess.selectors import learner_rows
from assess.selectors.gradebook import PAGE_SIZE
from curricula import selectors as curricula_selectors
from curricula.models import Course, Lesson
from frontend.queries.common import lesson_skills

CSV_CHUNK = 500  # learners read at a time while the CSV streams
CSV_FIRST_CHUNK = PAGE_SIZE  # the first read is a page's worth: the download starts at once
MAX_COLUMNS = 7  # lessons per table: about 135 px a column in the page's 1104 px at 1280
SHORT_TITLE = 40  # characters of a heading before it is shortened (about three lines)
# Words a shortened heading does not end on: "Power, Cooling & the…" says less than
# "Power, Cooling…".
_DANGLING = {"a", "an", "the", "and", "&", "of", "for", "to", "with", "on", "in", "at", "vs"}


def short_title(title: str, limit: int = SHORT_TITLE) -> str:
    """The title if it fits in `limit` characters, else its first words that do (not
    ending on a dangling word or punctuation) and an ellipsis."""
    if len(title) <= limit:
        return title
    kept = title[: limit - 1]
    words = kept.split()
    if title[limit - 1] != " " and not kept.endswith(" "):
        words = words[:-1]  # the last word was cut
    while words and (words[-1].lower().strip(",:;") in _DANGLING or not words[-1].strip(",:;")):
        words = words[:-1]
    text = " ".join(words).rstrip(",:;") if words else title[: limit - 1]
    return text + "…"


@dataclass(frozen=True)
class LessonColumn:
    lesson: Lesson
    heading: str  # the title, shortened when long

    @property
    def shortened(self) -> bool:
        return self.heading != self.lesson.title


@dataclass(frozen=True)
class Learner:
    username: str
    name: str  # full name, may be empty
    email: str


@dataclass(frozen=True)
class ProgressSection:
    """One table: a module's lessons (or a part of a long module's)."""

    caption: str
    columns: list[LessonColumn]
    rows: list[tuple[Learner, list[selectors.LessonMastery | None]]]


@dataclass(frozen=True)
class ProgressTable:
    course: Course
    lessons: list[Lesson]
    # each learner, then per lesson its mastery (None: not started, no evidence yet)
    rows: list[tuple[Learner, list[selectors.LessonMastery | None]]]
    sections: list[ProgressSection]
    page: Page | None = None  # the page of learners shown


def _course_for_instructor(*, user, slug: str) -> Course:
    course = curricula_selectors.course_get(slug=slug)
    if not (user.is_staff or selectors.user_is_instructor(user=user, course_id=course.pk)):
        raise Course.DoesNotExist
    return course


def _sections(course: Course, lessons: list[Lesson], rows) -> list[ProgressSection]:
    index = {lesson.pk: i for i, lesson in enumerate(lessons)}
    sections = []
    for module in course.modules.all():
        mine = [index[x.pk] for x in module.lessons.all() if x.pk in index]
        parts = math.ceil(len(mine) / MAX_COLUMNS)
        size = math.ceil(len(mine) / parts) if parts else 0
        for p in range(parts):
            chunk = mine[p * size : (p + 1) * size]
            caption = module.title
            if parts > 1:
                caption += f", lessons {p * size + 1} to {p * size + len(chunk)} of {len(mine)}"
            sections.append(
                ProgressSection(
                    caption=caption,
                    columns=[
                        LessonColumn(lessons[i], short_title(lessons[i].title)) for i in chunk
                    ],
                    rows=[(who, [m[i] for i in chunk]) for who, m in rows],
                )
            )
    if not sections:  # no lesson tests a skill yet: the learners are still listed
        sections.append(
            ProgressSection("No lesson tests a skill yet", [], [(who, []) for who, _ in rows])
        )
    return sections


def _layout(*, user, slug: str):
    """The gate (Course.DoesNotExist for anyone who does not teach it), the course's
    lessons that test a skill, what each learner's mastery of them needs (lesson_shapes,
    derived once for the whole table) and their skills."""
    course = _course_for_instructor(user=user, slug=slug)
    lessons = [
        lesson for m in course.modules.all() for lesson in m.lessons.all() if lesson_skills(lesson)
    ]
    shapes = selectors.lesson_shapes(lessons)
    return course, lessons, shapes, {s for shape in shapes for s in shape.skills}


def _learners(*, user, course: Course):
    """The enrolled learners the user may see, by username: learner_rows.PERSON rows (id,
    username, first name, last name, email), not yet run."""
    enrolled = selectors.learners_of_course(user=user, course_id=course.pk)
    return (
        get_user_model()
        .objects.filter(pk__in=enrolled)
        .order_by("username", "id")
        .values_list(*learner_rows.PERSON)
    )


def _rows_of(people, *, shapes: list[selectors.LessonShape], skills: set[str]):
    """Each of these learners (in their order), then per lesson its mastery (None where
    the learner has not started it and no other lesson carried a skill in): two
    queries, whatever the number of learners."""
    who = {pk: Learner(username, f"{first} {last}".strip(), email)
           for pk, username, first, last, email in people}  # fmt: skip
    per_learner: dict[int, dict[str, selectors.SkillRow]] = {pk: {} for pk in who}
    for pk, skill, p, n in learner_rows.estimate_rows(list(who), sorted(skills)):
        per_learner[pk][skill] = selectors.SkillRow(skill, p, bkt.is_mastered(p), n)
    answered = selectors.answers_by_template(learner_ids=who)
    table = []
    for pk, learner in who.items():
        masteries = selectors.masteries_of(shapes, per_learner[pk], answered.get(pk, {}))
        table.append((learner, [m if m and (m.started or m.carried) else None for m in masteries]))
    return table


def course_progress(*, user, slug: str, page: int | str) -> ProgressTable:
    """Per enrolled learner, per lesson mastery on a course the user instructs (404
    otherwise). Only learners enrolled in the course are shown (selectors.
    learners_of_course): someone who answered the same skills elsewhere is not this
    course's learner, and an instructor scoped to an LMS course sees only its
    members. Enrolled learners with no answer yet are listed, not started. One `page`
    (a number, or whatever a pager link carries) of PAGE_SIZE learners by username,
    after a count: a course of 5,743 learners built whole took 3.7 s (issue 43); the
    CSV (progress_csv) has every learner."""
    course, lessons, shapes, skills = _layout(user=user, slug=slug)
    shown = Paginator(_learners(user=user, course=course), PAGE_SIZE).get_page(page)
    table = _rows_of(shown.object_list, shapes=shapes, skills=skills)
    return ProgressTable(
        course=course,
        lessons=lessons,
        rows=table,
        sections=_sections(course, lessons, table),
        page=shown,
    )


def csv_chunks(count: int) -> Iterator[tuple[int, int]]:
    """(start, end) of each read of `count` learners: a page's worth first (the
    browser's download begins after the time of a page), then CSV_CHUNK at a time (three
    statements a chunk: the learners' names, the templates they answered, their skill
    estimates)."""
    at = 0
    while at < count:
        end = min(count, at + (CSV_FIRST_CHUNK if at == 0 else CSV_CHUNK))
        yield at, end
        at = end


def progress_csv(*, user, slug: str) -> tuple[Course, Iterator[Sequence[str]]]:
    """The gate now (Course.DoesNotExist before a byte is sent), then the CSV's rows
    lazily, a page of learners and then CSV_CHUNK at a time (csv_chunks): the worker's
    memory stays flat however large the course (the whole table of 5,744 rows took it
    from 117 to 251 MB). Only the learners' ids are held for the whole download, their
    names and emails read a chunk at a time: held whole, 20,000 learners' five strings
    were 7-8 MB of a worker's peak. A lesson counts as started from the templates each
    learner answered (assess.models.started), and its two figures come from a chunk's
    estimates at once (selectors.lesson_figures): counting each learner's answers and
    building a lesson's mastery a cell took 1.9 s of Python and SQL for 5,743 learners."""
    course, lessons, shapes, skills = _layout(user=user, slug=slug)
    ids = list(_learners(user=user, course=course).values_list("pk", flat=True))
    skill_list = sorted(skills)

    def rows() -> Iterator[Sequence[str]]:
        yield _csv_header(lessons)
        for at, end in csv_chunks(len(ids)):
            with collector_paused():  # a chunk's rows are acyclic (api_common.collector)
                chunk = _chunk_rows(ids[at:end], shapes, skill_list)
            yield from chunk

    return course, rows()


def _chunk_rows(chunk: list[int], shapes, skills: list[str]) -> list[tuple[str, ...]]:
    """The CSV rows of these learners: three statements (their names, skill estimates
    and answered templates), their figures at once, two columns a lesson."""
    people = learner_rows.people_of(chunk)
    figures = selectors.lesson_figures(
        shapes,
        [pk for pk, *_ in people],
        learner_rows.estimate_rows(chunk, skills),
        learner_rows.started_rows(chunk),
    )
    return list(
        zip(
            [f"{first} {last}".strip() for _, _, first, last, _ in people],
            [username for _, username, *_ in people],
            [email for *_, email in people],
            *(column for lesson in figures for column in _columns(lesson)),
            strict=True,
        )
    )


def _csv_header(lessons: list[Lesson]) -> list[str]:
    header = ["name", "username", "email"]
    for lesson in lessons:
        named = f"{lesson.title} ({lesson.slug})"
        header += [f"{named}: skills mastered", f"{named}: weakest estimate"]
    return header


def _columns(lesson: selectors.LessonFigures) -> tuple[list[str], list[str]]:
    """A lesson's two columns: the share of its skills mastered and its weakest skill's
    estimate; empty where the learner has not started the lesson (or that skill, whose
    figure would only be the prior). The caller makes the cells safe for spreadsheets."""
    started = lesson.started.tolist()
    share = [f"{x:.3f}" if s else "" for x, s in zip(lesson.share.tolist(), started, strict=True)]
    seen = (lesson.started & lesson.weakest_seen).tolist()
    weakest = [f"{x:.3f}" if s else "" for x, s in zip(lesson.weakest.tolist(), seen, strict=True)]
    return share, weakest
