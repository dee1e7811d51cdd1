"""Query parameters of the hardware list endpoints, validated before anything is read.

An enum filter with an unknown value is a 400 naming the parameter, never a 200 with an
empty page: a typo such as `?kind=scaleup` must not look like "there are no such links".
`vendor` is not an enum: vendors are data that grows with the catalogue, so an unknown
vendor is simply an empty page, as the schema says.

The same serializers are the schema's parameters (`extend_schema(parameters=[...])`), so
the documented enums and the check cannot drift apart.
"""

from __future__ import annotations

from django.db.models import TextChoices
from rest_framework import serializers
from rest_framework.fields import empty

from hardware_db.models import Link, ModelArchitecture

# Error codes the list endpoints can answer 400 with, per parameter, for the schema.
ENUM_ERROR_CODES = ["invalid_choice"]
TEXT_ERROR_CODES = ["null_characters_not_allowed"]


class StrictChoiceField(serializers.ChoiceField):
    """An empty `?kind=` is a value that is not a kind, hence a 400, as the schema's enum
    says; DRF would read it as an absent filter, the way HTML forms mean it."""

    def get_value(self, dictionary):
        return dictionary.get(self.field_name, empty)


def _enum(choices: type[TextChoices], what: str, help_text: str) -> serializers.ChoiceField:
    allowed = ", ".join(choices.values)
    return StrictChoiceField(
        choices=choices.choices,
        required=False,
        help_text=help_text,
        error_messages={"invalid_choice": f'"{{input}}" is not {what}; one of: {allowed}.'},
    )


class VendorQuery(serializers.Serializer):
    vendor = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="Only records of this vendor, compared ignoring case (`nvidia` finds "
        "`NVIDIA`); an unknown vendor gives an empty page. Empty or absent: every vendor.",
    )


class LinkQuery(serializers.Serializer):
    kind = _enum(
        Link.Kind,
        "a link kind",
        "Only links of this kind: `scale-up` (accelerator to accelerator), `scale-out` "
        "(node to node) or `host` (accelerator to CPU). Any other value is a 400.",
    )


class ModelQuery(serializers.Serializer):
    arch_type = _enum(
        ModelArchitecture.ArchType,
        "an architecture type",
        "Only `dense` models or only `moe` (mixture-of-experts) models. Any other value is a 400.",
    )
