"""Database constraints every app's models share.

A CharField with choices is only a Python-side promise: a service, a data migration or
a bulk update can store any string (an empty Enrolment.source was storable). Each such
field carries `choice_check`, so the database refuses a value outside its choices, and
tests/config/test_constraints.py fails for a choice field without one. Adding a choice
changes the check, so `makemigrations --check` asks for the migration that widens it.
"""

from __future__ import annotations

from django.db import models


def choice_check(field: str, choices: type[models.Choices], *, name: str) -> models.CheckConstraint:
    """CHECK (field IN (the choices' values))."""
    return models.CheckConstraint(
        condition=models.Q(**{f"{field}__in": list(choices.values)}), name=name
    )
