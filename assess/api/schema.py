"""Schema details drf-spectacular leaves out, so the documented request is the enforced one.

A nested serializer with many=True (a ListSerializer) is documented as a bare array:
drf-spectacular drops `allow_empty=False`, `min_length` and `max_length`, so a client
generated from the schema would send `slots: []` and meet a 400 it could not foresee.
This extension documents them as minItems/maxItems. It registers itself on import
(assess.api.views imports it). JsonBodySchema narrows a view's documented request
media types to JSON; NamedChoiceField gives an enum one component name.
"""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.plumbing import build_choice_field
from rest_framework import serializers

from api_common.errors import AutoSchema


class BoundedListSerializerExtension(OpenApiSerializerFieldExtension):
    target_class = "rest_framework.serializers.ListSerializer"
    match_subclasses = True

    def map_serializer_field(self, auto_schema, direction):
        schema = auto_schema._unwrap_list_serializer(self.target, direction)
        if schema is None:
            return None
        minimum = self.target.min_length
        if minimum is None and not self.target.allow_empty:
            minimum = 1
        if minimum is not None:
            schema["minItems"] = minimum
        if self.target.max_length is not None:
            schema["maxItems"] = self.target.max_length
        return schema


class JsonBodySchema(AutoSchema):
    """Documents request bodies as JSON only, for a view that also reads forms for older
    clients (the token endpoint): a generator offered JSON, form and multipart at once
    writes clients that send one labelled as another."""

    def map_parsers(self):
        return ["application/json"]


class NamedChoiceField(serializers.ChoiceField):
    """A ChoiceField documented as one named enum component wherever it appears. The
    enum hook names inline enums after their field and gives up (with a warning) when
    one field name carries several choice sets across the project, as `status` does."""

    def __init__(self, *, enum_name: str, **kwargs):
        self.enum_name = enum_name
        super().__init__(**kwargs)


class NamedChoiceFieldExtension(OpenApiSerializerFieldExtension):
    target_class = NamedChoiceField

    def get_name(self):
        return self.target.enum_name

    def map_serializer_field(self, auto_schema, direction):
        return build_choice_field(self.target)
