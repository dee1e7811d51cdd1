"""Every misconception code a grader can give has a name in words (never the code)."""

from __future__ import annotations

import pytest

from problems.engine import registry
from problems.engine.grading import FEEDBACK, grade_part
from problems.engine.misconception_names import NAMES, UNNAMED, misconception_name
from problems.engine.variants import Variant

SEEDS = range(40)


@pytest.mark.parametrize("slug", registry.slugs())
def test_every_code_a_template_names_has_words(slug):
    template = registry.get(slug)
    missing = set()
    for seed in SEEDS:
        variant = Variant.from_seed(slug, seed)
        missing |= {m.code for m in template.misconceptions(variant.params) if m.code not in NAMES}
    assert not missing, f"{slug}: add names for {sorted(missing)}"


def test_the_generic_detector_codes_have_words():
    assert set(FEEDBACK) <= set(NAMES)


def test_names_are_words_not_codes():
    for code, name in NAMES.items():
        assert name != code and " " in name and not name.endswith("."), code
        assert name.count("-") < 3, (code, name)  # a phrase, not a kebab-case slug


def test_a_graded_slip_reads_by_its_name():
    """The code the grader gives for a GB/GiB slip is the one the table names."""
    variant = Variant.from_seed("weights-memory", 3)
    part = next(iter(variant.parts.values()))
    slip = next(m for m in variant.misconceptions if m.part == part.name)
    result = grade_part(part, str(slip.value), misconceptions=variant.misconceptions)
    assert result.misconception == slip.code
    assert misconception_name(result.misconception) == NAMES[slip.code]
    assert "-" not in misconception_name(result.misconception)


def test_no_code_reads_as_nothing_and_an_unknown_code_never_shows_raw():
    assert misconception_name(None) == "" and misconception_name("") == ""
    assert misconception_name("retired-code") == UNNAMED
