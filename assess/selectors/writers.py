"""The write gate: an attempt, or a question of it, read for its own learner to change;
and a learner's own attempt, read.

Every answer, reveal, draft, new variant and finish starts here, so these reads are the
service's hottest, and they are written as SQL (api_common.rows explains why): one SELECT
joins the question (if any), the attempt, its quiz and its slot, with the rule below,
and gives model instances the ORM would have given. The rule is written once, here, in
`_WRITER_RULE`; attempt_get_for_user(write=True) and question_get_for_writer both apply
it:

    the attempt is the user's own, and the user may still take its quiz: staff, a quiz
    with no course, a course they are enrolled in, or a course they instruct.

A learner removed from a course keeps reading their attempt (the read rule is in
access.py, which asks `attempt_get_own` first: a learner reading their own attempt is
the common case of its rule) but can neither answer nor finish it. Anyone else gets
DoesNotExist (404), whether the attempt or the question is not theirs.
"""

from __future__ import annotations

import functools

from django.db import connection

from api_common.rows import Columns, fetch
from assess.models import Attempt, CourseRole, Enrolment, Question, Quiz, Slot

# The quiz's (alias z) course is one the user is enrolled in (params: user id) / one
# they instruct (params: user id, the instructor role). quiz_rows uses them too.
IN_ENROLLED = "z.course_id IN (SELECT e.course_id FROM {enrolments} e WHERE e.user_id = %s)"
IN_INSTRUCTED = (
    "z.course_id IN (SELECT r.course_id FROM {roles} r WHERE r.user_id = %s AND r.role = %s)"
)
_WRITER_RULE = (
    f"a.learner_id = %s AND (%s OR z.course_id IS NULL OR {IN_ENROLLED} OR {IN_INSTRUCTED})"
)


def _rule_params(user) -> list:
    return [user.pk, bool(user.is_staff), user.pk, user.pk, CourseRole.Role.INSTRUCTOR]


@functools.cache
def _statements() -> dict:
    quote = connection.ops.quote_name
    cols = {
        "q": Columns(Question, "q"),
        "a": Columns(Attempt, "a"),
        "z": Columns(Quiz, "z"),
        "s": Columns(Slot, "s"),
    }
    rule = _WRITER_RULE.format(
        enrolments=quote(Enrolment._meta.db_table), roles=quote(CourseRole._meta.db_table)
    )
    attempts, quizzes = quote(Attempt._meta.db_table), quote(Quiz._meta.db_table)
    questions, slots = quote(Question._meta.db_table), quote(Slot._meta.db_table)
    # identifiers from the models' metadata; every value is a bound parameter
    attempt_sql = (
        f"SELECT {cols['a'].sql}, {cols['z'].sql} FROM {attempts} a "  # noqa: S608
        f"JOIN {quizzes} z ON z.id = a.quiz_id WHERE a.id = %s AND {rule}"
    )
    question_sql = (
        f"SELECT {cols['q'].sql}, {cols['s'].sql}, {cols['a'].sql}, {cols['z'].sql} "  # noqa: S608
        f"FROM {questions} q JOIN {slots} s ON s.id = q.slot_id "
        f"JOIN {attempts} a ON a.id = q.attempt_id JOIN {quizzes} z ON z.id = a.quiz_id "
        f"WHERE q.id = %s AND q.attempt_id = %s AND {rule}"
    )
    own_sql = (
        f"SELECT {cols['a'].sql}, {cols['z'].sql} FROM {attempts} a "  # noqa: S608
        f"JOIN {quizzes} z ON z.id = a.quiz_id WHERE a.id = %s AND a.learner_id = %s"
    )
    return {"cols": cols, "attempt": attempt_sql, "question": question_sql, "own": own_sql}


def _attempt_from(row, start: int, user, cols) -> Attempt:
    attempt = cols["a"].load(row, start)
    attempt.quiz = cols["z"].load(row, start + len(cols["a"]))
    attempt.learner = user  # the rule says so: no need to read the user again
    return attempt


def attempt_get_for_writer(*, user, pk: int) -> Attempt:
    """The attempt with its quiz, if the user may write to it (the rule above); raises
    Attempt.DoesNotExist otherwise. One query."""
    s = _statements()
    rows = fetch(s["attempt"], [pk, *_rule_params(user)])
    if not rows:
        raise Attempt.DoesNotExist("No attempt of yours to change has that id.")
    return _attempt_from(rows[0], 0, user, s["cols"])


def attempt_get_own(*, user, pk: int) -> Attempt | None:
    """The user's own attempt with its quiz, or None (not theirs, or no such attempt:
    the caller's read rule decides what else they may see). One query."""
    s = _statements()
    rows = fetch(s["own"], [pk, user.pk])
    return _attempt_from(rows[0], 0, user, s["cols"]) if rows else None


def question_get_for_writer(*, user, attempt_pk: int, pk: int) -> Question:
    """A question of an attempt the user may write to (the rule above), with its slot,
    attempt, quiz and learner, in one query. Raises Question.DoesNotExist (404)
    whether the attempt or the question is not theirs."""
    s = _statements()
    rows = fetch(s["question"], [pk, attempt_pk, *_rule_params(user)])
    if not rows:
        raise Question.DoesNotExist("No question of yours to answer has that id.")
    cols = s["cols"]
    row = rows[0]
    question = cols["q"].load(row)
    at = len(cols["q"])
    question.slot = cols["s"].load(row, at)
    question.attempt = _attempt_from(row, at + len(cols["s"]), user, cols)
    return question
