"""Assembling a certification form per attempt (issue 41, item 3): one template per slot,
no template twice, so that every form measures well at the cut, forms are about as hard
as each other, and no template is on more than a stated share of forms.

The reference form is the one assembled to the most information at the cut: slot by slot,
the fewest-choice slots first, the unused template of the pool with the most information
there (a greedy pass: the exact maximum is an assignment problem, and pools barely
overlap). A candidate's form takes, per slot, one of the `m` most informative unused
templates of its pool at random, m = ceil(1 / exposure limit) where the pool allows it
(the randomesque method: Kingsbury and Zara, 1989, Applied Measurement in Education
2(4), 359-375), so within a slot whose pool holds m or more no template is drawn with a
chance above the limit. It is kept when its information at the cut is at least
TARGET_RATIO of the reference's, and its test characteristic curve (expected score)
stays within BAND_PER_ITEM points per item of the reference's over theta in [-2, 2];
otherwise it is drawn again, up to TRIES times, after which the best candidate is taken
and said to miss (a pool too narrow for the targets; the report shows the spread).
Pure: no database, the randomness from the caller's generator.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from certify.psychometrics.twopl import expected_score, item_information

EXPOSURE_LIMIT = 0.6  # no template on more than 60% of the forms, where its pool allows
TARGET_RATIO = 0.6  # a form's information at the cut: at least this of the reference's
BAND_PER_ITEM = 0.15  # expected-score curve within 0.15 points per item of the reference
TRIES = 40
GRID = np.linspace(-2.0, 2.0, 21)


@dataclass(frozen=True)
class Form:
    templates: tuple[str, ...]  # one per slot, in slot order
    information: float  # test information at the cut
    tcc_gap: float  # the largest |expected score - the reference's| over the grid, points
    meets: bool  # both targets met


def _info(template: str, params: Mapping[str, tuple[float, float]], cut: float) -> float:
    a, b = params[template]
    return float(item_information(cut, a, b))


def _ranked(pool: Sequence[str], used: set[str], params, cut: float) -> list[str]:
    free = [t for t in dict.fromkeys(pool) if t not in used]
    return sorted(free, key=lambda t: (-_info(t, params, cut), t))


def _order(pools: Sequence[Sequence[str]]) -> list[int]:
    return sorted(range(len(pools)), key=lambda i: (len(set(pools[i])), i))


def reference_form(
    pools: Sequence[Sequence[str]], params: Mapping[str, tuple[float, float]], cut: float
) -> tuple[str, ...]:
    """The most informative form at the cut (greedy, fewest-choice slots first). A slot
    whose pool is used up by earlier slots repeats its best template."""
    chosen: dict[int, str] = {}
    used: set[str] = set()
    for i in _order(pools):
        ranked = _ranked(pools[i], used, params, cut) or _ranked(pools[i], set(), params, cut)
        chosen[i] = ranked[0]
        used.add(ranked[0])
    return tuple(chosen[i] for i in range(len(pools)))


def _measure(form, reference, params, cut) -> tuple[float, float]:
    a = [params[t][0] for t in form]
    b = [params[t][1] for t in form]
    ra = [params[t][0] for t in reference]
    rb = [params[t][1] for t in reference]
    information = float(sum(_info(t, params, cut) for t in form))
    gap = float(np.abs(expected_score(GRID, a, b) - expected_score(GRID, ra, rb)).max())
    return information, gap


def _candidate(pools, params, cut, rng: random.Random, width: int) -> tuple[str, ...]:
    chosen: dict[int, str] = {}
    used: set[str] = set()
    for i in _order(pools):
        ranked = _ranked(pools[i], used, params, cut) or _ranked(pools[i], set(), params, cut)
        pick = rng.choice(ranked[:width])
        chosen[i] = pick
        used.add(pick)
    return tuple(chosen[i] for i in range(len(pools)))


def assemble(
    pools: Sequence[Sequence[str]],
    params: Mapping[str, tuple[float, float]],
    cut: float,
    rng: random.Random,
    *,
    exposure_limit: float = EXPOSURE_LIMIT,
    target_ratio: float = TARGET_RATIO,
    band_per_item: float = BAND_PER_ITEM,
    tries: int = TRIES,
) -> Form:
    """A form for one attempt: see the module's docstring. `params` holds (a, b) for
    every template of every pool."""
    if not 0 < exposure_limit <= 1:
        raise ValueError("the exposure limit is a share in (0, 1]")
    missing = sorted({t for pool in pools for t in pool} - set(params))
    if missing:
        raise ValueError(f"no parameters for {', '.join(missing)}")
    reference = reference_form(pools, params, cut)
    ref_info, _ = _measure(reference, reference, params, cut)
    target, band = target_ratio * ref_info, band_per_item * len(pools)
    width = math.ceil(1 / exposure_limit - 1e-9)
    best: Form | None = None
    for _ in range(tries):
        form = _candidate(pools, params, cut, rng, width)
        information, gap = _measure(form, reference, params, cut)
        found = Form(form, information, gap, information >= target and gap <= band)
        if found.meets:
            return found
        if best is None or (gap, -information) < (best.tcc_gap, -best.information):
            best = found
    assert best is not None
    return best
