"""Which problem a practice session asks next, and why a mastery estimate moved: pure
functions, no Django, no database (the services pass what they read).

Interleaving: a session that asks one template five times over trains one recipe, not
the lesson, and a learner who sees the same problem back to back learns its shape
rather than its idea. So a session goes round the lesson's templates: within a round
each template is asked once, the one exercising the weakest unmastered skill first
(adaptivity kept inside the round); no template comes twice in a row while the lesson
has another. A lesson of one template repeats it, there being nothing else.

Explanations: a learner who sees 20% become 17% after a wrong answer and 82% after an
exam's one right answer, with no word why, stops trusting the figure. `change_note`
says in words what moved the estimate and by how much, from the answer's stored steps
(MasteryEvent: p before and after per skill) and whether it counted as evidence.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from assess.mastery.bkt import DEFAULT_PARAMS, BKTParams, is_mastered

ORDINALS = {2: "second", 3: "third", 4: "fourth", 5: "fifth"}


@dataclass(frozen=True)
class Pick:
    template: str
    skill: str  # the skill the template was chosen for: its weakest (unmastered) one


def _round_left(templates: Sequence[str], drawn: Sequence[str]) -> list[str]:
    """The templates not yet asked in the current round; a new round starts once every
    template was asked."""
    every = set(templates)
    seen: set[str] = set()
    for slug in drawn:
        if slug in every:
            seen.add(slug)
            if seen == every:
                seen = set()
    return [t for t in templates if t not in seen]


def practice_pick(
    *,
    templates: Sequence[str],
    skills_of: Mapping[str, Sequence[str]],
    skill_ps: Mapping[str, float],
    drawn: Sequence[str],
    rng: random.Random,
    params: BKTParams = DEFAULT_PARAMS,
) -> Pick:
    """The next template of a session: among those the current round has not asked
    (never the one just asked while another remains), the one whose weakest unmastered
    skill is lowest; ties drawn with `rng`, except the session's first pick, which takes
    the first tied template in the lesson's order. `drawn`: the session's templates so far, in
    order. Raises ValueError without templates."""
    if not templates:
        raise ValueError("a practice session needs at least one template")
    left = _round_left(templates, drawn)
    if drawn and len(templates) > 1:
        left = [t for t in left if t != drawn[-1]]

    def p(skill: str) -> float:
        return skill_ps.get(skill, params.p_init)

    def weakest(template: str) -> tuple[bool, float, str]:
        skills = list(skills_of.get(template) or ())
        if not skills:
            return (True, 1.0, "")
        open_ = [s for s in skills if not is_mastered(p(s))]
        pool = open_ or skills
        skill = min(pool, key=lambda s: (p(s), skills.index(s)))
        return (not open_, p(skill), skill)

    keyed = {t: weakest(t) for t in left}
    best = min(k[:2] for k in keyed.values())
    tied = [t for t in left if keyed[t][:2] == best]
    # A session opens on the lesson's first tied problem (its reading order), whatever
    # the session's id; later ties are drawn, so sessions differ after the first.
    template = tied[0] if not drawn else rng.choice(tied)
    return Pick(template=template, skill=keyed[template][2])


def _points(before: float, after: float) -> int:
    return round(after * 100) - round(before * 100)


def _signed(points: int) -> str:
    return f"+{points}%" if points > 0 else f"−{-points}%"  # a minus sign, read "minus"


def change_note(
    *,
    correct: bool,
    evidence: bool,
    try_number: int,
    hinted: bool,
    steps: Mapping[str, tuple[float, float]],
    names: Mapping[str, str] | None = None,
    counted: bool = False,
) -> str:
    """Why an answer moved (or did not move) the learner's mastery, beside the answer:
    "+12%: a first try right", "−3%: a first try wrong", "no change: second try",
    "no change: answered after a hint". `steps`: {skill: (p before, p after)} as stored
    for this answer (empty when it was no evidence); with several skills that moved
    differently each is named ("+12% Bytes of weights, +9% GB and GiB: ..."), in
    words from `names` (skill -> words). `counted`: an exam's answer, whose last saved
    try counts once the grades are released ("+62%: the exam's counted answer right");
    an exam answer that was not counted says nothing ("")."""
    if counted:
        if not evidence or not steps:
            return ""
        why = "the exam's counted answer " + ("right" if correct else "wrong")
        return _moved_note(steps, names, why)
    if not evidence or not steps:
        if try_number > 1:
            nth = f"{ORDINALS[try_number]} try" if try_number in ORDINALS else f"try {try_number}"
            return f"no change: {nth}"
        if hinted:
            return "no change: answered after a hint"
        return "no change: this answer does not count as evidence"
    why = "a first try right" if correct else "a first try wrong"
    return _moved_note(steps, names, why)


def _moved_note(
    steps: Mapping[str, tuple[float, float]], names: Mapping[str, str] | None, why: str
) -> str:
    moved = {skill: _points(before, after) for skill, (before, after) in sorted(steps.items())}
    if len(set(moved.values())) == 1:
        points = next(iter(moved.values()))
        return f"{_signed(points)}: {why}" if points else f"no change in the figure: {why}"
    names = names or {}
    each = ", ".join(
        f"{_signed(points)} {names.get(skill, skill)}"
        if points
        else f"±0% {names.get(skill, skill)}"
        for skill, points in sorted(moved.items(), key=lambda kv: (-abs(kv[1]), kv[0]))
    )
    return f"{each}: {why}"
