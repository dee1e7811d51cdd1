"""An attempt's active questions, their responses and their reveals, as stored.

Every read of an attempt (the API's review, the finish's answer, the pages) starts
from these three lists, so they are read with three plain statements (api_common.rows
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
        "questions": (
            f"SELECT {q.sql}, {s.sql} FROM {t[Question]} q "  # noqa: S608
            f"JOIN {t[Slot]} s ON s.id = q.slot_id WHERE q.attempt_id = %s AND q.active = %s "
            'ORDER BY q."order", q.id'
        ),
        "responses": (
            f"SELECT {r.sql} FROM {t[Response]} r "  # noqa: S608
            f"JOIN {t[Question]} q ON q.id = r.question_id "
            "WHERE r.attempt_id = %s AND q.active = %s ORDER BY r.created_at, r.id"
        ),
        "reveals": (
            f"SELECT {v.sql} FROM {t[Reveal]} v "  # noqa: S608
            f"JOIN {t[Question]} q ON q.id = v.question_id "
            "WHERE q.attempt_id = %s AND q.active = %s ORDER BY v.created_at, v.id"
        ),
        "question's responses": (
            f"SELECT {r.sql} FROM {t[Response]} r "  # noqa: S608
            "WHERE r.question_id = %s ORDER BY r.created_at, r.id"
        ),
    }


def active_rows(attempt_id: int) -> tuple[list[Question], list[Response], list[Reveal]]:
    """The attempt's active questions (each with its slot) in order, their responses in
    stored order, and their reveals: three queries however many questions there are."""
    st = _statements()
    q, s, r, v = st["cols"]
    questions = []
    for row in fetch(st["questions"], [attempt_id, True]):
        question = q.load(row)
        question.slot = s.load(row, len(q))
        questions.append(question)
    responses = [r.load(row) for row in fetch(st["responses"], [attempt_id, True])]
    reveals = [v.load(row) for row in fetch(st["reveals"], [attempt_id, True])]
    return questions, responses, reveals


def question_responses(question_id: int) -> list[Response]:
    """Every response of the question, valid or not, in stored order: what an autosave
    compares the posted parts with (frontend.answers), nine times in a web-page exam."""
    st = _statements()
    return [st["cols"][2].load(row) for row in fetch(st["question's responses"], [question_id])]


def question_tries(question_id: int) -> list[Response]:
    """The question's valid responses in stored order, as committed now."""
    return list(
        Response.objects.filter(question_id=question_id, valid=True).order_by("created_at", "id")
    )
