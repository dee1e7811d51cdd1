"""Columns.load fills a new instance's __dict__ itself where that gives the object
Model.from_db gives (api_common/rows.py says when), for every model the service reads by
hand-written SQL, and keeps from_db where it would not."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.db import DEFAULT_DB_ALIAS, connection
from django.db.models.signals import post_init
from rest_framework.authtoken.models import Token

from api_common.rows import Columns, fetch
from assess.models import (
    Attempt,
    DrawnVariant,
    Question,
    Quiz,
    Response,
    Reveal,
    SkillMastery,
    Slot,
)
from assess.services.attempts import attempt_start
from assess.services.drawn_variants import variants_predraw
from assess.services.responses import response_submit
from assess.services.reveals import part_reveal
from curricula.models import Course
from tests.assess.helpers import wrong_text
from tests.factories import CourseFactory, QuizFactory, UserFactory

pytestmark = pytest.mark.django_db

MODELS = [
    Attempt, Course, DrawnVariant, Question, Quiz, Response, Reveal, Session, SkillMastery,
    Slot, Token, get_user_model(),
]  # fmt: skip


@pytest.fixture
def rows():
    """At least one stored row of every model in MODELS, through the services."""
    learner = UserFactory()
    Token.objects.create(user=learner)
    store = SessionStore()
    store["seen"] = True
    store.create()
    quiz = QuizFactory(slots=[["weights-memory"], ["gb-gib"]], course=CourseFactory())
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    first, second = attempt.questions.order_by("order")
    part = first.answers[0]
    response_submit(
        attempt=attempt, question=first, part=part["name"], text=wrong_text(part),
        idempotency_key="k1",
    )  # fmt: skip
    part_reveal(attempt=attempt, question=second, part=second.answers[0]["name"])
    exam = QuizFactory(mode="exam", slots=[["gb-gib"]])
    variants_predraw(quiz=exam, wanted=1, budget=5)


def _stored(model, columns: Columns) -> list[tuple]:
    table = connection.ops.quote_name(model._meta.db_table)
    return fetch(f"SELECT {columns.sql} FROM {table} {columns.alias}", [])  # noqa: S608


def _state(obj) -> tuple:
    data = {k: v for k, v in obj.__dict__.items() if k != "_state"}
    return type(obj), data, obj._state.adding, obj._state.db, obj.get_deferred_fields()


def _from_db(columns: Columns, row):
    """What Columns.load gave before: Django's own from_db on the converted values."""
    values = list(row)
    for i, converters, col in columns._converters_for():
        for convert in converters:
            values[i] = convert(values[i], col, connection)
    return columns.model.from_db(DEFAULT_DB_ALIAS, columns.attnames, values)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_an_instance_filled_directly_is_the_one_from_db_makes(rows, model):
    columns = Columns(model, "x")
    stored = _stored(model, columns)
    assert stored, f"no {model.__name__} row to read"
    for row in stored:
        loaded = columns.load(row)
        assert _state(loaded) == _state(_from_db(columns, row))
        orm = model.objects.get(pk=loaded.pk)
        assert _state(loaded) == _state(orm)  # and as the ORM reads it
    assert columns._plain_instances()  # the direct path was the one taken


def test_a_subset_of_columns_leaves_the_rest_deferred_as_from_db_does(rows):
    columns = Columns(Response, "r", only=("part", "created_at"))
    [row] = _stored(Response, columns)
    loaded = columns.load(row)
    assert _state(loaded) == _state(_from_db(columns, row))
    assert loaded.get_deferred_fields() == {
        f.attname
        for f in Response._meta.concrete_fields
        if f.attname not in ("id", "part", "created_at")
    }


def test_a_model_someone_listens_to_keeps_from_db(rows):
    seen = []

    def receiver(sender, instance, **kwargs):
        seen.append(instance)

    post_init.connect(receiver, sender=Reveal)
    try:
        columns = Columns(Reveal, "v")
        [row] = _stored(Reveal, columns)
        loaded = columns.load(row)
        assert not columns._plain_instances()
    finally:
        post_init.disconnect(receiver, sender=Reveal)
    assert seen == [loaded] and _state(loaded) == _state(_from_db(columns, row))


def test_a_receiver_connected_after_the_first_load_is_heard(rows):
    columns = Columns(Reveal, "v")
    [row] = _stored(Reveal, columns)
    columns.load(row)
    assert columns._plain_instances()
    seen = []

    def receiver(sender, instance, **kwargs):
        seen.append(instance)

    post_init.connect(receiver, sender=Reveal)
    try:
        loaded = columns.load(row)
        assert not columns._plain_instances()
    finally:
        post_init.disconnect(receiver, sender=Reveal)
    assert seen == [loaded]
    assert columns._plain_instances()  # and the direct path again once it is gone
