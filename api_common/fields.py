"""Request fields that take their JSON type only, as the schema states it.

DRF coerces: a CharField stores `0`, `1.5` or `true` as text, an IntegerField reads
`"12"` (and Python's int() reads "١٢" and "１２" as 12 too), a FloatField reads `"0.5"`
and `true`. The schema says `string`, `integer`, `number`, and a client generated from it
is told the rest is refused, so every request serializer uses these fields instead:
a wrong JSON type is a 400 `invalid` on the field, and nothing is guessed.

The token endpoint also reads forms, whose values are all strings: it takes strings only.
"""

from __future__ import annotations

import sys

from rest_framework import serializers


class StrictCharField(serializers.CharField):
    """A JSON string only (NUL and lone surrogates are refused by CharField itself)."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictSlugField(serializers.SlugField):
    """A JSON string only, matching the slug pattern."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    """A JSON number with an integral value only: not a string, not a boolean. `3.0` is
    read as 3 (JSON does not tell 3 from 3.0); `1.5`, `1e999` are refused by DRF."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictFloatField(serializers.FloatField):
    """A JSON number only: not a string, not a boolean (DRF refuses NaN and infinity).

    An integer past a float's range (`1` and 400 zeros) is out of the field's bounds,
    said with the bound's own code: DRF's `overflow` is no code the schema documents."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        if isinstance(data, int) and abs(data) > sys.float_info.max:
            if data > 0 and self.max_value is not None:
                self.fail("max_value", max_value=self.max_value)
            if data < 0 and self.min_value is not None:
                self.fail("min_value", min_value=self.min_value)
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """A JSON true or false only: DRF's BooleanField also reads 0, 1, "yes", "off" and
    the like, which the schema's `boolean` does not promise."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data
