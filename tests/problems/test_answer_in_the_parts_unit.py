"""Every numeric part takes its right value typed with the very unit the question asks
for. A unit with two terms under the line ("tok/s/kW") was read into the symbol
"tok/(s·kW)", which the unit grammar (no parentheses) could not read back, so the
right answer written as asked was graded a wrong kind of unit; found by the scale data's
check that stored answers grade as stored (tests/frontend/test_load_scale_data.py)."""

from __future__ import annotations

import pytest

from problems.engine import registry
from problems.engine.units import parse_unit
from problems.engine.variants import Variant


def test_a_unit_symbol_reads_back_as_the_same_unit():
    for text in ("tok/s/kW", "USD/Mtok", "GB/s", "FLOP/s", "W/GPU", "tok/s"):
        info = parse_unit(text)
        back = parse_unit(info.symbol)
        assert back is not None and (back.dims, back.factor) == (info.dims, info.factor)
    assert parse_unit("tok/s/kW").symbol == "tok/s/kW"


@pytest.mark.parametrize("slug", [s for s in registry.slugs() if not s.startswith("drill-")])
def test_the_right_value_with_the_parts_unit_is_correct(slug):
    for seed in (3, 17, 101):
        variant = Variant.from_seed(slug, seed)
        for part in variant.parts.values():
            if part.kind == "choice" or not part.unit:
                continue
            result = variant.grade(part.name, f"{part.value!r} {part.unit}")
            assert result.valid and result.correct, (slug, seed, part.name, part.unit, result)
