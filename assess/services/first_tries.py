"""A part's first try under immediate feedback, stored with its mastery step.

A first try is evidence: besides the response it steps the learner's row of each of
the template's skills and logs an event per skill. response_submit decides under the
attempt's lock that a try is a first; the writes follow here. On PostgreSQL they are
one statement of data-modifying CTEs (a first try was three round trips after the
decision, now one):

- the response's INSERT, whose ON CONFLICT on the attempt's keys stores nothing when
  the key was used before; the other two read its RETURNING, so then nothing at all
  is written and the caller replays;
- the skill rows' upsert, each row written only if its answer count is still the one
  read under the attempt's lock (services.mastery.GUARDED_STEP; the conflict branch
  locks the row and sees it as last committed, whatever the statement's snapshot);
- the events of the rows it wrote, pointing at the new response.

A row the guard refused (another attempt of the same learner stepped it meanwhile: two
tabs) is stepped again under its own lock after the statement, and its event logged
then (mastery_first_try_settle), as on SQLite, which takes no INSERT in a CTE and runs
the three as statements of their own (mastery_apply_first_try).
"""

from __future__ import annotations

import functools
from typing import Any

from django.db import connection
from django.utils import timezone

from api_common.rows import ctes_take_writes, fetch, insert, insert_statement, inserted
from assess.models import RESPONSE_KEYS, MasteryEvent, Question, Response, SkillMastery
from assess.services.mastery import (
    GUARDED_STEP,
    first_try_steps,
    mastery_apply_first_try,
    mastery_first_try_settle,
)


@functools.cache
def _mastery_part(n_skills: int) -> str:
    """The statement after the response's INSERT (CTE n): the steps, the rows' upsert
    and the events, and what comes back."""
    quote = connection.ops.quote_name
    pk = quote(Response._meta.pk.column)
    rows = quote(SkillMastery._meta.db_table)
    events = quote(MasteryEvent._meta.db_table)
    steps = ", ".join(["(%s::text, %s::float8, %s::float8, %s::integer)"] * n_skills)
    # identifiers from the models' metadata; every value is a bound parameter.
    # The rows are upserted in skill order, the order every writer locks them in.
    return (
        f"v (skill, p_before, p_after, responses) AS (VALUES {steps}), "  # noqa: S608
        f"w AS (INSERT INTO {rows} AS m (learner_id, skill, p_mastery, responses, updated_at) "
        "SELECT %s::bigint, v.skill, v.p_after, v.responses, %s FROM v CROSS JOIN n "
        f"ORDER BY v.skill ON CONFLICT (learner_id, skill) DO UPDATE SET {GUARDED_STEP} "
        "RETURNING m.skill), "
        f"e AS (INSERT INTO {events} (learner_id, skill, p_before, p_after, response_id, "
        f"created_at) SELECT %s::bigint, v.skill, v.p_before, v.p_after, n.{pk}, %s "
        "FROM v JOIN w ON w.skill = v.skill CROSS JOIN n) "
        f"SELECT n.{pk}, w.skill FROM n LEFT JOIN w ON TRUE"
    )


def first_try_store(
    *, learner_id: int, question: Question, values: dict[str, Any], read: dict[str, tuple]
) -> Response | None:
    """Store a first try (values by attname, as api_common.rows.insert takes them, `evidence`
    True) and step the learner's skill rows from `read` ({skill: (p_mastery, responses)}
    as read under the attempt's lock). Returns the stored response, or None when its key
    was used before: then nothing was written (the caller replays). Call inside the
    transaction that holds the attempt's lock."""
    steps = first_try_steps(
        question=question, part=values["part"], score=values["score"], read=read
    )
    if not (steps and ctes_take_writes()):
        pk = insert(Response, values, conflict=RESPONSE_KEYS)
        if pk is None:
            return None
        response = inserted(Response, pk, values)
        mastery_apply_first_try(
            learner_id=learner_id, response=response, question=question, steps=steps
        )
        return response
    now = timezone.now()
    when = SkillMastery._meta.get_field("updated_at").get_db_prep_save(now, connection)
    sql, params = insert_statement(Response, values, conflict=RESPONSE_KEYS)
    for skill, (before, after, count) in steps.items():
        params += [skill, before, after, count]
    params += [learner_id, when, learner_id, when]
    rows = fetch(f"WITH n AS ({sql}), {_mastery_part(len(steps))}", params)
    if not rows:
        return None
    response = inserted(Response, rows[0][0], values)
    mastery_first_try_settle(
        learner_id=learner_id,
        response=response,
        question=question,
        steps=steps,
        written={skill for _, skill in rows if skill is not None},
        logged=True,
        now=now,
    )
    return response
