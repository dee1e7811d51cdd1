"""Many learners' rows at once, written as SQL: the people, the templates each has
answered, and their skill estimates, for tables of thousands of learners.

The course progress CSV reads 5,743 learners 500 at a time, and the certification
check and a team's readiness read their people's estimates on every request. Through
the ORM each `learner_id__in` list resolved every id on its own (8 us an id: 150 ms of
the CSV's download), so these statements are SQL with their IN lists filled by
api_common.rows.fetch_in; each is held to the queryset it replaced on both databases
(tests/assess/test_learner_rows.py, tests/certify/test_check_reads.py) and listed in
tests/api_common/test_sql_equivalence.py.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from django.contrib.auth import get_user_model

from api_common.rows import fetch_in
from api_common.rows import quoted as _q
from api_common.rows import table_of as _table
from assess.models import SkillMastery, StartedTemplate

PERSON = ("id", "username", "first_name", "last_name", "email")


@functools.cache  # built at first use, once the apps are loaded
def people_statement() -> str:
    """The PERSON columns of some users ({learners}), in no order."""
    columns = ", ".join(f"u.{_q(c)}" for c in PERSON)
    return (
        f"SELECT {columns} FROM {_table(get_user_model())} u WHERE u.{_q('id')} IN ({{learners}})"  # noqa: S608
    )


@functools.cache
def started_statement() -> str:
    """(learner id, template slug) of every template some learners ({learners}) have
    answered (assess.models.started), in no order."""
    return (
        f"SELECT s.{_q('learner_id')}, s.{_q('template_slug')} "  # noqa: S608
        f"FROM {_table(StartedTemplate)} s WHERE s.{_q('learner_id')} IN ({{learners}})"
    )


@functools.cache
def estimates_statement() -> str:
    """(learner id, skill, estimate, answers behind it) of some learners ({learners}) on
    some skills ({skills}), in no order (sorting the skill names by the database's
    collation was half the statement's time): four plain columns, nothing to convert."""
    return (
        f"SELECT m.{_q('learner_id')}, m.{_q('skill')}, m.{_q('p_mastery')}, "  # noqa: S608
        f"m.{_q('responses')} FROM {_table(SkillMastery)} m "
        f"WHERE m.{_q('learner_id')} IN ({{learners}}) AND m.{_q('skill')} IN ({{skills}})"
    )


def people_of(ids: Sequence[int]) -> list[tuple]:
    """The PERSON rows of these users, in the order of `ids` (one gone since is left out)."""
    if not ids:
        return []
    rows = {row[0]: row for row in fetch_in(people_statement(), [], learners=ids)}
    return [rows[pk] for pk in ids if pk in rows]


def started_rows(ids: Sequence[int]) -> list[tuple[int, str]]:
    """(learner id, template slug) of every template these learners have answered."""
    return fetch_in(started_statement(), [], learners=ids) if ids else []


def estimate_rows(ids: Sequence[int], skills: Sequence[str]) -> list[tuple[int, str, float, int]]:
    """(learner id, skill, estimate, answers behind it) of these learners on these
    skills, where they have a row."""
    if not (ids and skills):
        return []
    return fetch_in(estimates_statement(), [], learners=ids, skills=skills)
