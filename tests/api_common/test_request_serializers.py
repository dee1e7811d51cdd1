"""Request serializers with shallowly copied fields (api_common/request_serializers.py) read
every body as DRF's own deep-copied fields do, and keep each instance's binding apart."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

import lti.api.serializers  # noqa: F401 (every request serializer imported)
from api_common.request_serializers import FlatRequest, is_flat
from assess.api.serializers import ResponseInputSerializer
from certify.api.serializers import RevokeInputSerializer

pytestmark = pytest.mark.db_independent


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


USING = sorted(set(_subclasses(FlatRequest)), key=lambda c: c.__name__)

JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=80)
    | st.text(min_size=60, max_size=1200)
    | st.datetimes().map(lambda d: d.isoformat() + "Z")
)
JSON_VALUES = (
    JSON_SCALARS
    | st.lists(JSON_SCALARS, max_size=3)
    | st.dictionaries(st.text(max_size=5), JSON_SCALARS, max_size=2)
)


def _outcome(serializer, body):
    """What validating the body's fields gives: the values, or the errors with codes."""
    try:
        return ("valid", serializer.to_internal_value(body))
    except ValidationError as exc:
        return ("invalid", serializers.as_serializer_error(exc), exc.get_codes())


def _deep_copied(cls, body):
    """The same class reading the body through DRF's own get_fields (a deep copy)."""
    serializer = cls(data=body)
    serializer.get_fields = lambda: super(FlatRequest, serializer).get_fields()
    return serializer


def test_the_answer_path_uses_it():
    assert {ResponseInputSerializer, RevokeInputSerializer} <= set(USING)


@pytest.mark.parametrize("cls", USING, ids=lambda c: c.__name__)
def test_every_class_using_it_is_flat(cls):
    # a class that is not flat keeps DRF's deep copy: the mixin would be a no-op there
    assert is_flat(cls)


def test_nested_serializers_and_fields_holding_fields_are_not_flat():
    class Child(serializers.Serializer):
        x = serializers.IntegerField()

    class Nested(FlatRequest, serializers.Serializer):
        child = Child()

    class Listed(FlatRequest, serializers.Serializer):
        xs = serializers.ListField(child=serializers.IntegerField())

    class Plain(FlatRequest, serializers.Serializer):
        x = serializers.IntegerField()

    assert (is_flat(Nested), is_flat(Listed), is_flat(Plain)) == (False, False, True)
    # not flat: DRF's own deep copy, so the child is not the declared one
    assert Listed().fields["xs"].child is not Listed._declared_fields["xs"].child


@pytest.mark.parametrize("cls", USING, ids=lambda c: c.__name__)
@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_bodies_read_as_drf_reads_them(cls, data):
    names = list(cls._declared_fields)
    body = data.draw(
        st.fixed_dictionaries({}, optional={n: JSON_VALUES for n in names})
        | st.dictionaries(st.sampled_from(names), JSON_VALUES)
        | st.sampled_from([[], "x", 3, None])
    )
    assert _outcome(cls(data=body), body) == _outcome(_deep_copied(cls, body), body)


def test_each_instance_binds_its_own_fields_and_the_class_keeps_them_unbound():
    first, second = ResponseInputSerializer(data={}), ResponseInputSerializer(data={})
    for name in ResponseInputSerializer._declared_fields:
        a, b = first.fields[name], second.fields[name]
        declared = ResponseInputSerializer._declared_fields[name]
        assert a is not b and declared not in (a, b)
        assert (a.parent, b.parent) == (first, second)
        assert (a.field_name, declared.field_name, declared.parent) == (name, None, None)
    # an instance changing its field leaves the other's and the class's alone
    first.fields["part"].required = False
    assert second.fields["part"].required is True
    assert ResponseInputSerializer._declared_fields["part"].required is True
