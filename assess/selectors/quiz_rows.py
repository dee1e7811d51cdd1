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
"""

from __future__ import annotations

import functools

from django.db import connection

from api_common.rows import Columns, fetch
from assess.models import CourseRole, Enrolment, Quiz
from assess.selectors.writers import IN_ENROLLED, IN_INSTRUCTED
from curricula.models import Course

_RULE = f"(%s OR (z.status = %s AND (z.course_id IS NULL OR {IN_ENROLLED})) OR {IN_INSTRUCTED})"


@functools.cache
def _statement() -> tuple[str, Columns, Columns]:
    quote = connection.ops.quote_name
    quiz, course = Columns(Quiz, "z"), Columns(Course, "c")
    rule = _RULE.format(
        enrolments=quote(Enrolment._meta.db_table), roles=quote(CourseRole._meta.db_table)
    )
    # identifiers from the models' metadata; every value is a bound parameter
    sql = (
        f"SELECT {quiz.sql}, {course.sql} FROM {quote(Quiz._meta.db_table)} z "  # noqa: S608
        f"LEFT JOIN {quote(Course._meta.db_table)} c ON c.id = z.course_id "
        f"WHERE z.id = %s AND z.adaptive = %s AND {rule}"
    )
    return sql, quiz, course


def quiz_get_reachable(*, user, pk: int) -> Quiz:
    """The quiz with its course (None for a quiz with none) if the rule above lets the
    user see it; raises Quiz.DoesNotExist otherwise. One query."""
    sql, quiz_cols, course_cols = _statement()
    params = [
        pk,
        False,
        bool(user.is_staff),
        Quiz.Status.PUBLISHED,
        user.pk,
        user.pk,
        CourseRole.Role.INSTRUCTOR,
    ]
    rows = fetch(sql, params)
    if not rows:
        raise Quiz.DoesNotExist("No quiz you may see has that id.")
    quiz = quiz_cols.load(rows[0])
    quiz.course = course_cols.load(rows[0], len(quiz_cols)) if quiz.course_id else None
    return quiz
