"""A quiz the user may see, with its course: one SELECT written as SQL.

Every start of an attempt (and every quiz page and quiz read in the API) asks this gate
first, and through the ORM it cost more to build than everything else a start reads
(the rule's nested subqueries, compiled afresh per request; api_common.rows explains the
pattern). The rule is access._reachable's, written out:

    a non-adaptive quiz that is published and has no course or a course the user is
    enrolled in, or any quiz (drafts included) of a course the user instructs; staff
    see every non-adaptive quiz.

quiz_list_for_user keeps the ORM form for lists; tests/assess/test_quiz_gate_sql.py holds
the two to the same answer for every role and every state of a quiz.

A start reads the same gate with what attempt_start decides on about the learner
(quiz_get_for_start): whether their email is confirmed and their extension on the quiz,
two reads of their own before (the extension's through the ORM, about 1 ms of CPU:
bench/README.md).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from django.db import connection

from accounts.selectors import unconfirmed_sql
from api_common.rows import Columns, fetch
from assess.models import CourseRole, Enrolment, Extension, Quiz
from assess.selectors.writers import IN_ENROLLED, IN_INSTRUCTED
from curricula.models import Course

_RULE = f"(%s OR (z.status = %s AND (z.course_id IS NULL OR {IN_ENROLLED})) OR {IN_INSTRUCTED})"


@dataclass(frozen=True)
class StartFacts:
    """What a start decides on about its learner, read with the quiz's gate: whether
    their email is confirmed (an unconfirmed sign-up starts no exam) and their
    extension on the quiz (None where it would change nothing: Quiz.extension_applies,
    as selectors.access.extension_of reads it)."""

    learner_id: int
    confirmed: bool
    extension: Extension | None


@functools.cache
def _statement(for_start: bool = False) -> tuple[str, Columns, Columns, Columns | None]:
    quote = connection.ops.quote_name
    quiz, course = Columns(Quiz, "z"), Columns(Course, "c")
    rule = _RULE.format(
        enrolments=quote(Enrolment._meta.db_table), roles=quote(CourseRole._meta.db_table)
    )
    extension = Columns(Extension, "e") if for_start else None
    # A start's facts: the learner's sign-up state (its %s first: the SELECT list's
    # parameters come before the join's and the WHERE's) and extension.
    facts, join = "", ""
    if extension is not None:
        facts = f", {unconfirmed_sql()}, {extension.sql}"
        join = (
            f"LEFT JOIN {quote(Extension._meta.db_table)} e "
            "ON e.quiz_id = z.id AND e.learner_id = %s "
        )
    # identifiers from the models' metadata; every value is a bound parameter
    sql = (
        f"SELECT {quiz.sql}, {course.sql}{facts} FROM {quote(Quiz._meta.db_table)} z "  # noqa: S608
        f"LEFT JOIN {quote(Course._meta.db_table)} c ON c.id = z.course_id {join}"
        f"WHERE z.id = %s AND z.adaptive = %s AND {rule}"
    )
    return sql, quiz, course, extension


def _gate_params(user, pk: int) -> list:
    return [
        pk,
        False,
        bool(user.is_staff),
        Quiz.Status.PUBLISHED,
        user.pk,
        user.pk,
        CourseRole.Role.INSTRUCTOR,
    ]


def _quiz_of(row, quiz_cols: Columns, course_cols: Columns) -> Quiz:
    quiz = quiz_cols.load(row)
    quiz.course = course_cols.load(row, len(quiz_cols)) if quiz.course_id else None
    return quiz


def quiz_get_reachable(*, user, pk: int) -> Quiz:
    """The quiz with its course (None for a quiz with none) if the rule above lets the
    user see it; raises Quiz.DoesNotExist otherwise. One query."""
    sql, quiz_cols, course_cols, _ = _statement()
    rows = fetch(sql, _gate_params(user, pk))
    if not rows:
        raise Quiz.DoesNotExist("No quiz you may see has that id.")
    return _quiz_of(rows[0], quiz_cols, course_cols)


def quiz_get_for_start(*, user, pk: int) -> tuple[Quiz, StartFacts]:
    """(quiz, facts) for the user starting the quiz: quiz_get_reachable's gate and
    quiz, with the StartFacts attempt_start decides on, in the gate's one statement.
    Raises Quiz.DoesNotExist as the gate does."""
    sql, quiz_cols, course_cols, extension_cols = _statement(for_start=True)
    rows = fetch(sql, [user.pk, user.pk, *_gate_params(user, pk)])
    if not rows:
        raise Quiz.DoesNotExist("No quiz you may see has that id.")
    row = rows[0]
    quiz = _quiz_of(row, quiz_cols, course_cols)
    at = len(quiz_cols) + len(course_cols)
    extension = None
    if row[at + 1] is not None and quiz.extension_applies:
        extension = extension_cols.load(row, at + 1)
    return quiz, StartFacts(learner_id=user.pk, confirmed=not row[at], extension=extension)
