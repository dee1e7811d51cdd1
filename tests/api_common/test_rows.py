"""api_common.rows' writers: several writes in one round trip, and the instance of a row
stored by hand-written SQL."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from api_common.rows import execute_together, insert, insert_rows_statement, inserted
from assess.models import SkillMastery
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

TABLE = SkillMastery._meta.db_table


def _row(learner, skill: str, p: float) -> dict:
    return {
        "learner_id": learner.pk,
        "skill": skill,
        "p_mastery": p,
        "responses": 1,
        "updated_at": timezone.now(),
    }


def test_writes_run_together_in_order_in_one_round_trip_on_postgresql():
    learner = UserFactory()
    SkillMastery.objects.create(learner=learner, skill="old", p_mastery=0.1, responses=1)
    update = (
        f"UPDATE {connection.ops.quote_name(TABLE)} SET p_mastery = %s WHERE skill = %s",  # noqa: S608
        [0.9, "old"],
    )
    with CaptureQueriesContext(connection) as ctx:
        execute_together(
            [
                insert_rows_statement(SkillMastery, [_row(learner, "a", 0.2)]),
                update,
                insert_rows_statement(
                    SkillMastery, [_row(learner, "b", 0.3), _row(learner, "c", 0.4)]
                ),
            ]
        )
    assert len(ctx.captured_queries) == (1 if connection.vendor == "postgresql" else 3)
    stored = dict(SkillMastery.objects.values_list("skill", "p_mastery"))
    assert stored == {"old": 0.9, "a": 0.2, "b": 0.3, "c": 0.4}


def test_one_write_or_none_runs_as_it_is():
    learner = UserFactory()
    execute_together([])
    execute_together([insert_rows_statement(SkillMastery, [_row(learner, "a", 0.2)])])
    assert list(SkillMastery.objects.values_list("skill", flat=True)) == ["a"]


def test_an_inserted_instance_is_the_row_as_the_orm_reads_it():
    learner = UserFactory()
    values = _row(learner, "a", 0.2)
    obj = inserted(SkillMastery, insert(SkillMastery, values), values)
    read = SkillMastery.objects.get()
    assert [getattr(obj, f.attname) for f in SkillMastery._meta.concrete_fields] == [
        getattr(read, f.attname) for f in SkillMastery._meta.concrete_fields
    ]
    obj.p_mastery = 0.5
    obj.save()  # an UPDATE of the stored row, not a second INSERT
    assert list(SkillMastery.objects.values_list("p_mastery", flat=True)) == [0.5]
