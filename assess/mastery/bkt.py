"""Bayesian Knowledge Tracing: pure functions, no Django, no database.

The model (Corbett & Anderson 1995, "Knowledge tracing: Modeling the acquisition of
procedural knowledge", User Modeling and User-Adapted Interaction 4:253-278) is a
two-state hidden Markov model per learner and skill. The hidden state is "knows the
skill" (L) or not (U). Before the first attempt P(L) = p_init. Each attempt emits one
observation:

    P(correct | L) = 1 - p_slip        P(correct | U) = p_guess

and after each attempt an unknown skill becomes known with probability p_learn. A
known skill is never forgotten (p_forget = 0, see `BKTParams`).

`update()` is the O(1) online step used after each graded attempt. `fit()` estimates
the four parameters of one skill from many learners' answer sequences by
expectation-maximisation; fitting every skill is the caller's loop.

All probabilities are plain floats. The numbers `p` handled here always mean "P(the
learner knows the skill before the next attempt)".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

__all__ = [
    "DEFAULT_NUMERIC",
    "DEFAULT_PARAMS",
    "FIT_MAX_SLIP_GUESS",
    "MASTERED",
    "BKTParams",
    "FitResult",
    "fit",
    "is_mastered",
    "LessonSummary",
    "lesson_mastery",
    "lesson_summary",
    "summary_of",
    "log_likelihood",
    "params_for_kind",
    "simulate",
    "update",
    "update_score",
    "weakest_unmastered",
]

# Mastery criterion: the value used by the Cognitive Tutors that BKT was built for
# (Corbett & Anderson 1995) and the usual choice since.
MASTERED = 0.95


@dataclass(frozen=True)
class BKTParams:
    """The four parameters of standard BKT for one skill (or one kind of answer).

    p_init   P(L) before the learner's first attempt at the skill.
    p_learn  P(U -> L) after each attempt (the "transit" probability).
    p_slip   P(wrong | L): knows it, answers wrong anyway (typo, unit slip, rounding).
    p_guess  P(right | U): does not know it, answers right anyway.

    p_forget is fixed at 0, as in standard BKT, and is not a field. With forgetting the
    known state stops being absorbing, p_forget trades off against p_slip and p_learn
    and cannot be told apart from them on the short, within-lesson sequences we see,
    and "mastered" would never be stable. Forgetting across days is a
    spaced-repetition concern and belongs in a separate layer, not in this model.

    Validation: every parameter lies in the open interval (0, 1) (a 0 or 1 makes some
    observation impossible, and one surprising answer would then give 0/0), and
    p_slip + p_guess < 1. At p_slip + p_guess = 1, P(correct) is the same in both
    states, so answers carry no information. Above 1 a right answer becomes evidence
    of *not* knowing: the two states swap labels, which is the degenerate model.
    """

    p_init: float
    p_learn: float
    p_slip: float
    p_guess: float

    def __post_init__(self) -> None:
        for name in ("p_init", "p_learn", "p_slip", "p_guess"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TypeError(f"{name} must be a number, got {value!r}")
            if not 0.0 < value < 1.0:  # also refuses NaN
                raise ValueError(f"{name} must lie strictly between 0 and 1, got {value!r}")
        if not self.p_slip + self.p_guess < 1.0:
            raise ValueError(
                "p_slip + p_guess must be below 1 (otherwise answers carry no evidence "
                f"or the states swap), got {self.p_slip} + {self.p_guess}"
            )

    @property
    def p_forget(self) -> float:
        """Always 0: standard BKT has no forgetting (see the class docstring)."""
        return 0.0


# Defaults for the priors, used until a skill has enough data to be fitted.
#
# p_init 0.2, p_learn 0.15 and p_slip 0.1 are the customary starting values for BKT
# (weak prior knowledge, a few attempts to learn, an occasional slip). p_guess is
# usually quoted around 0.2 to 0.3, but that figure comes from tutors with
# multiple-choice or short-list answers. Our numeric and integer parts are free-form
# numbers checked to a tolerance: hitting e.g. 80.5 GB/s within 1 % without knowing
# the method is rare. We use 0.05, which still leaves room for lucky
# order-of-magnitude guesses and for integer answers with a few plausible values.
# p_slip stays at 0.1 because free-form arithmetic invites slips: units, powers of ten,
# rounding.
DEFAULT_NUMERIC = BKTParams(p_init=0.2, p_learn=0.15, p_slip=0.1, p_guess=0.05)
DEFAULT_PARAMS = DEFAULT_NUMERIC
# Choice parts keep these values except p_guess, which becomes 1 / number of choices
# (a blind pick): see params_for_kind().


def params_for_kind(
    kind: str, n_choices: int | None = None, *, base: BKTParams = DEFAULT_NUMERIC
) -> BKTParams:
    """The parameters for a part of the given kind ("numeric", "integer" or "choice").

    Numeric and integer parts use `base` unchanged. Choice parts use `base` with
    p_guess = 1 / n_choices, the chance of a blind pick. `kind` may be the problems
    engine's `Kind` (a StrEnum) or its string value; this module does not import the
    engine.
    """
    kind = str(kind)
    if kind in ("numeric", "integer"):
        return base
    if kind == "choice":
        if n_choices is None or isinstance(n_choices, bool) or n_choices < 2:
            raise ValueError(f"a choice part needs n_choices >= 2, got {n_choices!r}")
        return replace(base, p_guess=1.0 / n_choices)
    raise ValueError(f"unknown part kind {kind!r}")


# ------------------------------------------------------------------------------ online


def _check_probability(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a number, got {value!r}")
    if not 0.0 <= value <= 1.0:  # also refuses NaN
        raise ValueError(f"{name} must lie in [0, 1], got {value!r}")
    return float(value)


def _posteriors(p: float, params: BKTParams) -> tuple[float, float]:
    """(P(L | correct), P(L | wrong)) by Bayes' rule, for prior P(L) = p."""
    s, g = params.p_slip, params.p_guess
    # Correct, written as p / (p + (1-p) * g/(1-s)). Since g <= 1-s the ratio is at
    # most 1, so the denominator is at most 1 even after rounding and the posterior
    # is never below p. The textbook form p(1-s) / (p(1-s) + (1-p)g) can round to a
    # hair below p, and then a right answer would lower the estimate.
    right = p / (p + (1.0 - p) * (g / (1.0 - s)))
    # Wrong: the textbook form, p s / (p s + (1-p)(1-g)). Its denominator is positive
    # because s > 0 and g < 1.
    wrong = p * s / (p * s + (1.0 - p) * (1.0 - g))
    return right, wrong


def _transition(posterior: float, params: BKTParams) -> float:
    """P(L) before the next attempt: known stays known, unknown learns with p_learn."""
    nxt = posterior + (1.0 - posterior) * params.p_learn
    return min(1.0, max(0.0, nxt))


def update(p_mastery: float, correct: bool, params: BKTParams = DEFAULT_PARAMS) -> float:
    """One BKT step: the posterior given this answer, then the learning transition.

        post = p(1-s) / (p(1-s) + (1-p)g)        if correct
        post = p s    / (p s    + (1-p)(1-g))    if wrong
        next = post + (1-post) * p_learn

    A right answer never lowers the estimate (this follows from p_slip + p_guess < 1).
    A wrong answer lowers the posterior, but p_learn can lift the next value above the
    old one when p was low. The learner still had a chance to learn from the attempt.
    """
    p = _check_probability("p_mastery", p_mastery)
    right, wrong = _posteriors(p, params)
    return _transition(right if correct else wrong, params)


def update_score(p_mastery: float, score: float, params: BKTParams = DEFAULT_PARAMS) -> float:
    """`update()` for partial credit: the two posteriors mixed linearly by score.

        post = score * P(L | correct) + (1 - score) * P(L | wrong)

    then the usual transition. score 1 and score 0 give exactly update(True) and
    update(False). Because the transition is affine, the result is also
    score * update(p, True) + (1 - score) * update(p, False).

    This is a pragmatic extension and not classic BKT, which only sees right or wrong
    answers. It treats a score as the chance that the answer "counts as" right. It is
    not the Bayes posterior under any emission model of graded scores.
    """
    p = _check_probability("p_mastery", p_mastery)
    x = _check_probability("score", score)
    right, wrong = _posteriors(p, params)
    return _transition(x * right + (1.0 - x) * wrong, params)


def is_mastered(p_mastery: float) -> bool:
    """Whether P(L) has reached the mastery criterion MASTERED (0.95)."""
    return p_mastery >= MASTERED


def _skill_p(skill_ps: Mapping[str, float], skill: str, params: BKTParams) -> float:
    return skill_ps.get(skill, params.p_init)


def lesson_mastery(
    skill_ps: Mapping[str, float], skills: Sequence[str], params: BKTParams = DEFAULT_PARAMS
) -> float:
    """A lesson's mastery: the MINIMUM of P(L) over the lesson's skills.

    A lesson is mastered only when every one of its skills is. The mean would let one
    strong skill hide a weak one: (0.99 + 0.99 + 0.5) / 3 = 0.83 reads as "nearly
    there", but the learner will fail every question that needs the third skill.
    Skills missing from `skill_ps` (never attempted) count at params.p_init. A lesson
    with no skills has no evidence to report, so that raises ValueError.
    """
    if not skills:
        raise ValueError("a lesson needs at least one skill to have a mastery")
    return min(_skill_p(skill_ps, s, params) for s in skills)


@dataclass(frozen=True)
class LessonSummary:
    """A lesson's mastery as a learner can read it: how many of its skills are mastered,
    and which skill holds it back. A bare minimum over skills (lesson_mastery) sits at
    the prior for as long as one skill is unpractised, without saying why."""

    skills: int
    mastered: int
    weakest: str  # the lowest P(L), ties to the first listed
    weakest_p: float

    @property
    def share(self) -> float:
        return self.mastered / self.skills

    @property
    def complete(self) -> bool:
        return self.mastered == self.skills


def lesson_summary(
    skill_ps: Mapping[str, float], skills: Sequence[str], params: BKTParams = DEFAULT_PARAMS
) -> LessonSummary:
    """Share of the lesson's skills mastered, and its weakest skill (unseen skills count
    at params.p_init). Raises ValueError for a lesson with no skills."""
    return summary_of(skills, [_skill_p(skill_ps, s, params) for s in skills])


def summary_of(skills: Sequence[str], ps: Sequence[float]) -> LessonSummary:
    """lesson_summary from the estimates themselves, `ps[i]` being `skills[i]`'s (unseen
    skills already at the prior): a table of thousands of learners has them in this
    order and need not build a mapping per lesson to have them looked up again."""
    if not skills:
        raise ValueError("a lesson needs at least one skill to have a mastery")
    if len(ps) != len(skills):
        raise ValueError("one estimate per skill")
    mastered, weakest = tally(ps)
    return LessonSummary(
        skills=len(skills), mastered=mastered, weakest=skills[weakest], weakest_p=ps[weakest]
    )


def tally(ps: Sequence[float]) -> tuple[int, int]:
    """(how many of the estimates are mastered, the index of the lowest: the first of
    equal lows), for a non-empty list: a lesson's summary in two numbers."""
    return sum(map(is_mastered, ps)), min(range(len(ps)), key=ps.__getitem__)


def tally_rows(ps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """tally of each row of a (learners x skills) array at once, by the same rule
    (is_mastered's MASTERED; argmin's first of equal lows): the progress CSV's two
    figures for every learner of a course, where a summary a learner and lesson was
    half the download's time (a test holds the two to the same answers)."""
    return (ps >= MASTERED).sum(axis=1), ps.argmin(axis=1)


def weakest_unmastered(
    skill_ps: Mapping[str, float], skills: Sequence[str], params: BKTParams = DEFAULT_PARAMS
) -> str | None:
    """The skill to practise next: the lowest P(L) among skills below MASTERED.

    Unseen skills count at params.p_init. Ties go to the skill listed first in
    `skills`. Returns None when every skill is mastered (or `skills` is empty).
    """
    best: str | None = None
    best_p = math.inf
    for skill in skills:
        p = _skill_p(skill_ps, skill, params)
        if not is_mastered(p) and p < best_p:  # strict: the first of equals wins
            best, best_p = skill, p
    return best


# ------------------------------------------------------------------------------ fitting

# Bounds that fit() keeps the parameters in. Slip and guess are capped just below
# 0.5. A "fit" with slip or guess above 0.5 is the label-switched solution, where
# "knows" behaves like "doesn't know" (Baker, Corbett & Aleven 2008 call these fits
# degenerate). The cap also keeps p_slip + p_guess < 1, so every iterate is a valid
# BKTParams. The floor keeps every observation possible, so the log-likelihood stays
# finite.
FIT_MIN = 1e-4
FIT_MAX_SLIP_GUESS = 0.5 - FIT_MIN
_BOUNDS = {
    "p_init": (FIT_MIN, 1.0 - FIT_MIN),
    "p_learn": (FIT_MIN, 1.0 - FIT_MIN),
    "p_slip": (FIT_MIN, FIT_MAX_SLIP_GUESS),
    "p_guess": (FIT_MIN, FIT_MAX_SLIP_GUESS),
}


@dataclass(frozen=True)
class FitResult:
    """What fit() found.

    params          the fitted parameters.
    log_likelihood  the natural-log likelihood of the data under `params`.
    iterations      how many EM updates ran (M-steps).
    converged       whether the per-answer log-likelihood gain fell below tol before
                    max_iter.
    history         log-likelihood before the first update and after each one
                    (len == iterations + 1). EM guarantees it never decreases.
    """

    params: BKTParams
    log_likelihood: float
    iterations: int
    converged: bool
    history: tuple[float, ...] = ()


def _clamped(values: Mapping[str, float]) -> BKTParams:
    """BKTParams from raw values, each clamped into its `_BOUNDS` interval."""
    return BKTParams(
        **{name: min(hi, max(lo, float(values[name]))) for name, (lo, hi) in _BOUNDS.items()}
    )


def _as_values(params: BKTParams) -> dict[str, float]:
    return {name: getattr(params, name) for name in _BOUNDS}


def _padded(rows: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    width = max(r.size for r in rows)
    obs = np.zeros((len(rows), width), dtype=bool)
    mask = np.zeros((len(rows), width), dtype=bool)
    for i, r in enumerate(rows):
        obs[i, : r.size] = r
        mask[i, : r.size] = True
    return obs, mask


def _groups(sequences: Sequence[Sequence[bool]]) -> list[tuple[np.ndarray, np.ndarray]]:
    """The sequences padded in groups of similar length (up to 4, 16, 64, ... answers).

    One matrix padded to the longest sequence costs learners x longest cells: a few
    learners with a thousand answers on a skill among thousands with three made a skill's
    fit of 1.2 million answers run for minutes, nearly all of it on padding. Grouped, the
    padding is at most three times the answers. Sequences are independent, so the
    likelihood and the E-step's counts are sums over groups: the fit is the same."""
    rows = [np.asarray(seq, dtype=bool).reshape(-1) for seq in sequences]
    rows = [r for r in rows if r.size]
    if not rows:
        raise ValueError("no observations: every sequence is empty")
    by_size: dict[int, list[np.ndarray]] = {}
    for r in rows:
        bound = 4
        while bound < r.size:
            bound *= 4
        by_size.setdefault(bound, []).append(r)
    return [_padded(by_size[bound]) for bound in sorted(by_size)]


def _emissions(obs: np.ndarray, mask: np.ndarray, params: BKTParams) -> np.ndarray:
    """P(observation | state), shape (n, T, 2) with state 0 = U and 1 = L.

    Padded steps past a sequence's end emit with probability 1 in both states. They
    then change neither the likelihood nor the posteriors of the real steps.
    """
    s, g = params.p_slip, params.p_guess
    b = np.empty(obs.shape + (2,))
    b[..., 0] = np.where(obs, g, 1.0 - g)
    b[..., 1] = np.where(obs, 1.0 - s, s)
    b[~mask] = 1.0
    return b


def _forward(b: np.ndarray, params: BKTParams) -> tuple[np.ndarray, np.ndarray]:
    """Scaled forward pass: (alpha_hat (n, T, 2), scale c (n, T)); log P = sum log c."""
    n, t_len, _ = b.shape
    learn = params.p_learn
    alpha = np.empty((n, t_len, 2))
    c = np.empty((n, t_len))
    a = np.empty((n, 2))
    a[:, 0] = (1.0 - params.p_init) * b[:, 0, 0]
    a[:, 1] = params.p_init * b[:, 0, 1]
    for t in range(t_len):
        if t:
            prev = alpha[:, t - 1]
            # alpha @ A with A = [[1-learn, learn], [0, 1]]
            a[:, 0] = prev[:, 0] * (1.0 - learn) * b[:, t, 0]
            a[:, 1] = (prev[:, 0] * learn + prev[:, 1]) * b[:, t, 1]
        c[:, t] = a.sum(axis=1)
        alpha[:, t] = a / c[:, t, None]
    return alpha, c


def _loglik(c: np.ndarray) -> float:
    # Padded steps have scale 1 and add log 1 = 0.
    return float(np.log(c).sum())


def log_likelihood(sequences: Sequence[Sequence[bool]], params: BKTParams) -> float:
    """Natural-log likelihood of the answer sequences (one per learner) under params.

    The sequences are independent, so the total is the sum over learners. Empty
    sequences contribute 0.
    """
    total = 0.0
    for obs, mask in _groups(sequences):
        _, c = _forward(_emissions(obs, mask, params), params)
        total += _loglik(c)
    return total


def _e_step(obs: np.ndarray, mask: np.ndarray, params: BKTParams) -> tuple[float, dict]:
    """Forward-backward: the log-likelihood and the expected counts for the M-step."""
    b = _emissions(obs, mask, params)
    alpha, c = _forward(b, params)
    n, t_len, _ = b.shape
    learn = params.p_learn

    beta = np.ones((n, t_len, 2))
    # Expected U->L transitions and time spent in U before a real transition.
    xi_ul = np.zeros(n)
    for t in range(t_len - 2, -1, -1):
        w = b[:, t + 1] * beta[:, t + 1]  # (n, 2)
        # A @ w with A = [[1-learn, learn], [0, 1]], divided by the next scale.
        beta[:, t, 0] = ((1.0 - learn) * w[:, 0] + learn * w[:, 1]) / c[:, t + 1]
        beta[:, t, 1] = w[:, 1] / c[:, t + 1]
        step = mask[:, t + 1]  # a real transition t -> t+1
        xi_ul += np.where(step, alpha[:, t, 0] * learn * w[:, 1] / c[:, t + 1], 0.0)

    gamma = alpha * beta  # (n, T, 2), each real step sums to 1
    gamma[~mask] = 0.0
    in_u_before_step = gamma[:, :-1, 0][mask[:, 1:]].sum()
    counts = {
        "init_l": gamma[:, 0, 1].sum(),
        "n": float(n),
        "ul": xi_ul.sum(),
        "u_before_step": in_u_before_step,
        "l_wrong": gamma[..., 1][mask & ~obs].sum(),
        "l_total": gamma[..., 1].sum(),
        "u_right": gamma[..., 0][mask & obs].sum(),
        "u_total": gamma[..., 0].sum(),
    }
    return _loglik(c), counts


def _e_steps(groups, params: BKTParams) -> tuple[float, dict]:
    """_e_step over each group of sequences (_groups), summed."""
    total, summed = 0.0, {}
    for obs, mask in groups:
        ll, counts = _e_step(obs, mask, params)
        total += ll
        for key, value in counts.items():
            summed[key] = summed.get(key, 0.0) + value
    return total, summed


def _m_step(counts: dict, old: BKTParams) -> BKTParams:
    """Closed-form maximiser of the expected complete-data log-likelihood, in bounds.

    The expected log-likelihood splits into one Bernoulli term per parameter, and each
    term is concave in its parameter alone. So clamping each unconstrained maximiser to
    its interval gives the exact maximiser over the box. The result is still a true EM
    step, and the likelihood never decreases.
    """

    def ratio(num: float, den: float, fallback: float) -> float:
        return num / den if den > 0.0 else fallback

    return _clamped(
        {
            "p_init": ratio(counts["init_l"], counts["n"], old.p_init),
            "p_learn": ratio(counts["ul"], counts["u_before_step"], old.p_learn),
            "p_slip": ratio(counts["l_wrong"], counts["l_total"], old.p_slip),
            "p_guess": ratio(counts["u_right"], counts["u_total"], old.p_guess),
        }
    )


def fit(
    sequences: Sequence[Sequence[bool]],
    *,
    init: BKTParams | None = None,
    max_iter: int = 500,
    tol: float = 1e-9,
) -> FitResult:
    """Fit one skill's BKT parameters by expectation-maximisation (Baum-Welch).

    `sequences` holds one learner's answers in order per entry (True = right), all on
    the same skill. Lengths may differ, and empty sequences are ignored. This is
    Baum-Welch for the two-state left-to-right HMM (no forgetting). The forward-backward
    pass is scaled and vectorised over learners, and loops over positions. To fit
    every skill, the caller loops over skills.

    Parameters stay inside the bounds in `_BOUNDS`: slip and guess in [1e-4, 0.5 - 1e-4],
    which rules out the label-switched solution; init and learn in [1e-4, 1 - 1e-4].
    `init` (default DEFAULT_PARAMS) is clamped into those bounds first. The run stops
    when one EM update gains less than `tol` in log-likelihood per observed answer, or
    after `max_iter` updates. The default tolerance runs EM near its maximum: on the
    pyBKT reference data (tests/assess/data/bkt-reference) it takes 8-17 updates, at
    most 0.08 s a skill, and lands within 0.0005 of pyBKT's ten-restart fit; 1e-6
    stopped a few updates short (within 0.0009).

    EM finds a local maximum. BKT's likelihood surface is known to have several, so
    start from plausible values (the defaults are) when the data are thin.
    """
    if max_iter < 0:
        raise ValueError("max_iter must be >= 0")
    groups = _groups(sequences)
    n_obs = int(sum(mask.sum() for _, mask in groups))
    params = _clamped(_as_values(init if init is not None else DEFAULT_PARAMS))

    ll, counts = _e_steps(groups, params)
    history = [ll]
    converged = False
    iterations = 0
    while iterations < max_iter:
        new = _m_step(counts, params)
        new_ll, counts = _e_steps(groups, new)
        iterations += 1
        history.append(new_ll)
        gain = new_ll - ll
        params, ll = new, new_ll
        if gain < tol * n_obs:
            converged = True
            break
    return FitResult(
        params=params,
        log_likelihood=ll,
        iterations=iterations,
        converged=converged,
        history=tuple(history),
    )


# ------------------------------------------------------------------------------ simulate


def simulate(
    rng: np.random.Generator, params: BKTParams, n_learners: int, n_steps: int
) -> list[list[bool]]:
    """Answer sequences drawn from the BKT generative model, one list per learner.

    Each learner starts knowing the skill with p_init. At each step they answer
    (right with 1 - p_slip if they know it, p_guess if not), then learn with p_learn.
    """
    if n_learners < 0 or n_steps < 0:
        raise ValueError("n_learners and n_steps must be >= 0")
    knows = rng.random(n_learners) < params.p_init
    answers = np.empty((n_steps, n_learners), dtype=bool)
    for t in range(n_steps):
        u = rng.random(n_learners)
        answers[t] = np.where(knows, u >= params.p_slip, u < params.p_guess)
        knows |= rng.random(n_learners) < params.p_learn
    return answers.T.tolist()
