"""The checks every template test shares, in one place.

`check_variant` is the per-seed harness that test_templates_sweep.py runs for every
registered template; the rest are small helpers the family test files use for their
hand-checked values and named slips. Everything goes through `Variant`, the engine's one
entry point, so the misconceptions seen here are the ones a grader can tell apart.
"""

from __future__ import annotations

import math
import random
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pydantic
import pytest
import yaml

from problems.engine import registry
from problems.engine.render import render_markdown
from problems.engine.template import Kind, Part
from problems.engine.tolerance import Exact
from problems.engine.variants import Variant


def _lesson_slugs() -> frozenset[str]:
    """Every lesson of the four courses, read from the curricula data files (plain YAML:
    the template tests stay free of the database)."""
    root = Path(__file__).resolve().parents[2] / "curricula" / "data"
    slugs = set()
    for path in sorted(root.glob("*.yaml")):
        for module in yaml.safe_load(path.read_text())["modules"]:
            slugs.update(lesson["slug"] for lesson in module["lessons"])
    return frozenset(slugs)


LESSONS = _lesson_slugs()


@dataclass(frozen=True)
class Follows:
    """A contract part unit that is whatever this parameter asks for."""

    param: str


UNIT = Follows("unit")

KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_MATH = re.compile(r"<math\b.*?</math>", re.S)
_PRE = re.compile(r"<pre\b.*?</pre>", re.S)  # tool output: a `$` there is text


def variant(slug: str, params: dict) -> Variant:
    return Variant.from_params(slug, params)


def solve(slug: str, params: dict) -> dict[str, Part]:
    return variant(slug, params).parts


def slips(slug: str, params: dict) -> dict[tuple[str, str], float | int | str]:
    """{(code, part): value} of the misconceptions the grader can name for these params."""
    return {(m.code, m.part): m.value for m in variant(slug, params).misconceptions}


def near(a: float, b: float) -> bool:
    """Within 1% of each other: a grader could not tell the two answers apart."""
    return abs(a - b) <= 0.01 * max(abs(a), abs(b))


def assert_renders(text: str) -> None:
    """The Markdown renders, every formula is well-formed MathML, and no `$` is left over
    outside a code block."""
    html = render_markdown(text)
    for block in _MATH.findall(html):
        ET.fromstring(block)  # noqa: S314 - our own rendered MathML
    assert "$" not in _PRE.sub("", _MATH.sub("", html))


def assert_bad_params_refused(slug: str, out_of_range: list[tuple[str, object]]) -> None:
    """A generated variant's parameters are refused with an unknown name added, with any
    one of them missing (but a parameter added after questions were stored, which keeps
    the stored behaviour as its default and which the generator sets), and with each
    `(name, value)` of `out_of_range` set (a name that is not a parameter is another
    unknown one)."""
    t = registry.get(slug)
    p = t.generate(random.Random(0))
    good = p.model_dump()
    late = t.Params.stored_defaults
    for name in late:
        assert name in p.model_fields_set, f"{slug}: the generator leaves {name!r} to default"
    cases = [("unknown 'surprise'", {**good, "surprise": 1})]
    cases += [
        (f"missing {name!r}", {k: v for k, v in good.items() if k != name})
        for name in good
        if name not in late
    ]
    cases += [(f"{name}={value!r}", {**good, name: value}) for name, value in out_of_range]
    for what, data in cases:
        try:
            t.parse_params(data)
        except pydantic.ValidationError:
            continue
        pytest.fail(f"{slug}: parameters with {what} were accepted")


def distinct_params(slug: str, seeds: range) -> int:
    """How many different parameter sets the generator draws over these seeds."""
    t = registry.get(slug)
    return len({tuple(sorted(t.generate(random.Random(s)).model_dump().items())) for s in seeds})


def _assert_part(part: Part, seed: int) -> None:
    if part.kind is Kind.NUMERIC:
        assert isinstance(part.value, float) and math.isfinite(part.value), (seed, part)
        assert part.value > 0, (seed, part)
    else:
        assert isinstance(part.tolerance, Exact), (seed, part)
        if part.kind is Kind.INTEGER:
            assert type(part.value) is int and part.value >= 0, (seed, part)
        else:
            assert part.value in part.choices, (seed, part)


def check_variant(slug: str, seed: int) -> set[str]:
    """Every per-variant check; returns the codes of the misconceptions it names.

    The seed gives the same parameters twice, and they survive a round trip through
    their own JSON; every part is finite (positive for numbers, whole and non-negative
    for counts, a listed word for choices); statement and solution render; and every
    misconception the grader can tell apart (Variant.misconceptions) has a kebab-case
    code and feedback, a finite value (or a listed word) 1% or more from the answer and
    from the earlier slips of its part, and grades wrong, named after its own code. A
    variant whose parts are not whole numbers names at least two different slips.
    """
    v = Variant.from_seed(slug, seed)
    t, p = v.template, v.params
    assert t.generate(random.Random(seed)) == p, seed
    assert t.parse_params(p.model_dump()) == p, seed
    for part in v.parts.values():
        _assert_part(part, seed)
    assert_renders(v.statement_markdown())
    assert_renders(v.solution_markdown())
    codes: set[str] = set()
    taken: dict[str, list] = {}
    for m in v.misconceptions:  # the ones a grader can tell apart
        assert KEBAB.match(m.code) and m.feedback, (seed, m)
        part = v.parts[m.part]
        if part.kind is Kind.CHOICE:
            assert m.value != part.value and m.value in part.choices, (seed, m)
            answer = m.value
        else:
            assert math.isfinite(m.value), (seed, m)
            assert not near(m.value, part.value), (seed, m)
            for other in taken.get(m.part, []):  # the grader names the first match
                assert not near(m.value, other), (seed, m)
            answer = repr(m.value) if part.kind is Kind.NUMERIC else str(int(m.value))
        taken.setdefault(m.part, []).append(m.value)
        graded = v.grade(m.part, answer)
        assert not graded.correct and graded.misconception == m.code, (seed, m, graded)
        codes.add(m.code)
    if all(part.kind is not Kind.INTEGER for part in v.parts.values()):
        assert len(codes) >= 2, (seed, codes)
    return codes
