"""The practice session's choice of template and the words beside a mastery change:
pure functions (assess.mastery.practice), no database."""

from __future__ import annotations

import random

import pytest

from assess.mastery.practice import change_note, practice_pick

SKILLS = {
    "a": ("s1", "s2"),
    "b": ("s2", "s3"),
    "c": ("s4",),
    "d": ("s1", "s5"),
}


def session(templates, n, *, skill_ps=None, seed=0, drawn=()):
    drawn = list(drawn)
    for i in range(n):
        pick = practice_pick(
            templates=templates,
            skills_of=SKILLS,
            skill_ps=skill_ps or {},
            drawn=drawn,
            rng=random.Random(seed * 1000 + i),
        )
        drawn.append(pick.template)
    return drawn


@pytest.mark.parametrize("seed", range(40))
def test_a_session_goes_round_the_lessons_templates(seed):
    drawn = session(list(SKILLS), 10, seed=seed)
    assert set(drawn[:4]) == set(SKILLS)  # four questions, four templates (was one, five times)
    assert set(drawn[4:8]) == set(SKILLS)  # and round again
    assert all(x != y for x, y in zip(drawn, drawn[1:], strict=False))  # never twice in a row


@pytest.mark.parametrize("seed", range(20))
def test_no_template_twice_in_a_row_across_rounds_even_when_one_is_weakest(seed):
    # "c" holds by far the weakest skill: adaptivity would ask it every time.
    ps = {"s1": 0.9, "s2": 0.9, "s3": 0.9, "s4": 0.01, "s5": 0.9}
    drawn = session(list(SKILLS), 12, skill_ps=ps, seed=seed)
    assert drawn[0] == "c"  # the weakest first within a round
    assert all(x != y for x, y in zip(drawn, drawn[1:], strict=False))
    assert drawn.count("c") == 3  # once a round, not every question


def test_within_a_round_the_weakest_unmastered_skill_comes_first():
    ps = {"s1": 0.99, "s2": 0.5, "s3": 0.3, "s4": 0.97, "s5": 0.99}
    pick = practice_pick(
        templates=list(SKILLS), skills_of=SKILLS, skill_ps=ps, drawn=[], rng=random.Random(1)
    )
    assert (pick.template, pick.skill) == ("b", "s3")
    # mastered skills do not count as weakest: "d" (s1, s5 both mastered) comes last
    order = session(list(SKILLS), 4, skill_ps=ps)
    assert order[-1] == "d"


def test_a_lesson_of_one_template_repeats_it():
    assert session(["c"], 3) == ["c", "c", "c"]


def test_two_templates_alternate():
    drawn = session(["a", "b"], 6, seed=3)
    assert all(x != y for x, y in zip(drawn, drawn[1:], strict=False))


def test_a_template_removed_from_the_lesson_is_skipped_in_the_round():
    # "z" was asked before the lesson dropped it: it neither counts nor comes back.
    drawn = session(["a", "b"], 2, drawn=["z", "a"])
    assert drawn[2:] == ["b", "a"]


def test_no_templates_is_a_value_error():
    with pytest.raises(ValueError):
        practice_pick(templates=[], skills_of={}, skill_ps={}, drawn=[], rng=random.Random(0))


# ----------------------------------------------------------------------- change_note


def note(**kw):
    base = {"correct": True, "evidence": True, "try_number": 1, "hinted": False, "steps": {}}
    return change_note(**{**base, **kw})


def test_a_first_try_right_says_how_much_it_raised():
    assert note(steps={"s1": (0.40, 0.52)}) == "+12%: a first try right"


def test_a_first_try_wrong_says_how_much_it_lowered():
    assert note(correct=False, steps={"s1": (0.20, 0.17)}) == "−3%: a first try wrong"


def test_skills_that_moved_differently_are_each_named_in_words():
    text = note(
        steps={"s1": (0.40, 0.52), "s2": (0.60, 0.69)},
        names={"s1": "Bytes of weights", "s2": "GB and GiB"},
    )
    assert text == "+12% Bytes of weights, +9% GB and GiB: a first try right"


def test_skills_that_moved_alike_read_as_one_figure():
    assert note(steps={"s1": (0.40, 0.52), "s2": (0.401, 0.52)}) == "+12%: a first try right"


def test_a_step_too_small_to_show_says_so():
    assert note(steps={"s1": (0.995, 0.996)}) == "no change in the figure: a first try right"


@pytest.mark.parametrize(
    ("try_number", "said"),
    [(2, "no change: second try"), (3, "no change: third try"), (7, "no change: try 7")],
)
def test_a_later_try_changes_nothing_and_says_which_try(try_number, said):
    assert note(evidence=False, try_number=try_number, correct=True) == said


def test_an_answer_after_a_hint_changes_nothing_and_says_so():
    assert note(evidence=False, hinted=True) == "no change: answered after a hint"


def test_no_evidence_without_a_known_reason_still_says_no_change():
    assert note(evidence=False).startswith("no change")


def test_an_exams_counted_answer_says_so_once_released():
    text = note(counted=True, steps={"s1": (0.20, 0.82)})
    assert text == "+62%: the exam's counted answer right"


def test_an_exam_answer_that_did_not_count_says_nothing():
    assert note(counted=True, evidence=False, try_number=2) == ""


@pytest.mark.parametrize("seed", range(20))
def test_a_session_opens_on_the_lessons_first_problem_whatever_its_seed(seed):
    """With nothing to tell them apart, the first pick was a draw seeded by the
    session's ids, so the opening problem depended on the database's sequences."""
    templates = ["weights-memory", "kv-cache-per-token", "training-memory-adam"]
    pick = practice_pick(
        templates=templates,
        skills_of={t: [f"{t}-skill"] for t in templates},
        skill_ps={},
        drawn=[],
        rng=random.Random(seed),
    )
    assert pick.template == "weights-memory"
