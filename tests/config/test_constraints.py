"""The database holds what the models promise: every choice field is checked by the
database (config.constraints.choice_check), an empty or unknown value is refused on
insert and on update, and the migrations are in step with the models (a new choice, or
a new constraint, without its migration fails here)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import IntegrityError, models, transaction

from assess.models import Enrolment
from tests.factories import EnrolmentFactory

OUR_APPS = {
    "assess",
    "audit",
    "capstone",
    "certify",
    "curricula",
    "hardware_db",
    "invitations",
    "lti",
    "orgs",
}


def _choice_fields():
    for model in apps.get_models():
        if model._meta.app_label not in OUR_APPS:
            continue
        for field in model._meta.fields:
            if isinstance(field, models.CharField) and field.choices:
                yield model, field


def _checked_values(model, field) -> set[str] | None:
    """The values a CHECK (field IN (...)) constraint of the model allows, if it has one."""
    for constraint in model._meta.constraints:
        if not isinstance(constraint, models.CheckConstraint):
            continue
        for child in constraint.condition.children:
            if isinstance(child, tuple) and child[0] == f"{field.name}__in":
                return set(child[1])
    return None


def test_every_choice_field_is_checked_by_the_database():
    fields = list(_choice_fields())
    assert len(fields) >= 16  # the sweep sees the project's models
    unchecked = [
        f"{model._meta.label}.{field.name}"
        for model, field in fields
        if _checked_values(model, field) != {value for value, _ in field.choices}
    ]
    assert unchecked == []


@pytest.mark.django_db
def test_the_migrations_are_in_step_with_the_models():
    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)


@pytest.mark.django_db
@pytest.mark.parametrize("source", ["", "sso", "SELF"])
def test_an_enrolment_without_a_known_source_is_refused(source):
    """The probe's case: code could store an empty source; the database now refuses it,
    on insert and on update."""
    enrolment = EnrolmentFactory()
    with pytest.raises(IntegrityError), transaction.atomic():
        EnrolmentFactory(source=source)
    with pytest.raises(IntegrityError), transaction.atomic():
        Enrolment.objects.filter(pk=enrolment.pk).update(source=source)
    enrolment.refresh_from_db()
    assert enrolment.source in Enrolment.Source.values
