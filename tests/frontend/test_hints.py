"""Unit hints: what each answer box accepts, from the engine's unit grammar."""

import pytest

from frontend.hints import unit_hint
from problems.engine.reader import read_answer


def test_size_hint_offers_the_other_binary_or_decimal_unit():
    assert unit_hint("GB") == "A size in bytes: 80.5 (read as GB), 80.5 GB or 80.5 GiB."
    assert unit_hint("GiB") == "A size in bytes: 80.5 (read as GiB), 80.5 GiB or 80.5 GB."


def test_choice_integer_plain_and_percent_hints():
    assert unit_hint("", "choice", ("memory", "compute")) == "Choose one: memory, compute."
    assert unit_hint("", "integer") == "A whole number, e.g. 12."
    assert unit_hint("", "numeric") == "A plain number, e.g. 80.5."
    assert unit_hint("%") == "A percentage: 80.5 or 80.5%."


@pytest.mark.parametrize(
    "unit",
    [
        "GB",
        "GiB",
        "MB",
        "MiB",
        "GB/s",
        "us",
        "min",
        "h",
        "s",
        "ms",
        "tok/s",
        "FLOP/B",
        "TFLOP/s",
        "kW",
        "MWh",
        "USD",
        "GPU-h",
        "d",
    ],
)
def test_every_example_in_a_hint_is_read_by_the_engine(unit):
    hint = unit_hint(unit)
    examples = hint.split(": ", 1)[1].rstrip(".").replace(" or ", ", ").split(", ")
    assert len(examples) >= 2
    for example in examples:
        text = example.split(" (read as")[0]
        assert read_answer(text, default_unit=unit).ok, (unit, text)
