"""A learner's answer text is read, never evaluated (issue 18's ground rule), on the whole
grading road (grade_part, which every client calls), and no module of the project calls
an evaluator at all. No database.

The reader's rule for other scripts and locales (problems/engine/reader.py): digits are
ASCII 0-9, a comma only groups thousands in threes, a point is the decimal mark. So
"٣٫٥", "１２", "1,5" and "1.234,5" are unreadable (valid: false) with a message naming
the reason, never silently read as 3.5, 12, 1.5 or 1234.5.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import math
from pathlib import Path

import pytest
import sympy
import sympy.parsing.sympy_parser as sympy_parser
from hypothesis import given, settings
from hypothesis import strategies as st

from problems.engine.grading import grade_part
from problems.engine.reader import read_answer
from problems.engine.template import Kind, Part
from tests.badinput.hostile import CATALOGUE

ROOT = Path(__file__).resolve().parents[2]
NUMERIC = Part("weights", 80.5306368, "GB")
INTEGER = Part("gpus", 8, "", kind=Kind.INTEGER)
CHOICE = Part("bound", "memory", kind=Kind.CHOICE, choices=("memory", "compute"))

HOSTILE_TEXTS = [v.value for v in CATALOGUE if isinstance(v.value, str)] + [
    "eval('2+2')",
    "exec('x=1')",
    "compile('1','','eval')",
    "S('2')",
    "sympify('1')",
    "().__class__.__base__.__subclasses__()",
    "9**9**9",
    "1 GB\n__import__('os')",
    "1" * 40 + "e" + "9" * 40,
    "0x10",
    "1_000",
    "½",
    "Ⅻ",
]


def _refuse(*args, **kwargs):
    raise AssertionError("learner text reached an evaluator")


@contextlib.contextmanager
def traps():
    """eval, exec, compile and sympy's parsers raise inside this block (the unit registry
    and pint warmed first, so their own start-up is not mistaken for it). Only around
    the grading calls: pytest itself compiles while importing."""
    for part in (NUMERIC, INTEGER, CHOICE):
        grade_part(part, "1 GB/s")
    with pytest.MonkeyPatch.context() as mp:
        for name in ("eval", "exec", "compile"):
            mp.setattr(builtins, name, _refuse)
        for module in (sympy, sympy_parser):
            for name in ("sympify", "S", "parse_expr"):
                mp.setattr(module, name, _refuse, raising=False)
        yield


def _graded_sanely(part: Part, text: str) -> None:
    g = grade_part(part, text)
    if g.valid:
        assert g.parsed_value is not None
        assert not isinstance(g.parsed_value, float) or math.isfinite(g.parsed_value)
        assert 0.0 <= g.score <= 1.0
    else:
        assert (g.correct, g.score) == (False, 0.0)
        assert g.feedback.strip() and g.error.strip()


@pytest.mark.parametrize("part", [NUMERIC, INTEGER, CHOICE], ids=lambda p: p.kind.value)
def test_hostile_texts_are_graded_never_evaluated(part):
    for text in HOSTILE_TEXTS:
        with traps():
            _graded_sanely(part, text)


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(
    part=st.sampled_from([NUMERIC, INTEGER, CHOICE]),
    text=st.one_of(
        st.text(st.characters(codec=None), max_size=300),  # NUL, surrogates, any script
        st.text(alphabet="0123456789٣٫１２.,eE+-~$×x*^ GiBs/%()_", max_size=40),
    ),
)
def test_any_text_is_graded_never_evaluated(part, text):
    with traps():
        _graded_sanely(part, text)


OTHER_SCRIPTS_AND_LOCALES = {
    "٣٫٥": "Type the digits 0 to 9",
    "١٢٣ GB": "Type the digits 0 to 9",
    "１２": "Type the digits 0 to 9",
    "1.5e３": "Type the digits 0 to 9",
    "٫5": "Type the digits 0 to 9",
    "1,5": "Commas may only separate groups of three digits",
    "1.234,5": "Commas may only separate groups of three digits",
    "12,5 GB": "Commas may only separate groups of three digits",
    "NaN": "finite number",
    "-Infinity": "finite number",
    "1e999": "too large",
}


def test_other_scripts_and_locale_commas_are_unreadable_with_the_reason():
    for text, reason in OTHER_SCRIPTS_AND_LOCALES.items():
        reading = read_answer(text, default_unit="GB")
        assert (reading.ok, reading.value) == (False, None), text
        assert reason in reading.error, (text, reading.error)
    # ...and the forms the grammar does define are read.
    assert read_answer("1,234.5 GB").value == 1234.5
    assert read_answer("−3.5").value == -3.5  # the minus sign rendered maths shows


# Calls that run text as code. A project module calling one (on anything) is refused
# here; sympy builds formulas from Python operators (problems/engine/solutions.py).
EVALUATORS = {"eval", "exec", "compile", "__import__", "sympify", "parse_expr", "parse_latex"}
EVALUATOR_ATTRIBUTES = {"sympify", "parse_expr", "parse_latex", "literal_eval", "S"}
PACKAGES = ("assess", "certify", "config", "curricula", "frontend", "hardware_db", "lti")
PACKAGES += (
    "orgs",
    "problems",
    "capstone",
    "accounts",
    "api_common",
    "audit",
    "invitations",
    "privacy",
)


def _evaluator_calls(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name) and f.id in EVALUATORS:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno} {f.id}()")
        elif isinstance(f, ast.Attribute) and f.attr in EVALUATOR_ATTRIBUTES:
            if f.attr == "S" and not (node.args and isinstance(node.args[0], ast.Constant)):
                continue  # sympy.S.Zero and friends are constants, S("...") parses
            found.append(f"{path.relative_to(ROOT)}:{node.lineno} .{f.attr}()")
    return found


def test_no_project_module_calls_an_evaluator():
    files = [
        p
        for package in PACKAGES
        for p in (ROOT / package).rglob("*.py")
        if "migrations" not in p.parts
    ]
    assert len(files) > 100
    found = [call for path in files for call in _evaluator_calls(path)]
    assert found == []


def test_the_scan_finds_an_evaluator(tmp_path):
    """The scan is not vacuous: each spelling of an evaluator is found."""
    source = tmp_path / "bad.py"
    source.write_text(
        "import sympy, ast\neval(x)\nsympy.sympify(x)\nast.literal_eval(x)\nsympy.S('1')\n"
        "sympy.S.Zero\nre.compile('x')\n"
    )
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        found = _evaluator_calls(source)
    finally:
        ROOT = saved
    assert [f.split(" ")[1] for f in found] == ["eval()", ".sympify()", ".literal_eval()", ".S()"]
