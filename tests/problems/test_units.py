"""Unit registry, strict unit grammar and cached conversions (pure: no database)."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from problems.engine import units
from problems.engine.units import (
    UnitError,
    convert,
    describe_kind,
    explain_unknown_unit,
    parse_unit,
    same_kind,
)

BYTE_SIZES = {
    "B": 1,
    "KB": 1e3,
    "kB": 1e3,
    "MB": 1e6,
    "GB": 1e9,
    "TB": 1e12,
    "PB": 1e15,
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
    "TiB": 2**40,
    "PiB": 2**50,
    "b": 1 / 8,
    "Kb": 1e3 / 8,
    "Mb": 1e6 / 8,
    "Gb": 1e9 / 8,
    "Tb": 1e12 / 8,
    "bytes": 1,
    "Bytes": 1,
}


@pytest.mark.parametrize(("unit", "bytes_"), BYTE_SIZES.items())
def test_sizes_in_bytes(unit, bytes_):
    assert convert(1, unit, "B") == pytest.approx(bytes_, rel=1e-15)
    assert describe_kind(unit) == "a size in bytes"


def test_capital_k_is_decimal_and_binary_units_are_powers_of_two():
    assert convert(1, "KB", "B") == 1000
    assert convert(1, "KiB", "B") == 1024
    assert convert(1, "GiB", "GB") == pytest.approx(1.073741824, rel=1e-15)


@pytest.mark.parametrize(
    ("spelling", "canonical", "factor"),
    [
        ("GB/s", "GB/s", 1e9),
        ("GBps", "GB/s", 1e9),
        ("TB/s", "TB/s", 1e12),
        ("TBps", "TB/s", 1e12),
        ("Gbps", "Gb/s", 1e9 / 8),
        ("Gb/s", "Gb/s", 1e9 / 8),
        ("GB / s", "GB/s", 1e9),
        ("TFLOPS", "TFLOP/s", 1e12),
        ("TFLOP/s", "TFLOP/s", 1e12),
        ("FLOP/B", "FLOP/B", 1),
        ("FLOP/byte", "FLOP/B", 1),
        ("tok/s", "tok/s", 1),
        ("tokens/s", "tok/s", 1),
        ("ms", "ms", 1e-3),
        ("us", "us", 1e-6),
        ("µs", "us", 1e-6),
        ("μs", "us", 1e-6),
        ("min", "min", 60),
        ("h", "h", 3600),
        ("d", "d", 86400),
        ("kW", "kW", 1e3),
        ("MWh", "MWh", 3.6e9),
        ("USD", "USD", 1),
        ("$", "USD", 1),
        ("GPU-h", "GPU-h", 1),
        ("GPU-hours", "GPU-h", 1),
        ("GPU h", "GPU-h", 1),
        ("GPU hours", "GPU-h", 1),
        ("%", "%", 0.01),
        ("", "", 1),
        ("x", "x", 1),
        ("×", "x", 1),
        ("GiB", "GiB", 2**30),
        ("s^-1", "1/s", 1),
        ("USD/kWh", "USD/kWh", 1 / 3.6e6),
    ],
)
def test_accepted_spellings(spelling, canonical, factor):
    info = parse_unit(spelling)
    assert info is not None, spelling
    assert info.symbol == canonical
    assert info.factor == pytest.approx(factor, rel=1e-12)


def test_gbps_is_gigabits():
    assert convert(400, "Gbps", "GB/s") == pytest.approx(50)
    assert convert(1, "Gb/s", "b/s") == pytest.approx(1e9)
    assert convert(1, "GPU-d", "GPU-h") == 24
    assert convert(50, "%", "") == 0.5
    assert convert(3, "min", "s") == 180


@pytest.mark.parametrize(
    "bad",
    [
        "gb",  # case matters: GB (bytes) vs Gb (bits)
        "G",
        "TFLOPs",  # ambiguous: an amount or a rate
        "GB**2",
        "GB/",
        "/s",
        "2+2",
        "__import__('os')",
        "eval('1')",
        "GB x s",  # "x" only as a whole unit
        "meter",
        "h" * 50,
        "GB^x",
        "(GB)",
    ],
)
def test_refused_spellings(bad):
    assert parse_unit(bad) is None
    assert explain_unknown_unit(bad)


def test_explanations_help():
    assert "GB or Gb" in explain_unknown_unit("gb")
    assert "TFLOP/s" in explain_unknown_unit("TFLOPs")


def test_convert_errors_are_value_errors():
    with pytest.raises(UnitError, match="Unknown unit"):
        convert(1, "furlong", "GB")
    with pytest.raises(UnitError, match="Cannot convert"):
        convert(1, "GB", "GB/s")
    assert issubclass(UnitError, ValueError)


def test_same_kind_and_describe_kind():
    assert same_kind("GB", "GiB")
    assert same_kind("Gbps", "TB/s")
    assert same_kind("%", "")
    assert not same_kind("GB", "GB/s")
    assert not same_kind("nonsense", "nonsense")
    assert describe_kind("GB/s") == "a rate in bytes per second"
    assert describe_kind("ms") == "a time"
    assert describe_kind("TFLOP/s") == "a compute rate"
    assert describe_kind("kW") == "power"
    assert describe_kind("MWh") == "energy"
    assert describe_kind("USD") == "money"
    assert describe_kind("%") == "a percentage"
    assert "count" in describe_kind("")
    assert describe_kind("nonsense") == "an unknown unit"


def test_one_registry_built_once():
    assert units.get_registry() is units.get_registry()
    assert units.ureg is units.get_registry()


def test_pint_sees_only_whitelisted_names(monkeypatch):
    reg = units.get_registry()
    names = {line.split("=")[0].strip() for line in units._DEFINITIONS}
    seen = []
    real = reg.parse_units

    def spy(name, *args, **kwargs):
        seen.append(name)
        return real(name, *args, **kwargs)

    def refuse(*args, **kwargs):
        raise AssertionError("pint's expression parser must never run")

    monkeypatch.setattr(reg, "parse_units", spy)
    monkeypatch.setattr(reg, "parse_expression", refuse)
    units._parse_unit.cache_clear()
    for text in ["GB/s", "TFLOPS", "kW h", "USD/GPU-h", "1+1", "__class__", "GB*GB^2", "%"]:
        parse_unit(text)
    assert seen
    assert set(seen) <= names


def test_pint_not_touched_after_first_sight(monkeypatch):
    assert convert(2, "TB/s", "GB/s") == 2000

    def boom():
        raise AssertionError("pint touched on a cached unit")

    monkeypatch.setattr(units, "get_registry", boom)
    for _ in range(3):
        assert convert(2, "TB/s", "GB/s") == 2000
        assert same_kind("TB/s", "GB/s")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=50))
def test_parse_unit_never_raises(text):
    info = parse_unit(text)
    assert info is None or math.isfinite(info.factor)
    assert isinstance(describe_kind(text), str)
    assert isinstance(same_kind(text, "GB"), bool)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="GMKTiBbps/*· ^-1%xhdmsuFLOPtokenUSD$", max_size=16))
def test_parse_unit_never_raises_on_unit_like_text(text):
    info = parse_unit(text)
    if info is not None:
        assert convert(1.0, text, text) == 1.0


def test_btu_per_hour_is_the_international_table_btu():
    # 1 W = 3600 / 1055.05585262 BTU/h (cooling-load)
    assert units.convert(1, "W", "BTU/h") == pytest.approx(3600 / 1055.05585262, rel=1e-12)
    assert units.convert(120, "kW", "BTU/h") == pytest.approx(409456.995975353, rel=1e-12)
    assert units.parse_unit("Btu/hr").symbol == "BTU/h"
    assert units.describe_kind("BTU/h") == "power"


def test_litres_per_minute_is_a_flow_rate():
    assert units.convert(60, "L/min", "L/s") == pytest.approx(1.0)
    assert units.parse_unit("litres/min").symbol == "L/min"
    assert units.describe_kind("L/min") == "a flow rate (volume per unit of time)"
    assert not units.same_kind("L/min", "kW")
