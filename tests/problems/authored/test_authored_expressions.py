"""The expression language: hostile text refused by a bound or the allow-list, named by its
field path; exact arithmetic; and a fuzz that never gets anything but ExprError out."""

import contextlib
import copy
from fractions import Fraction
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from problems.authored import expr as ex
from problems.authored.loader import validate
from tests.growth import calls

EXAMPLE = yaml.safe_load((Path(__file__).parent / "data" / "team-kv-budget.yaml").read_text())
SCOPE = {"tokens": None, "batch": None, "model": frozenset({"n_layers", "name"})}
ENV = {
    "tokens": Fraction(4096),
    "batch": Fraction(3),
    "model": {"slug": "m", "n_layers": Fraction(32), "name": "M"},
}

FUNCS = "min, max, abs, ceil, floor, round, sqrt, exp, log, log2, log10"
HOSTILE = {
    "__import__('os')": "calling '__import__' is not allowed",
    "().__class__": "attributes are allowed only as a catalog record's field",
    "model.n_layers.__class__": "attributes are allowed only as a catalog record's field",
    "gpu.memory_bytes.real": "attributes are allowed only as a catalog record's field",
    "model.source": "'model' has no field 'source'",
    "model.kv_bytes_per_token": "'model' has no field 'kv_bytes_per_token'",
    "tokens.real": "'tokens' is not a catalog record",
    "9**9**9": "an exponent of 387420489 is beyond the bound of 64",
    "2 ** 65": "an exponent of 65 is beyond the bound of 64",
    "1" * 100_000: "the expression is 100,000 characters; at most 2,000",
    "(" * 10_000 + "1" + ")" * 10_000: "characters; at most 2,000",
    "(" * 51 + "1" + ")" * 51: "brackets are nested more than 50 deep",
    "-" * 60 + "1": "nested more than 50 levels deep",
    "+".join(["tokens"] * 60): "nested more than 50 levels deep",
    "lambda: 1": "a lambda is not allowed",
    "[t for t in (1, 2)]": "a comprehension is not allowed",
    "sum(t for t in (1, 2))": "calling 'sum' is not allowed",
    "tokens[0]": "a subscript ([...]) is not allowed",
    "open('x')": "calling 'open' is not allowed",
    "layer * 2": "unknown name 'layer'",
    "_secret": "names starting with '_' are not allowed",
    "max": "'max' is a function",
    "sqrt(x=4)": "sqrt() takes no keyword arguments",
    "f'{tokens}'": "an f-string is not allowed",
    "tokens ^ 2": "a power is written **",
    "b'x'": "the constant b'x' is not allowed",
    "1e400": "not finite",
    "10 ** 100": "beyond the bound of 64",
    "'x' if": "not a valid expression",
}


def _validation_calls(data: dict) -> int:
    return calls(lambda: validate(copy.deepcopy(data)))


VALID_CALLS = _validation_calls(EXAMPLE)  # the example file's whole validation


@pytest.mark.parametrize("source", list(HOSTILE))
def test_hostile_expression_refused_with_its_field_path(source):
    """Refused with its path, and for no more work (counted in calls, tests/growth.py)
    than validating the valid example: the bounds are checked before the work."""
    data = copy.deepcopy(EXAMPLE)
    data["parts"][0]["answer"] = source
    problems = validate(data)
    assert _validation_calls(data) <= VALID_CALLS
    assert len(problems) == 1, problems
    assert problems[0].startswith("parts[0].answer: ")
    assert HOSTILE[source] in problems[0]


@pytest.mark.parametrize(
    "field, path",
    [
        (("constraints", 0), "constraints[0]"),
        (("parts", 0, "misconceptions", 0, "answer"), "parts[0].misconceptions[0].answer"),
        (("params", "tokens", "range", 1), "params.tokens.range[1]"),
    ],
)
def test_hostile_expression_elsewhere_names_that_field(field, path):
    data = copy.deepcopy(EXAMPLE)
    target = data
    for key in field[:-1]:
        target = target[key]
    target[field[-1]] = "__import__('os').system('true')"
    problems = validate(data)
    assert problems == [f"{path}: calling a method ('system') is not allowed; functions: {FUNCS}"]


@pytest.mark.parametrize(
    "source, value",
    [
        ("0.1 + 0.2", Fraction(3, 10)),
        ("1 / 3 * 3", Fraction(1)),
        ("7 // 2", Fraction(3)),
        ("7 % 4", Fraction(3)),
        ("2 ** -2", Fraction(1, 4)),
        ("2 ** 64", Fraction(2**64)),
        ("1e9", Fraction(10**9)),
        ("ceil(tokens / 1000)", Fraction(5)),
        ("round(2.675, 2)", Fraction(67, 25)),  # exact 2.675, half to even; a float gives 2.67
        ("min(3, tokens, batch)", Fraction(3)),
        ("model.n_layers * 2", Fraction(64)),
        ("'big' if tokens > 1000 and not batch > 5 else 'small'", "big"),
        ("model == 'm'", True),
        ("model.name", "M"),
        ("1 < batch <= 3", True),
    ],
)
def test_exact_evaluation(source, value):
    result = ex.evaluate(ex.parse(source, SCOPE), ENV)
    assert result == value and type(result) is type(value)


def test_floats_only_from_the_float_functions():
    assert ex.evaluate(ex.parse("sqrt(16)", SCOPE), ENV) == 4.0
    assert isinstance(ex.evaluate(ex.parse("log2(tokens)", SCOPE), ENV), float)
    assert isinstance(ex.evaluate(ex.parse("tokens * 0.5", SCOPE), ENV), Fraction)


@pytest.mark.parametrize(
    "source, message",
    [
        ("1 / (batch - 3)", "division by zero"),
        ("10 ** 60 * 10 ** 60", "beyond the integer bound"),
        ("(10 ** 50) ** 2", "beyond the integer bound"),
        ("exp(1000)", "is not defined"),
        ("log(0)", "is not defined"),
        ("sqrt(-1)", "is not defined"),
        ("'a' * 3", "needs a number"),
        ("'a' < 3", "text can only be compared with text"),
        ("(-8) ** 0.5", "negative number to a fractional power"),
        ("round(1, 100)", "round()'s digits"),
    ],
)
def test_evaluation_failures_are_expr_errors(source, message):
    with pytest.raises(ex.ExprError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ex.evaluate(ex.parse(source, SCOPE), ENV)


def test_a_power_past_the_bound_is_refused_before_it_is_computed(monkeypatch):
    """Every computed value passes through `checked`; the power's never does (its 4,000
    digits take microseconds, so a clock could not tell refused from computed)."""
    seen: list[object] = []
    check = ex.checked

    def spy(x):
        seen.append(x)
        return check(x)

    monkeypatch.setattr(ex, "checked", spy)
    with pytest.raises(ex.ExprError, match="integer bound"):
        ex.evaluate(ex.parse("(10 ** 64 - 1) ** 64", SCOPE), ENV)
    assert seen and all(abs(x) < ex.MAX_INT for x in seen)


_ATOMS = st.sampled_from(
    ["tokens", "batch", "model", "model.n_layers", "model.name", "1", "0", "2.5", "1e9", "'a'",
     "9", "64", "-1", "x", "__import__", "().__class__", "[]", "{}", "lambda: 0"]
)  # fmt: skip
_OPS = st.sampled_from(
    [" + ", " - ", " * ", " / ", " // ", " % ", " ** ", " < ", " == ", " and ", " or ", " if ",
     " else ", ", ", "(", ")", "[", "]", ".", " not ", "sqrt(", "max(", "round(", "exp(", "|"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_ATOMS, _OPS), max_size=40))
def test_fuzz_grammar_pieces_never_escape_expr_error(pieces):
    _parse_and_evaluate("".join(pieces))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_fuzz_any_text_never_escapes_expr_error(text):
    _parse_and_evaluate(text)


FUZZ_BUDGET = 20_000  # calls (tests/growth.py) for one expression; the fuzz's most is ~600


def _parse_and_evaluate(source: str) -> None:
    outcome: list[object] = []

    def run() -> None:
        with contextlib.suppress(ex.ExprError):
            outcome.append(ex.evaluate(ex.parse(source, SCOPE), ENV))

    calls(run, budget=FUZZ_BUDGET)  # OverBudget past it
    if not outcome:
        return
    value = outcome[0]
    if isinstance(value, Fraction):
        assert abs(value.numerator) < ex.MAX_INT and value.denominator < ex.MAX_INT
    elif isinstance(value, float):
        assert value == value and abs(value) != float("inf")
    else:
        assert isinstance(value, bool | str)


# The strings the answer reader is tested with (tests/problems/test_reader.py), and more.
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
    "[x for x in ()]",
    "1e3**9",
    "80 GB; import os",
    "1 GB\n__import__('os')",
    "globals()",
    "getattr(model, '__class__')",
    "model.__dict__",
    "(lambda: 0).__code__",
    "tokens.__class__.__mro__",
    "'%s' % tokens",
    "'a' * 10 ** 9",
    "10 ** 64 ** 64",
    "\N{FULLWIDTH DIGIT ONE}",
]


def _refuse(*args, **kwargs):
    raise AssertionError("author text must never be evaluated or compiled to code")


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.sampled_from(ADVERSARIAL), st.text(max_size=80)))
def test_never_evaluates_or_compiles_author_text(text):
    import ast
    import builtins

    real_compile = builtins.compile

    def syntax_tree_only(source, filename, mode, flags=0, *args, **kwargs):
        assert flags & ast.PyCF_ONLY_AST, "compiled to code"
        return real_compile(source, filename, mode, flags, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(builtins, "eval", _refuse)
        mp.setattr(builtins, "exec", _refuse)
        mp.setattr(builtins, "compile", syntax_tree_only)
        _parse_and_evaluate(text)
