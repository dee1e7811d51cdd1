"""The expression language of authored templates: parsed by an allow-list, evaluated exactly.

An instructor's answers, constraints and inserted values are expressions such as
`2 * model.n_layers * model.n_kv_heads * model.head_dim * 2 * tokens`. They are author
text, so they are never handed to `eval`, `exec`, `compile` or a CAS parser. The text is
measured first (length, bracket nesting), then read by `ast.parse(mode="eval")`, which
only builds a syntax tree, and that tree is accepted only if every node is one the
language allows (spec: shared/spec/authoring.md): numbers, strings, parameter names, a
catalog record's scalar fields, arithmetic, comparisons, `and`/`or`/`not`, `x if c else
y`, and calls of the listed functions by name. Anything else (attribute chains, dunder
names, subscripts, lambdas, comprehensions, keyword arguments, other calls) is refused
with a message naming what was found.

Every bound is a count checked before or during the work, never a timeout, so whether an
expression is accepted does not depend on how busy the machine is:

- at most MAX_CHARS characters, brackets nested at most MAX_DEPTH deep (checked on the raw
  text before the parser sees it: CPython's parser recurses on nested brackets) and a
  syntax tree at most MAX_DEPTH deep;
- an exponent at most MAX_EXPONENT in absolute value, and an exact power whose result
  would exceed the integer bound is refused before it is computed;
- every exact value's numerator and denominator below 10**100 (MAX_INT), every float
  finite.

Exact numbers are `fractions.Fraction` (a decimal literal such as 0.1 is read as 1/10);
`sqrt`, `exp`, `log`, `log2` and `log10` give floats (double precision), as does any
arithmetic with a float. Comparisons give booleans; a parameter naming a catalog record
reads as the record's slug.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from problems.authored.numbers import (
    ARITY,
    FUNCTIONS,
    MAX_BITS,
    MAX_CHARS,
    MAX_DEPTH,
    MAX_EXPONENT,
    MAX_INT,
    MAX_STRING,
    ExprError,
    Value,
    checked,
    exact,
    finite,
    from_number,
    num,
    show,
)

__all__ = [
    "MAX_CHARS",
    "MAX_DEPTH",
    "MAX_EXPONENT",
    "MAX_INT",
    "Env",
    "Expr",
    "ExprError",
    "FUNCTIONS",
    "Scope",
    "Value",
    "checked",
    "evaluate",
    "finite",
    "from_number",
    "parse",
]

# -------------------------------------------------------------------------- parsing

_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
_CMPOPS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_UNARY = (ast.USub, ast.UAdd, ast.Not)

# What a refused node is called in the message an author reads.
_REFUSED = {
    ast.Lambda: "a lambda",
    ast.ListComp: "a comprehension",
    ast.SetComp: "a comprehension",
    ast.DictComp: "a comprehension",
    ast.GeneratorExp: "a comprehension",
    ast.Subscript: "a subscript ([...])",
    ast.Starred: "a starred argument",
    ast.NamedExpr: "an assignment (:=)",
    ast.JoinedStr: "an f-string",
    ast.Await: "await",
    ast.Yield: "yield",
    ast.Tuple: "a tuple",
    ast.List: "a list",
    ast.Set: "a set",
    ast.Dict: "a dict",
}
_OPERATORS = {
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.MatMult: "@",
    ast.BitOr: "|",
    ast.BitAnd: "&",
    ast.BitXor: "^",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.Invert: "~",
}


def bracket_depth(text: str) -> int:
    """The deepest nesting of (), [] and {} outside string literals, counted on the raw
    text in one pass."""
    depth = deepest = 0
    quote = ""
    for ch in text:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in ")]}":
            depth -= 1
    return deepest


@dataclass(frozen=True)
class Expr:
    """A parsed, accepted expression and the parameter names it reads."""

    source: str
    tree: ast.expr
    names: frozenset[str]


# scope: parameter name -> None for a plain value, or the fields its catalog record has
# (a mapping field -> whether every record the parameter may draw gives it a value).
Scope = Mapping[str, Collection[str] | None]


def parse(text: Any, scope: Scope) -> Expr:
    """Read and accept an expression, or raise ExprError saying why not."""
    if isinstance(text, bool) or not isinstance(text, str | int | float):
        raise ExprError("an expression must be text or a number")
    text = text if isinstance(text, str) else repr(text)
    if len(text) > MAX_CHARS:
        raise ExprError(f"the expression is {len(text):,} characters; at most {MAX_CHARS:,}")
    if not text.strip():
        raise ExprError("the expression is empty")
    if bracket_depth(text) > MAX_DEPTH:
        raise ExprError(f"brackets are nested more than {MAX_DEPTH} deep")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as err:
        raise ExprError(f"not a valid expression ({err.msg})") from None
    except (ValueError, RecursionError, MemoryError):
        raise ExprError("not a valid expression") from None
    names: set[str] = set()
    _accept(tree.body, scope, names, 1)
    return Expr(text, tree.body, frozenset(names))


def _accept(node: ast.AST, scope: Scope, names: set[str], depth: int) -> None:
    if depth > MAX_DEPTH:
        raise ExprError(f"the expression is nested more than {MAX_DEPTH} levels deep")
    deeper = depth + 1
    if isinstance(node, ast.Constant):
        _accept_constant(node.value)
    elif isinstance(node, ast.Name):
        _accept_name(node.id, scope, names)
    elif isinstance(node, ast.Attribute):
        _accept_field(node, scope, names)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, _BINOPS):
        _accept(node.left, scope, names, deeper)
        _accept(node.right, scope, names, deeper)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, _UNARY):
        _accept(node.operand, scope, names, deeper)
    elif isinstance(node, ast.BoolOp):
        for value in node.values:
            _accept(value, scope, names, deeper)
    elif isinstance(node, ast.Compare) and all(isinstance(op, _CMPOPS) for op in node.ops):
        for value in (node.left, *node.comparators):
            _accept(value, scope, names, deeper)
    elif isinstance(node, ast.IfExp):
        for value in (node.test, node.body, node.orelse):
            _accept(value, scope, names, deeper)
    elif isinstance(node, ast.Call):
        _accept_call(node, scope, names, deeper)
    elif isinstance(node, ast.BinOp | ast.UnaryOp | ast.Compare):
        ops = node.ops if isinstance(node, ast.Compare) else [node.op]
        bad = next(op for op in ops if not isinstance(op, _BINOPS + _CMPOPS + _UNARY))
        name = _OPERATORS.get(type(bad), type(bad).__name__)
        power = " (a power is written **)" if name == "^" else ""
        raise ExprError(f"the operator '{name}' is not allowed in an expression{power}")
    else:
        what = _REFUSED.get(type(node), f"'{type(node).__name__}'")
        raise ExprError(f"{what} is not allowed in an expression")


def _accept_constant(value: Any) -> None:
    if isinstance(value, str):
        if len(value) > MAX_STRING:
            raise ExprError(f"a string literal is longer than {MAX_STRING} characters")
    elif isinstance(value, bool):
        return
    elif isinstance(value, int):
        if abs(value) >= MAX_INT:
            raise ExprError("a number reaches 10^100, beyond the integer bound")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ExprError("a number is not finite")
        exact(Fraction(repr(value)))
    else:
        raise ExprError(f"the constant {value!r} is not allowed (numbers and quoted text)")


def _accept_name(name: str, scope: Scope, names: set[str]) -> None:
    if name.startswith("_"):
        raise ExprError(f"names starting with '_' are not allowed ({name!r})")
    if name in FUNCTIONS:
        raise ExprError(f"{name!r} is a function: call it, as {name}(...)")
    if name not in scope:
        raise ExprError(f"unknown name {name!r}")
    names.add(name)


def _accept_field(node: ast.Attribute, scope: Scope, names: set[str]) -> None:
    base = node.value
    if not isinstance(base, ast.Name) or node.attr.startswith("_"):
        raise ExprError("attributes are allowed only as a catalog record's field (gpu.name)")
    _accept_name(base.id, scope, names)
    fields = scope[base.id]
    if fields is None:
        raise ExprError(f"{base.id!r} is not a catalog record, so it has no field {node.attr!r}")
    if node.attr not in fields:
        raise ExprError(f"{base.id!r} has no field {node.attr!r}")
    if isinstance(fields, Mapping) and not fields[node.attr]:
        raise ExprError(f"{base.id}.{node.attr} is not known for every record {base.id} may draw")


def _accept_call(node: ast.Call, scope: Scope, names: set[str], depth: int) -> None:
    func = node.func
    if not isinstance(func, ast.Name) or func.id not in FUNCTIONS:
        if isinstance(func, ast.Name):
            what = repr(func.id)
        elif isinstance(func, ast.Attribute):
            what = f"a method ({func.attr!r})"
        else:
            what = "this"
        raise ExprError(f"calling {what} is not allowed; functions: {', '.join(FUNCTIONS)}")
    if node.keywords:
        raise ExprError(f"{func.id}() takes no keyword arguments")
    low, high = ARITY.get(func.id, (1, 1))
    if not low <= len(node.args) <= high:
        raise ExprError(f"{func.id}() takes {low}{'' if low == high else f' to {high}'} values")
    for arg in node.args:
        _accept(arg, scope, names, depth)


# ------------------------------------------------------------------------ evaluation

# env: parameter name -> its value, or a catalog record's fields by name.
Env = Mapping[str, Any]


def evaluate(expr: Expr, env: Env) -> Value:
    """The expression's value for these parameters; ExprError when it has none (a division
    by zero, a bound crossed, text where a number is needed)."""
    try:
        return _eval(expr.tree, env)
    except ExprError:
        raise
    except ZeroDivisionError:
        raise ExprError("division by zero") from None
    except KeyError as err:
        raise ExprError(f"no value for {err.args[0]!r}") from None
    except (OverflowError, ValueError, TypeError, ArithmeticError):
        raise ExprError("the expression cannot be evaluated with these values") from None


def _eval(node: ast.AST, env: Env) -> Value:
    if isinstance(node, ast.Constant):
        v = node.value
        return v if isinstance(v, bool | str) else from_number(v)
    if isinstance(node, ast.Name):
        value = env[node.id]
        return value["slug"] if isinstance(value, Mapping) else value
    if isinstance(node, ast.Attribute):
        value = env[node.value.id][node.attr]  # type: ignore[attr-defined]
        if value is None:
            raise ExprError(f"{node.value.id}.{node.attr} is not known for this record")  # type: ignore[attr-defined]
        return value
    if isinstance(node, ast.BinOp):
        return _binop(node.op, _eval(node.left, env), _eval(node.right, env))
    if isinstance(node, ast.UnaryOp):
        operand = _eval(node.operand, env)
        if isinstance(node.op, ast.Not):
            return not operand
        x = num(operand, "a sign")
        return checked(-x if isinstance(node.op, ast.USub) else x)
    if isinstance(node, ast.BoolOp):
        want = isinstance(node.op, ast.Or)
        for value in node.values:
            if bool(_eval(value, env)) is want:
                return want
        return not want
    if isinstance(node, ast.Compare):
        return _compare(node, env)
    if isinstance(node, ast.IfExp):
        return _eval(node.body if _eval(node.test, env) else node.orelse, env)
    if isinstance(node, ast.Call):
        args = [_eval(a, env) for a in node.args]
        return checked(FUNCTIONS[node.func.id](*args))  # type: ignore[attr-defined]
    raise ExprError(f"'{type(node).__name__}' is not allowed in an expression")


def _compare(node: ast.Compare, env: Env) -> bool:
    left = _eval(node.left, env)
    for op, right_node in zip(node.ops, node.comparators, strict=True):
        right = _eval(right_node, env)
        if isinstance(left, str) != isinstance(right, str) and not isinstance(
            op, ast.Eq | ast.NotEq
        ):
            raise ExprError("text can only be compared with text")
        if not _COMPARE[type(op)](left, right):
            return False
        left = right
    return True


_COMPARE: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
}


def _binop(op: ast.operator, left: Value, right: Value) -> Value:
    a, b = num(left, "arithmetic"), num(right, "arithmetic")
    if isinstance(op, ast.Pow):
        return _power(a, b)
    if isinstance(op, ast.Add):
        return checked(a + b)
    if isinstance(op, ast.Sub):
        return checked(a - b)
    if isinstance(op, ast.Mult):
        return checked(a * b)
    if b == 0:
        raise ExprError("division by zero")
    if isinstance(op, ast.Div):
        return checked(a / b)
    if isinstance(op, ast.FloorDiv):
        return checked(a // b)
    return checked(a % b)


def _power(a: Fraction | float, b: Fraction | float) -> Value:
    if abs(b) > MAX_EXPONENT:
        raise ExprError(f"an exponent of {show(b)} is beyond the bound of {MAX_EXPONENT}")
    if isinstance(a, Fraction) and isinstance(b, Fraction) and b.denominator == 1:
        e = abs(b.numerator)
        bits = max(a.numerator.bit_length(), a.denominator.bit_length()) - 1
        if bits * e > MAX_BITS:  # refused before it is computed
            raise ExprError("a power reaches 10^100, beyond the integer bound")
        if a == 0 and b < 0:
            raise ExprError("division by zero")
        return checked(a**b.numerator)
    if a < 0:
        raise ExprError("a negative number to a fractional power")
    if a == 0 and b < 0:
        raise ExprError("division by zero")
    return checked(float(a) ** float(b))
