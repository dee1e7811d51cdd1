"""Every symbol in a worked solution's formulas is defined in the text (issue 17: "G c n u"
stood in the max-sequences solution with no word for c or n), and names of more than one
letter are set upright, not as a product of italic letters.

A symbol counts as defined when the statement or the solution names it in inline maths on
its own or as the left side of an equation (`$u = 0.9$`, "each of $d_h$ elements"), or
when it is the left side of one of the solution's displayed formulas (the formula defines
it: $W = N b_w$). Over a few variants of every registered template.
"""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET
from functools import cache

import pytest

from problems.engine import registry
from problems.engine.render import latex_to_mathml

MML = "{http://www.w3.org/1998/Math/MathML}"
SEEDS = range(6)
MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)
FENCE = re.compile(r"^(```|~~~)[^\n]*\n.*?^\1[ \t]*$", re.S | re.M)
# Upright text (\mathrm, \text, \operatorname; one level of nested braces) and commands.
UPRIGHT = re.compile(r"\\(?:mathrm|text|operatorname|textrm)\{(?:[^{}]|\{[^{}]*\})*\}")
COMMAND = re.compile(r"\\[A-Za-z]+")
RUN = re.compile(r"(?<![A-Za-z])[A-Za-z]{2,}(?![A-Za-z])")
CONSTANTS = {"e"}  # Euler's number, in e^{-x}
PREFIXES = {"Δ"}  # \Delta T is one quantity, a change in T


def segments(markdown: str) -> list[tuple[str, bool]]:
    """(latex, is_display) of each formula outside fenced tool output."""
    text = FENCE.sub("", markdown)
    return [
        (m.group(1) if m.group(1) is not None else m.group(2), m.group(1) is not None)
        for m in MATH.finditer(text)
    ]


@cache
def symbols(latex: str) -> frozenset[str]:
    """The variables in a formula: italic one-letter identifiers, a subscripted one with its
    subscript (M_token, b_w); upright identifiers (units, names) are no variables."""
    mathml = re.sub(
        r"&#x([0-9A-Fa-f]+);", lambda m: chr(int(m.group(1), 16)), latex_to_mathml(latex)
    )
    root = ET.fromstring(mathml)  # noqa: S314 (our own renderer's output)
    found, inside = set(), set()
    for el in root.iter():
        if el.tag in (MML + "msub", MML + "msubsup"):
            base, sub = list(el)[:2]
            if base.tag == MML + "mi":
                inside.update(id(x) for x in (*base.iter(), *sub.iter()))
                if base.get("mathvariant") != "normal":
                    found.add(f"{''.join(base.itertext())}_{''.join(sub.itertext())}")
    for mi in root.iter(MML + "mi"):
        text = "".join(mi.itertext())
        if id(mi) in inside or mi.get("mathvariant") == "normal":
            continue
        if len(text) == 1 and text.isalpha():
            found.add(text)
    return frozenset(found - CONSTANTS - PREFIXES)


def named(latex: str) -> frozenset[str]:
    """What an inline formula names: its one symbol, or the one on the left of its `=`."""
    head = latex.split("=")[0]
    try:
        found = symbols(head)
    except Exception:  # a head cut mid-group ("\frac{a" of "\frac{a=b}{c}"): names nothing
        return frozenset()
    return found if len(found) == 1 else frozenset()


def undefined_symbols(statement: str, solution: str) -> dict[str, str]:
    """{symbol: the displayed formula it appears in} for every symbol nobody defined."""
    defined: set[str] = set()
    for latex, display in segments(statement) + segments(solution):
        if not display:
            defined |= named(latex)
    displayed = [latex for latex, display in segments(solution) if display]
    for latex in displayed:
        if "=" in latex:
            defined |= symbols(latex.split("=")[0])
    return {s: latex.strip() for latex in displayed for s in symbols(latex) - defined}


def italic_runs(markdown: str) -> list[str]:
    """Runs of letters a formula sets as a product of italic variables (`ND`, `max`)."""
    out = []
    for latex, _ in segments(markdown):
        bare = COMMAND.sub(" ", UPRIGHT.sub(" ", latex))
        out += RUN.findall(bare)
    return out


def variants():
    for template in registry.all_templates():
        for seed in SEEDS:
            yield template, seed


def texts(template, seed) -> tuple[str, str]:
    params = template.generate(random.Random(seed))
    return template.statement(params), template.solution(params)


@pytest.mark.parametrize("template", registry.all_templates(), ids=lambda t: t.slug)
def test_every_symbol_of_a_worked_solution_is_defined(template):
    missing = {}
    for seed in SEEDS:
        for symbol, where in undefined_symbols(*texts(template, seed)).items():
            missing.setdefault(symbol, f"seed {seed}: {where[:120]}")
    assert missing == {}


@pytest.mark.parametrize("template", registry.all_templates(), ids=lambda t: t.slug)
def test_names_longer_than_a_letter_are_upright(template):
    runs = set()
    for seed in SEEDS:
        statement, solution = texts(template, seed)
        runs |= set(italic_runs(statement) + italic_runs(solution))
    assert runs == set()


def test_the_check_finds_an_undefined_symbol_and_accepts_a_definition():
    formula = r"$$ n_{\max} = \frac{G c n u - W}{s} = 3 $$"
    assert set(undefined_symbols("Each has $G = 80$ GiB.", formula)) == {"c", "n", "u", "W", "s"}
    text = "Here $n = 2$ is the devices, $c = 2^{30}$, $u = 0.9$, $W$ the weights, $s$ a length."
    assert undefined_symbols("Each has $G = 80$ GiB.", text + "\n\n" + formula) == {}
    # A formula on the left of an inline equation defines only what stands alone there.
    assert "n" in undefined_symbols("", "Budget $n G = 4$.\n\n$$ x = n G $$")
    assert italic_runs(r"$t = \frac{6 ND}{P}$ and $\mathrm{GPU}$") == ["ND"]
