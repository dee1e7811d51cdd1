"""PlainRepresentation's plan against DRF's own to_representation on the field kinds it
handles, and the cases where it hands over to DRF (tests/assess/api/
test_plain_representation.py holds the API's serializers to DRF's output)."""

from __future__ import annotations

import datetime as dt

from rest_framework import serializers

from api_common.representation import PlainRepresentation, child_writer, represent_many


class _Leaf(PlainRepresentation, serializers.Serializer):
    n = serializers.IntegerField(source="a.b")
    when = serializers.DateTimeField()
    maybe = serializers.CharField(allow_null=True)
    tags = serializers.ListField(child=serializers.CharField())
    computed = serializers.SerializerMethodField()

    def get_computed(self, obj) -> str:
        return f"{obj['when'].year}-{self.context.get('suffix', '')}"


def test_plan_matches_drf_on_sources_dates_nulls_lists_and_methods():
    obj = {
        "a": {"b": "7"},
        "when": dt.datetime(2026, 12, 1, 17, 0, tzinfo=dt.UTC),
        "maybe": None,
        "tags": [1, "x"],
    }
    s = _Leaf(context={"suffix": "z"})
    drf = serializers.Serializer.to_representation(_Leaf(context={"suffix": "z"}), obj)
    assert s.to_representation(obj) == drf
    assert drf == {
        "n": 7,
        "when": "2026-12-01T17:00:00Z",
        "maybe": None,
        "tags": ["1", "x"],
        "computed": "2026-z",
    }


def test_a_missing_attribute_falls_back_to_drf_defaults():
    # DRF returns None for a missing attribute of an allow_null field: so do we
    obj = {"a": {"b": 1}, "when": dt.datetime(2026, 1, 1, tzinfo=dt.UTC), "tags": []}
    assert _Leaf().to_representation(obj)["maybe"] is None


class _Nested(PlainRepresentation, serializers.Serializer):
    inner = _Leaf()


def test_a_nested_serializer_field_keeps_drfs_path():
    obj = {
        "inner": {
            "a": {"b": 2},
            "when": dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
            "maybe": "m",
            "tags": [],
        }
    }
    assert _Nested().to_representation(obj)["inner"]["n"] == 2


def test_a_list_is_written_as_drfs_list_serializer_writes_it():
    items = [
        {"a": {"b": n}, "when": dt.datetime(2026, 1, n, tzinfo=dt.UTC), "maybe": None, "tags": []}
        for n in (1, 2, 3)
    ]
    context = {"suffix": "q"}
    drf = _Leaf(items, many=True, context=context).data
    assert represent_many(_Leaf, items, context) == drf
    assert represent_many(_Leaf, iter(items), context) == drf  # any iterable, read once
    assert represent_many(_Leaf, [], context) == []
    # no context: the methods see an empty one, as DRF's would
    assert represent_many(_Leaf, items[:1]) == _Leaf(items[:1], many=True).data


class _Holder(PlainRepresentation, serializers.Serializer):
    one = _Leaf(source="first")
    many = _Leaf(many=True, source="items")
    none = _Leaf(allow_null=True)
    ref = serializers.CharField(source="thing.pk", allow_null=True, default=None)


def test_nested_serializers_and_lists_are_written_as_drf_writes_them():
    def leaf(n):
        return {"a": {"b": n}, "when": dt.datetime(2026, 1, n, tzinfo=dt.UTC), "maybe": None,
                "tags": [n]}  # fmt: skip

    # `thing` is missing: the field's default (None), as DRF's get_attribute gives it
    obj = {"first": leaf(1), "items": [leaf(2), leaf(3)], "none": None}
    context = {"suffix": "k"}
    drf = serializers.Serializer.to_representation(_Holder(context=context), obj)
    assert _Holder(context=context).to_representation(obj) == drf
    assert drf["many"][1]["computed"] == "2026-k" and drf["ref"] is None and drf["none"] is None
    obj["thing"] = {"pk": 5}
    assert _Holder(context=context).to_representation(obj)["ref"] == "5"


def test_a_child_writer_is_one_per_parent_and_class_in_the_parent_s_context():
    first, second = _Leaf(context={"suffix": "a"}), _Leaf(context={"suffix": "b"})
    writer = child_writer(first, _Leaf)
    assert child_writer(first, _Leaf) is writer and child_writer(second, _Leaf) is not writer
    obj = {"a": {"b": 1}, "when": dt.datetime(2026, 12, 7, tzinfo=dt.UTC), "maybe": "m",
           "tags": []}  # fmt: skip
    assert writer.to_representation(obj)["computed"] == "2026-a"
    assert child_writer(second, _Leaf).to_representation(obj)["computed"] == "2026-b"
    assert writer.to_representation(obj) == _Leaf(obj, context={"suffix": "a"}).data
