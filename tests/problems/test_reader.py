"""The strict answer reader: never raises, never evaluates (pure: no database)."""

import builtins
import math
from decimal import Decimal

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from problems.engine.reader import Reading, read_answer


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("80.5", 80.5, "GB"),
        ("  80.5  ", 80.5, "GB"),
        ("80.5 GB", 80.5, "GB"),
        ("80.5GB", 80.5, "GB"),
        ("75 GiB", 75, "GiB"),
        ("80530636800 B", 80530636800, "B"),
        ("80530636800 bytes", 80530636800, "B"),
        ("1.2e3 GB/s", 1200, "GB/s"),
        ("1.2E3 GBps", 1200, "GB/s"),
        ("400 Gbps", 400, "Gb/s"),
        ("3.2 ms", 3.2, "ms"),
        ("+.5", 0.5, "GB"),
        ("5.", 5, "GB"),
        ("-5", -5, "GB"),
        ("−3.5 ms", -3.5, "ms"),  # unicode minus, as rendered math shows it
        ("1,234,567.8", 1234567.8, "GB"),
        ("1,234", 1234, "GB"),
        ("2.5×10^9 B", 2.5e9, "B"),
        ("2.5 x 10^-3 s", 2.5e-3, "s"),
        ("2.5*10^9", 2.5e9, "GB"),
        ("~80 GB", 80, "GB"),
        ("≈ 80", 80, "GB"),
        ("2.3x", 2.3, "x"),
        ("50%", 50, "%"),
        ("50 %", 50, "%"),
        ("$1,200", 1200, "USD"),
        ("$0.12/kWh", 0.12, "USD/kWh"),
        ("1e3GB", 1000, "GB"),
        ("2EB", 2, "EB"),
        ("990 TFLOPS", 990, "TFLOP/s"),
        ("12 GPUs", 12, "GPU"),
        ("5000 GPU-hours", 5000, "GPU-h"),
        ("0", 0, "GB"),
    ],
)
def test_reads(text, value, unit):
    r = read_answer(text, default_unit="GB")
    assert r.ok, r.error
    assert r.value == pytest.approx(value, rel=1e-15)
    assert r.unit == unit
    assert r.error == ""


def test_bare_number_takes_default_unit():
    assert read_answer("7").unit == ""
    assert read_answer("7", default_unit="ms").unit == "ms"


BAD = [
    "",
    "   ",
    "garbage",
    "GB",
    ".",
    "-",
    "2+2",
    "80/1.024",
    "(3)",
    "1e3**9",
    "9**9**9",
    "5 - 3",
    "__import__('os')",
    "__import__('os').system('true')",
    "eval('1')",
    "lambda: 1",
    "S('2')",
    "nan",
    "NaN GB",
    "inf",
    "-inf",
    "Infinity",
    "1e400",
    "-1e999",
    "1e-400",
    "1" * 41,
    "1" * 30 + " " + "GB " * 12,
    "1,23",
    "1234,567",
    "0,5 GB",
    "1,234,5678",
    "80 furlongs",
    "80 gb",
    "989 TFLOPs",
    "1_000",
    "0x10",
    "0b101",
    "1j",
    "１２３",  # full-width digits: float() would accept them, we do not
    "١٢٣",  # Arabic-Indic digits
    "True",
    "None",
    "[1]",
    "{1}",
    "$5 USD",
]


@pytest.mark.parametrize("text", BAD)
def test_refuses_with_a_message(text):
    r = read_answer(text, default_unit="GB")
    assert not r.ok
    assert r.value is None
    assert r.error.endswith("Expected a number with an optional unit, like 80.5 or 80.5 GB.")


@pytest.mark.parametrize("text", ["2+2", "80/1.024", "(3)", "1e3**9", "__import__('os')"])
def test_expressions_are_named_as_such(text):
    assert "not an expression" in read_answer(text).error


def test_specific_messages():
    assert "groups of three" in read_answer("1,23").error
    assert "finite" in read_answer("nan").error
    assert "too long" in read_answer("1" * 41).error
    assert "too long" in read_answer("1" + " " * 70 + "2").error
    assert "too large" in read_answer("1e400").error
    assert "GB or Gb" in read_answer("80 gb").error
    assert "ambiguous" in read_answer("989 TFLOPs").error


def test_not_str_does_not_raise():
    for thing in (None, 80, 80.5, b"80", ["80"], object()):
        assert not read_answer(thing).ok  # type: ignore[arg-type]


def test_reading_is_frozen():
    r = read_answer("1")
    assert isinstance(r, Reading)
    with pytest.raises(AttributeError):
        r.value = 2  # type: ignore[misc]


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=80))
def test_never_raises_on_any_text(text):
    r = read_answer(text, default_unit="GB")
    assert isinstance(r, Reading)
    if r.ok:
        assert r.value is not None and math.isfinite(r.value)
    else:
        assert r.value is None and r.error


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="0123456789.,eE+-−~≈$×x*^ 10GiBbMTs/%()", max_size=30))
def test_never_raises_on_number_like_text(text):
    r = read_answer(text, default_unit="GB")
    if r.ok:
        assert math.isfinite(r.value)


ADVERSARIAL = [
    "__import__('os').system('touch /tmp/pwned')",
    "exec('x=1')",
    "eval('2+2')",
    "compile('1','','eval')",
    "().__class__.__base__.__subclasses__()",
    "9**9**9",
    "Integer(2)",
    "S('2')",
    "sympify('1')",
    "lambda: 0",
    "1 if 1 else 0",
    "[x for x in ()]",
    "2+2",
    "1e3**9",
    "80/1.024",
    "80 GB; import os",
    "1 GB\n__import__('os')",
]


def _refuse(*args, **kwargs):
    raise AssertionError("the reader must never evaluate anything")


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.sampled_from(ADVERSARIAL), st.text(max_size=64)))
def test_never_evaluates(text):
    import sympy
    import sympy.parsing.sympy_parser as sympy_parser

    read_answer("1 GB/s")  # warm the unit cache (and pint) before the traps are set
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(builtins, "eval", _refuse)
        mp.setattr(builtins, "exec", _refuse)
        mp.setattr(builtins, "compile", _refuse)
        mp.setattr(sympy, "sympify", _refuse)
        mp.setattr(sympy, "S", _refuse)
        mp.setattr(sympy, "parse_expr", _refuse, raising=False)
        mp.setattr(sympy_parser, "parse_expr", _refuse)
        r = read_answer(text)
    if text in ADVERSARIAL:
        assert not r.ok


def test_reader_modules_do_not_import_sympy_or_evaluators():
    import re
    from pathlib import Path

    import problems.engine.grading as grading
    import problems.engine.reader as reader
    import problems.engine.units as units_mod

    for mod in (reader, units_mod, grading):
        src = Path(mod.__file__).read_text()
        assert "sympy" not in src
        assert not re.search(r"(?<![\w.])(eval|exec|compile)\(", src)
        assert "parse_expr" not in src and "sympify" not in src


def _formatted(x: float, style: str) -> str:
    return {
        "repr": repr(x),
        "g": f"{x:g}",
        "e": f"{x:e}",
        "comma": f"{x:,.3f}",
    }[style]


@settings(max_examples=800, deadline=None)
@given(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["repr", "g", "e", "comma"]),
    st.sampled_from([("", "ms"), (" GB", "GB"), ("GiB", "GiB"), (" ms", "ms")]),
)
def test_reads_back_every_number_it_formats(x, style, suffix):
    number = _formatted(x, style)
    assume(len(number) <= 40)  # longer numbers are refused by design
    tail, unit = suffix
    r = read_answer(number + tail, default_unit="ms")
    assert r.ok, (number + tail, r.error)
    assert r.unit == unit
    expected = float(Decimal(number.replace(",", "")))
    if style == "repr":
        assert expected == x
    if expected == 0:
        assert r.value == 0
    else:
        assert math.isclose(r.value, expected, rel_tol=1e-12)
