"""An attempt's active questions, their responses and their reveals, as stored.

Every read of an attempt (the API's review, the finish's answer, the pages) starts
from these three lists, so they are read with one plain statement (api_common.rows
explains why) rather than three querysets: the same instances, a fraction of the cost.
A question's tries (question_tries) are read through the ORM: only SQLite's exam answer
asks for them (PostgreSQL reads them in the answer's own statement:
services.held_answers), and SQLite serves no real traffic.
(tests/assess/test_sql_reads.py holds each statement to its queryset.)
"""

from __future__ import annotations

import functools

from django.db import connection

from api_common.rows import Columns, fetch
from assess.models import Question, Response, Reveal, Slot

# What an answer decides on and its body lists of each earlier try (the policy reads the
# part, correctness and score; ResponseResultSerializer the rest). Not its parsed value,
# unit, key, time spent, evidence mark or attempt: at the tries ceiling, loading every
# column of 29 tries took nearly twice as long (the parsed value's JSON decoded each).
TRY_FIELDS = (
    "question_id",
    "part",
    "raw",
    "created_at",
    "valid",
    "correct",
    "score",
    "feedback",
    "misconception",
)


@functools.cache
def _statements() -> dict:
    quote = connection.ops.quote_name
    q, s, r, v = (
        Columns(Question, "q"),
        Columns(Slot, "s"),
        Columns(Response, "r"),
        Columns(Reveal, "v"),
    )
    t = {m: quote(m._meta.db_table) for m in (Question, Slot, Response, Reveal)}
    # identifiers from the models' metadata; every value is a bound parameter
    return {
        "cols": (q, s, r, v),
        # One statement for the three lists: each row is a question with its slot, a
        # response or a reveal (UNION ALL, the other tables' columns NULL), told apart by
        # its first column; each list is put in order in Python.
        "active": (
            f"SELECT 0, {q.sql}, {s.sql}, {_nulls(r, v)} FROM {t[Question]} q "  # noqa: S608
            f"JOIN {t[Slot]} s ON s.id = q.slot_id WHERE q.attempt_id = %s AND q.active = %s "
            f"UNION ALL SELECT 1, {_nulls(q, s)}, {r.sql}, {_nulls(v)} FROM {t[Response]} r "
            f"JOIN {t[Question]} q ON q.id = r.question_id "
            "WHERE r.attempt_id = %s AND q.active = %s "
            f"UNION ALL SELECT 2, {_nulls(q, s, r)}, {v.sql} FROM {t[Reveal]} v "
            f"JOIN {t[Question]} q ON q.id = v.question_id "
            "WHERE q.attempt_id = %s AND q.active = %s"
        ),
        "question's responses": (
            f"SELECT {r.sql} FROM {t[Response]} r "  # noqa: S608
            "WHERE r.question_id = %s ORDER BY r.created_at, r.id"
        ),
    }


def _nulls(*tables: Columns) -> str:
    """NULL in each of these columns' places, typed: PostgreSQL gives a column that two
    branches of a UNION leave NULL the type text, which the third's values then break."""
    return ", ".join(f"CAST(NULL AS {f.db_type(connection)})" for t in tables for f in t.fields)


def active_rows(attempt_id: int) -> tuple[list[Question], list[Response], list[Reveal]]:
    """The attempt's active questions (each with its slot) in order, their responses in
    stored order, and their reveals: one statement however many questions there are
    (three before: two round trips more on every read of an attempt)."""
    st = _statements()
    q, s, r, v = st["cols"]
    at_s, at_r = 1 + len(q), 1 + len(q) + len(s)
    at_v = at_r + len(r)
    questions, responses, reveals = [], [], []
    for row in fetch(st["active"], [attempt_id, True] * 3):
        if row[0] == 0:
            question = q.load(row, 1)
            question.slot = s.load(row, at_s)
            questions.append(question)
        elif row[0] == 1:
            responses.append(r.load(row, at_r))
        else:
            reveals.append(v.load(row, at_v))
    questions.sort(key=lambda x: (x.order, x.pk))
    responses.sort(key=lambda x: (x.created_at, x.pk))
    reveals.sort(key=lambda x: (x.created_at, x.pk))
    return questions, responses, reveals


def question_responses(question_id: int) -> list[Response]:
    """Every response of the question, valid or not, in stored order: what an autosave
    compares the posted parts with (frontend.answers), nine times in a web-page exam."""
    st = _statements()
    return [st["cols"][2].load(row) for row in fetch(st["question's responses"], [question_id])]


def question_tries(question_id: int) -> list[Response]:
    """The question's valid responses in stored order, as committed now, with TRY_FIELDS
    loaded."""
    tries = Response.objects.filter(question_id=question_id, valid=True).only(*TRY_FIELDS)
    return list(tries.order_by("created_at", "id"))
