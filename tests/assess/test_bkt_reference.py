"""BKT fit() against pyBKT 1.4.3 on the shared reference sequences (pure: no Django).

The data are `../shared/spec/bkt-reference/` (see the README vendored beside them): four
skills A-D, each 2,000 simulated learners x 12 first tries, and pyBKT's fit of them. We
vendor a copy under tests/assess/data/bkt-reference/ so the suite runs where ../shared is
absent. pyBKT cannot run in this environment (numpy 2.x) and took 37-93 s per skill, so its
figures are stored rather than computed.

pyBKT stands in for an independent implementation of the same maximum-likelihood problem.
Agreement within 0.002 on every parameter says our E-step, M-step and stopping rule find the
same optimum, not just "a plausible" one. The looser check against the generating
parameters says the data and the grouping are what we think they are.

fit() is called with its defaults, because that is the call the product makes. It stops
after 4 to 10 EM updates here (about 0.02-0.03 s per skill) and lands within 0.001 of
pyBKT. Running EM to tol=1e-10 moves the estimates by at most 0.0008 and leaves a
single optimum from random starts, so one start suffices and pyBKT's 10 restarts have
nothing to add.
"""

from __future__ import annotations

import csv
import gzip
import json
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest

from assess.mastery.bkt import BKTParams, FitResult, fit

DATA = Path(__file__).parent / "data" / "bkt-reference"
SHARED = Path(__file__).resolve().parents[3] / "shared"
SHARED_DATA = SHARED / "spec" / "bkt-reference"
VENDORED = ("README.md", "pybkt-fit.json", "sequences.csv.gz")

PARAMS = ("p_init", "p_learn", "p_slip", "p_guess")
SKILLS = ("A", "B", "C", "D")

# The agreement the spec asks of a correct fit, per parameter, absolute.
PYBKT_TOLERANCE = 0.002
# Sanity bound against the generating parameters, absolute. These are one finite sample:
# the maximum-likelihood estimate itself sits up to 0.027 from the truth (D's p_init,
# the least determined parameter: only the first answers speak to it and it trades off
# against p_learn; its sampling SD here is about 0.012). So this only catches gross
# errors such as misgrouped rows or swapped labels, never small ones.
TRUTH_TOLERANCE = 0.03

REFERENCE = json.loads((DATA / "pybkt-fit.json").read_text())


@cache
def sequences_by_skill() -> dict[str, list[list[bool]]]:
    """skill -> one answer list per learner, each ordered by order_id.

    Rows are grouped per (skill, user) and sorted on the integer order_id, not taken in
    file order, so a reordered file cannot silently change the sequences.
    """
    rows: dict[tuple[str, str], list[tuple[int, bool]]] = defaultdict(list)
    with gzip.open(DATA / "sequences.csv.gz", "rt", newline="") as handle:
        for row in csv.DictReader(handle):
            correct = {"0": False, "1": True}[row["correct"]]
            rows[row["skill_name"], row["user_id"]].append((int(row["order_id"]), correct))
    by_skill: dict[str, list[list[bool]]] = defaultdict(list)
    for (skill, _user), tries in sorted(rows.items()):
        tries.sort()
        assert len({order for order, _ in tries}) == len(tries), "duplicate order_id"
        by_skill[skill].append([correct for _, correct in tries])
    return dict(by_skill)


@cache
def fitted(skill: str) -> FitResult:
    """The default fit of one skill, shared by the tests below (it is deterministic)."""
    return fit(sequences_by_skill()[skill])


def _mismatches(params: BKTParams, want: dict[str, float], tolerance: float) -> list[str]:
    return [
        f"{name}: ours {getattr(params, name):.6f}, reference {want[name]:.6f}, "
        f"off by {abs(getattr(params, name) - want[name]):.6f} > {tolerance}"
        for name in PARAMS
        if not abs(getattr(params, name) - want[name]) <= tolerance  # NaN fails too
    ]


@pytest.mark.parametrize("name", VENDORED)
def test_vendored_copy_matches_shared(name):
    """The vendored file is byte-identical to ../shared's; skipped only without ../shared."""
    if not SHARED.exists():
        pytest.skip("../shared is not beside this checkout")
    assert (DATA / name).read_bytes() == (SHARED_DATA / name).read_bytes(), name


def test_reference_data_shape():
    """Four skills of 2,000 learners x 12 tries, as the README and the json say."""
    generated = REFERENCE["generated_with"]
    assert generated["true_params_order"] == list(PARAMS)
    by_skill = sequences_by_skill()
    assert sorted(by_skill) == sorted(SKILLS) == sorted(REFERENCE["pybkt_1_4_3_fit"])
    for skill in SKILLS:
        assert len(by_skill[skill]) == generated["n_learners"], skill
        assert {len(seq) for seq in by_skill[skill]} == {generated["n_steps"]}, skill


@pytest.mark.parametrize("skill", SKILLS)
def test_fit_matches_pybkt(skill):
    """Every parameter within 0.002 of pyBKT 1.4.3's fit of the same sequences."""
    result = fitted(skill)
    assert result.converged, f"skill {skill}: EM hit max_iter after {result.iterations} updates"
    want = REFERENCE["pybkt_1_4_3_fit"][skill]
    bad = _mismatches(result.params, want, PYBKT_TOLERANCE)
    assert not bad, f"skill {skill} vs pyBKT: " + "; ".join(bad)


@pytest.mark.parametrize("skill", SKILLS)
def test_fit_recovers_generating_parameters(skill):
    """Loosely (0.03) near the parameters the sequences were simulated from."""
    truth = dict(zip(PARAMS, REFERENCE["generated_with"]["sets"][skill], strict=True))
    bad = _mismatches(fitted(skill).params, truth, TRUTH_TOLERANCE)
    assert not bad, f"skill {skill} vs generating parameters: " + "; ".join(bad)
