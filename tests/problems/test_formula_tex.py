"""formula_tex.json against sympy: every template's formula as symbols, its symbols'
names and its substituted form come out exactly as sympy.latex prints them, and a
serving process renders every worked solution without importing sympy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from problems.engine import formula_tex, typeset_formulas
from problems.engine.numbers import tex
from problems.engine.solutions import Formula, formula, step

ROOT = Path(__file__).resolve().parents[2]

TEMPLATE_FORMULAS = typeset_formulas.template_formulas()
# Values as templates pass them: numbers (written by tex(), some in powers of ten) and
# ready LaTeX, with and without a superscript, negative, with thin spaces.
LATEX_VALUES = ("2^{30}", "10^{21}", "-3", r"24\,000", r"1.5 \times 10^{-3}", r"\frac{1}{2}")
VALUES = st.one_of(
    st.floats(min_value=-1e25, max_value=1e25, allow_nan=False).filter(lambda x: x != 0),
    st.integers(min_value=-(10**9), max_value=10**9),
    st.sampled_from(LATEX_VALUES),
)


def sympy_substituted(f: Formula, values: dict) -> str:
    """What Formula.substituted returned when it called sympy itself (the code before)."""
    names = {
        f.symbols[k]: v if isinstance(v, str) else tex(v)
        for k, v in values.items()
        if k in f.symbols
    }
    return sympy.latex(f.expr, symbol_names=names, mul_symbol="times")


def test_the_file_is_current():
    text = typeset_formulas.render_file(typeset_formulas.current_entries())
    assert formula_tex.PATH.read_text(encoding="utf-8") == text, (
        "problems/engine/formula_tex.json is stale: run `make formulas`"
    )


def test_every_template_formula_is_read_from_the_file():
    assert len(TEMPLATE_FORMULAS) > 90
    missing = [f.origin for f in TEMPLATE_FORMULAS if formula_tex.lookup(f) is None]
    assert missing == []


@pytest.mark.parametrize("f", TEMPLATE_FORMULAS, ids=lambda f: f.origin)
def test_symbolic_names_and_every_symbol_substituted_match_sympy(f):
    assert f.symbolic == sympy.latex(f.expr)
    for key in f.names:
        assert f.printed.names[key] == sympy.latex(f.symbols[key])
    for value in (*LATEX_VALUES, 7, 0.125, 3.2e22):
        every = dict.fromkeys(f.names, value)
        assert f.substituted(every) == sympy_substituted(f, every)
    assert f.substituted({}) == sympy_substituted(f, {})


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_substituted_matches_sympy_for_drawn_values(data):
    f = data.draw(st.sampled_from(TEMPLATE_FORMULAS))
    keys = data.draw(st.lists(st.sampled_from(sorted(f.names)), unique=True))
    values = {key: data.draw(VALUES) for key in keys}
    values["not_a_symbol"] = 1.0  # ignored, as before
    assert f.substituted(values) == sympy_substituted(f, values)


def test_a_formula_the_file_does_not_know_is_typeset_by_sympy():
    f = formula("E", lambda s: s.x**2 * s.y / s.z, x="x", y=r"y_{\mathrm{a}}", z="z")
    assert formula_tex.lookup(f) is None
    values = {"x": "10^{21}", "y": 4, "z": 2.5}
    assert f.substituted(values) == sympy_substituted(f, values)
    assert r"\left(10^{21}\right)^{2}" in f.substituted(values)
    assert step(f, values, 1.0) == (
        f"$$ E = {sympy.latex(f.expr)} = {sympy_substituted(f, values)} = 1 $$"
    )


def test_an_entry_declared_otherwise_is_not_used():
    kept = TEMPLATE_FORMULAS[0]
    renamed = Formula(lhs=kept.lhs + "'", build=kept.build, names=kept.names, origin=kept.origin)
    other_names = Formula(
        lhs=kept.lhs, build=kept.build, names={**kept.names, "extra": "X"}, origin=kept.origin
    )
    rebuilt = Formula(
        lhs=kept.lhs, build=lambda s: kept.build(s) * 2, names=kept.names, origin=kept.origin
    )
    assert formula_tex.lookup(kept) is not None
    assert formula_tex.lookup(renamed) is None
    assert formula_tex.lookup(other_names) is None
    assert formula_tex.lookup(rebuilt) is None
    assert rebuilt.symbolic == sympy.latex(rebuilt.expr)  # typeset afresh, not the entry's


def test_a_build_s_fingerprint_follows_its_code_not_its_place():
    def one(s):
        return s.a * 2

    def same(s):
        return s.a * 2

    assert formula_tex.fingerprint(one) == formula_tex.fingerprint(same)
    assert formula_tex.fingerprint(one) != formula_tex.fingerprint(lambda s: s.a * 3)
    assert formula_tex.fingerprint(one) != formula_tex.fingerprint(lambda s: s.b * 2)
    busbw = [f for f in TEMPLATE_FORMULAS if f.lhs == r"\mathrm{busbw}"]
    assert len({formula_tex.fingerprint(f.build) for f in busbw}) == len(busbw) == 3


def test_a_power_base_with_a_superscript_is_braced_only_where_sympy_braces_it():
    printed = formula_tex.FormulaTex(
        symbolic="", names={"p": "p", "r": "r"}, skeleton=r"\frac{⟦p^⟧^{⟦r⟧}}{⟦p⟧}"
    )
    both = printed.fill({"p": "2^{3}", "r": "2^{2}"})
    assert both == r"\frac{\left(2^{3}\right)^{2^{2}}}{2^{3}}"
    assert printed.fill({"p": "8"}) == r"\frac{8^{r}}{8}"


def test_serving_renders_every_worked_solution_without_sympy():
    """A fresh process warmed as a worker is, then every template's worked solution for
    three seeds: sympy is never imported."""
    script = (
        "import sys, django; django.setup()\n"
        "from config.warmup import warm; warm()\n"
        "from problems.engine import registry\n"
        "from problems.engine.variants import Variant\n"
        "for t in registry.all_templates():\n"
        "    for seed in (1, 2, 3):\n"
        "        Variant.from_seed(t.slug, seed).solution_html()\n"
        "print('sympy' in sys.modules)\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings_test"}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert done.stdout.strip().splitlines()[-1] == "False", done.stderr[-2000:]
