"""Stepwise hints (problems.engine.hints): every template has some, none gives an answer.

The sweep checks each hint against the solution's own words, independently of the
engine's leak check: the last step, every bold answer statement, every equation's
result, each numeric answer as the solutions print it (6 significant figures, with
thousands separators), each word answer as a word. A second sweep reads every number a
hint prints as a mantissa and power of ten, so that an answer below 10 printed in other
units (4.015 GB as 4.015130624 x 10^9 bytes) or one part's answer used by the next
step (0.53125 bytes per parameter) is caught too: the first sweep missed both, and a
CI run's page leak check found them.
"""

from __future__ import annotations

import math
import re

import pytest

from problems.engine import registry
from problems.engine.hints import hint_steps, hints_for, redact, solution_steps
from problems.engine.numbers import sig
from problems.engine.variants import Variant

SEEDS = (1, 2, 3)
MORE_SEEDS = range(4, 40)
PRINTED = re.compile(r"(?<![\d.])\d[\d,]*(?:\.\d+)?")
BOLD = re.compile(r"\*\*(.+?)\*\*", re.S)


def _leaks(hint: str, variant: Variant) -> list[str]:
    found = []
    for name, part in variant.parts.items():
        if isinstance(part.value, str):
            if re.search(rf"(?<![\w-]){re.escape(part.value)}", hint, re.I):
                found.append(f"{name}={part.value!r}")
        elif abs(float(part.value)) >= 10 and re.search(
            rf"(?<![\d.,]){re.escape(sig(float(part.value)))}(?![\d,])", hint
        ):
            found.append(f"{name}={sig(float(part.value))}")
    for bold in BOLD.findall(hint):
        if bold != "?":
            found.append(f"bold {bold!r}")
    for eq in re.findall(r"\$\$(.+?)\$\$", hint, re.S):
        if not eq.rstrip().endswith("= \\,?"):
            found.append(f"equation result {eq!r}")
    return found


def _variants(seeds):
    """(slug, seed, variant) for every template and seed."""
    for template in registry.all_templates():
        for seed in seeds:
            yield template.slug, seed, Variant.from_seed(template.slug, seed)


def test_every_template_has_hints_that_never_state_an_answer():
    problems = []
    for slug, seed, variant in _variants(SEEDS):
        hints = hints_for(variant)
        last = solution_steps(variant.solution_markdown())[-1]
        if not hints:
            problems.append(f"{slug} seed {seed}: no hint")
        for hint in hints:
            assert (hint.total, hint.markdown) != (0, "")
            leaks = _leaks(hint.markdown, variant)
            if last.strip() in hint.markdown or leaks:
                problems.append(f"{slug} seed {seed} hint {hint.index}: {leaks}")
        assert [h.index for h in hints] == list(range(1, len(hints) + 1))
        assert {h.total for h in hints} <= {len(hints)}
    assert not problems, "\n".join(problems)


def _mantissa(value: float) -> float:
    return abs(value) / 10 ** math.floor(math.log10(abs(value)))


def _printed_as_mantissa(hint: str, value: float) -> list[str]:
    """Numbers of three figures or more in the hint whose mantissa is the answer's to
    4 significant figures, whatever power of ten they carry."""
    target = _mantissa(value)
    found = []
    for text in PRINTED.findall(hint.replace("{,}", ",")):  # LaTeX's 8{,}192
        digits = text.replace(",", "").replace(".", "").strip("0")
        number = float(text.replace(",", ""))
        if len(digits) >= 3 and number and abs(_mantissa(number) - target) <= 5e-4 * target:
            found.append(text)
    return found


def test_no_hint_prints_an_answer_in_other_units_or_for_the_next_part_and_each_has_one():
    problems = []
    for slug, seed, variant in _variants(MORE_SEEDS):
        shown = hints_for(variant)
        if not shown:  # a check too eager leaves nothing (leaf-spine, 9 seeds in 100)
            problems.append(f"{slug} seed {seed}: no hint")
        hints = " ".join(h.markdown for h in shown)
        for name, part in variant.parts.items():
            if isinstance(part.value, str) or not part.value:
                continue
            if float(part.value).is_integer() and abs(part.value) < 100:
                continue  # a count of GPUs or leaves: small whole numbers are everywhere
            for text in _printed_as_mantissa(hints, float(part.value)):
                problems.append(f"{slug} seed {seed} {name}={part.value}: {text}")
    assert not problems, "\n".join(problems)


def test_steps_join_an_equation_to_its_prose_and_keep_fences_whole():
    md = "Intro $a = 1$.\n\n$$ x = a b = 2 \\times 3 = 6 $$\n\n```\nout\n\nmore\n```\n\nSo **6**."
    assert solution_steps(md) == [
        "Intro $a = 1$.\n\n$$ x = a b = 2 \\times 3 = 6 $$",
        "```\nout\n\nmore\n```",
        "So **6**.",
    ]


def test_redact_cuts_results_and_bold_answers():
    step = (
        "The leaves are **30 leaves**:\n\n$$ L = \\frac{2 N}{k} = \\frac{2 \\times 600}{40} = 30 $$"
    )
    assert redact(step) == (
        "The leaves are **?**:\n\n$$ L = \\frac{2 N}{k} = \\frac{2 \\times 600}{40} = \\,? $$"
    )


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        # the answer in other units (365 GB as bytes) drops the sentence
        (
            "First we add. So it is 365,072,220,160 bytes. Then.\n\nEnd **365.072 GB**.",
            ["First we add."],
        ),
        # a word answer in the first clause: the clauses before it stay
        (
            "The scheduler counted 5, so the cause is selector here.\n\nEnd.",
            ["The scheduler counted 5 …"],
        ),
        # scientific notation is read as a number too
        ("Bytes: $3.6507 \\times 10^{11}$ in all. Fine.\n\nEnd.", []),
        # an answer below 10 as bytes (4.015 GB) and as the fraction a count rounds
        ("FP4 halves it. It is $4.015130624 \\times 10^{9}$ bytes.\n\nEnd.", ["FP4 halves it."]),
        ("We divide the budget. That gives 1,012.736 blocks.\n\nEnd.", ["We divide the budget."]),
        # but a small number printed to fewer than three figures is no answer
        ("It uses 4 bits. Then 0.5 bytes.\n\nEnd.", ["It uses 4 bits. Then 0.5 bytes."]),
        # nor a short number scaled (the 2 of 40^2 / 2 is no 20 leaves), nor a short
        # fraction beside a whole answer (about 11.8 GB is no 12 pods)
        ("So $\\frac{40^{2}}{2}$ endpoints.\n\nEnd.", ["So $\\frac{40^{2}}{2}$ endpoints."]),
        ("Slices of about 11.8 GB each.\n\nEnd.", ["Slices of about 11.8 GB each."]),
    ],
)
def test_a_step_that_states_an_answer_gives_what_comes_before_it(text, kept):
    answers = {
        "per_gpu": 365.07222016,
        "cause": "selector",
        "gb": 4.015130624,
        "blocks": 1012,
        "leaves": 20,
        "pods": 12,
    }
    assert hint_steps(text, answers) == kept
