"""Serializer output without DRF's per-instance copy of its fields.

A DRF serializer deep-copies its declared fields every time one is instantiated (the
`fields` property), before it writes a single key. The assess payloads nest a serializer
per question, per part and per part status, so reading a five-question attempt built
some 25 serializers and copied well over a hundred fields: more of the request's time
than its database queries. `PlainRepresentation` writes the same output from a plan made
once per class from the declared fields (which source to read, which field's
`to_representation` to call, which `get_<name>` method to ask), so instantiating a
serializer copies nothing. The declared fields stay the single description of the
payload: drf-spectacular documents them as before, and
tests/api_common/test_representation.py holds every class using this to DRF's own output.

It handles the field kinds these payloads use (plain fields with `source`, `*`,
SerializerMethodField, a nested serializer or a list of them, each written by its own
class's plan where it has one, by one instance of it per parent instance); a class with
a write-only field keeps DRF's own to_representation. An attribute that is missing
takes the field's default, or null where the field allows it, as DRF's
Field.get_attribute gives them; any other case (a field DRF would skip, an error) falls
back to DRF's path for that instance, so the edge cases keep DRF's behaviour exactly. A
list of them (`many=True` in a method field) is written by `represent_many`, one child
instance and no ListSerializer.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, tzinfo
from functools import cached_property
from typing import Any

from django.conf import settings
from django.db.models.manager import BaseManager
from django.utils import timezone
from rest_framework import ISO_8601, serializers
from rest_framework.fields import SerializerMethodField, empty, get_attribute
from rest_framework.settings import api_settings


@dataclass(frozen=True)
class _Nested:
    """A declared field that is itself a serializer: its class, and whether it is a list
    (`many=True`); written by that class, as DRF's field would write it."""

    cls: type
    many: bool

    def write(self, value, context: dict, writers: dict) -> Any:
        """`writers` holds the parent instance's child instances, one per class: a parent
        that writes many items (a list's rows) makes each child once, not once an item."""
        child = writers.get(self.cls)
        if child is None:
            child = writers[self.cls] = self.cls(context=context)
        if not self.many:
            return child.to_representation(value)
        if isinstance(value, BaseManager):  # as ListSerializer reads a related manager
            value = value.all()
        return [child.to_representation(item) for item in value]


def _plan(cls) -> list[tuple] | None:
    """[(key, source attrs or None for a method, field or _Nested or method name)], or
    None where this class must keep DRF's path."""
    plan = []
    for name, field in cls._declared_fields.items():
        if field.write_only:
            return None
        if isinstance(field, SerializerMethodField):
            plan.append((name, None, field.method_name or f"get_{name}"))
            continue
        source = field.source or name
        attrs = [] if source == "*" else source.split(".")
        if isinstance(field, serializers.ListSerializer):
            plan.append((name, attrs, _Nested(type(field.child), many=True)))
        elif isinstance(field, serializers.BaseSerializer):
            plan.append((name, attrs, _Nested(type(field), many=False)))
        else:
            plan.append((name, attrs, field))
    return plan


def _missing(field) -> tuple[bool, Any]:
    """What DRF's Field.get_attribute gives for an attribute that is not there: the
    field's default, else None where null is allowed; (False, None) for the cases left
    to DRF's own path (a skipped field, an error)."""
    if isinstance(field, _Nested):
        return False, None
    if field.default is not empty:
        return True, field.get_default()
    if field.allow_null:
        return True, None
    return False, None


class PlainRepresentation:
    """Mix into a `serializers.Serializer` subclass (before it) to write its output from
    a per-class plan instead of freshly copied fields; see the module docstring."""

    _plain_plans: dict[type, list[tuple] | None] = {}

    def to_representation(self, instance) -> dict[str, Any]:
        cls = type(self)
        try:
            plan = PlainRepresentation._plain_plans[cls]
        except KeyError:
            plan = PlainRepresentation._plain_plans[cls] = _plan(cls)
        if plan is None:
            return super().to_representation(instance)
        out: dict[str, Any] = {}
        writers = self.__dict__.get("_plain_writers")
        if writers is None:
            writers = self.__dict__["_plain_writers"] = {}
        for key, attrs, how in plan:
            if attrs is None:
                out[key] = getattr(self, how)(instance)
                continue
            try:
                value = get_attribute(instance, attrs)
            except (KeyError, AttributeError):
                known, value = _missing(how)  # a default, or null (DRF's rules)
                if not known:
                    return super().to_representation(instance)  # DRF's skips and errors
            if value is None:
                out[key] = None
            elif isinstance(how, _Nested):
                out[key] = how.write(value, self.context, writers)
            else:
                out[key] = how.to_representation(value)
        return out


def child_writer(parent, cls):
    """One serializer of `cls`, in `parent`'s context, for every list `parent` writes with
    it: a question's parts, say, across the questions of an attempt. Building one a list
    (a DRF serializer's construction) cost more than writing a short list."""
    writers = parent.__dict__.setdefault("_child_writers", {})
    if cls not in writers:
        writers[cls] = cls(context=parent.context)
    return writers[cls]


def represent_many(cls, items, context: dict | None = None) -> list:
    """`cls(items, many=True, context=context).data`, written by one child instance
    instead of a ListSerializer around it (its construction cost twice the writing of a
    two-item list: 20 against 9 µs). `items` is any iterable (a list, a queryset; not a
    related manager, which ListSerializer would call `.all()` on)."""
    child = cls(context=context or {})
    return [child.to_representation(item) for item in items]


def iso_zone() -> tzinfo | None:
    """The zone DRF's DateTimeField writes in (the current one), or None where its output
    is not the default ISO 8601 text (another format setting, or no time zones). A
    serializer that writes many datetimes by hand asks once (2.1 of the field's 4.7 us
    a value is asking)."""
    iso = settings.USE_TZ and api_settings.DATETIME_FORMAT.lower() == ISO_8601
    return timezone.get_current_timezone() if iso else None


def datetime_text(value, zone: tzinfo | None, field: serializers.DateTimeField) -> str | None:
    """`field.to_representation(value)`, DRF's DateTimeField output (ISO 8601 in `zone`,
    UTC as `Z`), written directly for an aware datetime with `zone` from iso_zone();
    anything else by the field itself."""
    if zone is None or not isinstance(value, datetime) or value.tzinfo is None:
        return field.to_representation(value)
    text = value.astimezone(zone).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


class HandWritten:
    """Mix into a serializer that writes its output by hand (its own to_representation,
    for a payload written hundreds of times a request) to write a declared field's value
    as that field would: the common values directly, anything else by the field."""

    @cached_property
    def _zone(self) -> tzinfo | None:
        return iso_zone()  # asked once per instance, not once per value

    def _boolean(self, name: str, value) -> bool | None:
        """DRF's BooleanField output: a bool (or None) as it is, else the field's."""
        if value is True or value is False or value is None:
            return value
        return self._declared_fields[name].to_representation(value)

    def _when(self, name: str, value) -> str | None:
        """DRF's DateTimeField output (datetime_text, in the zone asked once)."""
        return datetime_text(value, self._zone, self._declared_fields[name])
