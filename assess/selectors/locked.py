"""What an answer is decided on, read under the attempt's lock in one statement.

Writers of one attempt (answers, reveals, new variants, the finish, the expiry, an
extension's re-timing) queue on its row, so a submission decides on what is stored: the
attempt's status and deadline as they are now (the reader's copy may be older), whether
the question is still the active variant, whether any of its parts was revealed or any
hint shown, its valid tries, and the learner's mastery rows for its skills, which a
first try steps. Two statements (written as SQL: api_common.rows explains why): the lock,
which reads the attempt's own columns; then the rest, the question with its tries and
its skill rows outer-joined as one list (a try's row or a skill row each, UNION ALL:
joined to each other they came back as every (try, skill) pair, 58 rows for a part at
the tries ceiling with two skills, each try's columns loaded twice).
They cannot be one: a statement that waits for a row lock sees the locked row as the
committer left it, but every other table as it was when the statement began, before the
wait (PostgreSQL's READ COMMITTED), so the tries a racing answer just stored would be
missing.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime

from django.db import connection

from api_common.rows import (
    ANY_CONFLICT,
    Columns,
    ctes_take_writes,
    fetch,
    for_update_of,
    insert,
    insert_statement,
)
from assess.models import Attempt, Question, Quiz, Response, Reveal, SkillMastery, Slot
from assess.selectors.attempt_rows import TRY_FIELDS


@dataclass(frozen=True)
class LockedState:
    status: str
    deadline: datetime | None
    active: bool  # the question is the slot's current variant
    revealed: bool  # some part of the question was revealed: read its reveals
    hinted: bool  # a hint was shown on the question: no try of it is evidence now
    # the question's valid responses, in stored order, with attempt_rows.TRY_FIELDS
    # loaded (the rest deferred: reading one is a query of its own)
    tries: list[Response]
    skill_rows: dict[str, tuple[float, int]]  # {skill: (p_mastery, responses)} stored


@functools.cache
def _statements(n_skills: int) -> tuple[str, str, Columns, Columns]:
    quote = connection.ops.quote_name
    attempt = Columns(Attempt, "a", only=("status", "deadline"))
    tries = Columns(Response, "r", only=TRY_FIELDS)
    skills = "m.skill IN (" + ", ".join(["%s"] * n_skills) + ")" if n_skills else "1 = 0"
    t = {m: quote(m._meta.db_table) for m in (Attempt, Question, Response, Reveal, SkillMastery)}
    nulls = ", ".join(["NULL"] * len(tries))
    # identifiers from the models' metadata; every value is a bound parameter
    lock = f"SELECT {attempt.sql} FROM {t[Attempt]} a WHERE a.id = %s{for_update_of('a')}"  # noqa: S608
    read = (
        "SELECT q.active, q.hinted_at IS NOT NULL, "  # noqa: S608
        f"EXISTS (SELECT 1 FROM {t[Reveal]} v WHERE v.question_id = q.id), x.* "
        f"FROM {t[Question]} q LEFT JOIN ("
        f"SELECT {tries.sql}, NULL, NULL, NULL FROM {t[Response]} r "
        "WHERE r.question_id = %s AND r.valid = %s "
        f"UNION ALL SELECT {nulls}, m.skill, m.p_mastery, m.responses "
        f"FROM {t[SkillMastery]} m WHERE m.learner_id = %s AND {skills}"
        ") x ON TRUE WHERE q.id = %s AND q.attempt_id = %s"
    )
    return lock, read, attempt, tries


def locked_state(*, attempt: Attempt, question: Question, skills) -> LockedState:
    """Inside the caller's transaction: lock the attempt's row and read what an answer
    to `question` is decided on (see the module docstring). Raises Attempt.DoesNotExist
    if the attempt or the question is gone."""
    lock, read, attempt_cols, try_cols = _statements(len(skills))
    locked = fetch(lock, [attempt.pk])
    rows = (
        fetch(read, [question.pk, True, attempt.learner_id, *skills, question.pk, attempt.pk])
        if locked
        else []
    )
    if not rows:
        raise Attempt.DoesNotExist("The attempt or its question is gone.")
    first = rows[0]
    head = attempt_cols.load(locked[0])
    try_at = 3
    pk_at = try_at + try_cols.attnames.index(Response._meta.pk.attname)
    tries: list[Response] = []
    skill_rows: dict[str, tuple[float, int]] = {}
    for row in rows:
        if row[pk_at] is not None:
            tries.append(try_cols.load(row, try_at))
            continue
        skill, p, count = row[try_at + len(try_cols) :]
        if skill is not None:
            skill_rows[skill] = (p, count)
    return LockedState(
        status=head.status,
        deadline=head.deadline,
        active=bool(first[0]),
        hinted=bool(first[1]),
        revealed=bool(first[2]),
        tries=sorted(tries, key=lambda r: (r.created_at, r.id)),
        skill_rows=skill_rows,
    )


@functools.cache
def _attempt_columns() -> Columns:
    return Columns(Attempt, "a")


@functools.cache
def _attempts_statement() -> tuple[str, Columns]:
    cols = _attempt_columns()
    table = connection.ops.quote_name(Attempt._meta.db_table)
    sql = (
        f"SELECT {cols.sql} FROM {table} a WHERE a.quiz_id = %s AND a.learner_id = %s "  # noqa: S608
        f"ORDER BY a.number DESC{for_update_of('a')}"
    )
    return sql, cols


def attempts_locked(*, quiz_id: int, learner_id: int) -> list[Attempt]:
    """Inside the caller's transaction: the learner's attempts on the quiz, newest
    first, each row locked (a start decides on them: resume, expire, count, cooldown).
    Rows a racing start inserts after this read are not among them: the unique
    constraints refuse its twin (api_common.rows.insert's ON CONFLICT)."""
    sql, cols = _attempts_statement()
    return [cols.load(row) for row in fetch(sql, [quiz_id, learner_id])]


def attempt_locked(*, pk: int) -> Attempt:
    """Inside the caller's transaction: the attempt as stored, its row locked (a finish
    decides on its status). Raises Attempt.DoesNotExist if it is gone."""
    cols = _attempt_columns()
    table = connection.ops.quote_name(Attempt._meta.db_table)
    rows = fetch(f"SELECT {cols.sql} FROM {table} a WHERE a.id = %s{for_update_of('a')}", [pk])  # noqa: S608
    if not rows:
        raise Attempt.DoesNotExist("The attempt is gone.")
    return cols.load(rows[0])


def attempt_insert_sharing_quiz(values: dict) -> int | None:
    """Inside the caller's transaction: INSERT a new attempt's row (values by attname),
    unless it breaks a unique constraint (None: a racing start won), and hold a
    key-share lock on its quiz row to the commit, so no edit, unpublish or close (which
    lock the quiz FOR UPDATE, then count its attempts: services.quizzes.guards) commits
    in between, and one that committed first is what the caller reads next, in a
    statement of its own (the module docstring says why not in this one). Returns the
    new row's id.

    Taking the lock explicitly matters: the attempt's foreign key would take the same
    lock, but Django declares foreign keys DEFERRABLE INITIALLY DEFERRED on PostgreSQL,
    so that check (and its lock) happens only at the commit, after the quiz was read.
    On PostgreSQL the INSERT and the lock are one statement: whichever runs first,
    nothing else sees the row before the commit, and the edit waits for that commit
    either way. Starts of one quiz share the lock and do not wait for each other.
    SQLite: writers take the database in turn, nothing to add."""
    if not ctes_take_writes():
        return insert(Attempt, values, conflict=ANY_CONFLICT)
    quote = connection.ops.quote_name
    sql, params = insert_statement(Attempt, values, conflict=ANY_CONFLICT)
    quizzes = quote(Quiz._meta.db_table)
    pk = quote(Attempt._meta.pk.column)
    # identifiers from the models' metadata; every value is a bound parameter
    rows = fetch(
        f"WITH n AS ({sql}), k AS (SELECT z.id FROM {quizzes} z WHERE z.id = %s "  # noqa: S608
        f"FOR KEY SHARE) SELECT n.{pk} FROM n LEFT JOIN k ON TRUE",
        [*params, values["quiz_id"]],
    )
    return rows[0][0] if rows else None


@functools.cache
def _quiz_slots_statement() -> tuple[str, Columns, Columns]:
    quote = connection.ops.quote_name
    quiz, slot = Columns(Quiz, "z"), Columns(Slot, "s")
    sql = (
        f"SELECT {quiz.sql}, {slot.sql} FROM {quote(Quiz._meta.db_table)} z "  # noqa: S608
        f"LEFT JOIN {quote(Slot._meta.db_table)} s ON s.quiz_id = z.id "
        f"WHERE z.id = %s ORDER BY s.{quote('order')}"
    )
    return sql, quiz, slot


def quiz_with_slots(*, pk: int) -> tuple[Quiz, list[Slot]]:
    """(quiz, its slots in order), each slot's quiz the one quiz instance: one statement
    (the quiz row with its slots outer-joined, so a quiz with none still comes back), as
    a start reads them once its attempt row is in (attempt_insert_sharing_quiz says why then).
    Raises Quiz.DoesNotExist if the quiz is gone."""
    sql, quiz_cols, slot_cols = _quiz_slots_statement()
    rows = fetch(sql, [pk])
    if not rows:
        raise Quiz.DoesNotExist("The quiz is gone.")
    quiz = quiz_cols.load(rows[0])
    slots = []
    for row in rows:
        if row[len(quiz_cols)] is None:  # the outer join found no slot
            continue
        slot = slot_cols.load(row, len(quiz_cols))
        slot.quiz = quiz
        slots.append(slot)
    return quiz, slots
