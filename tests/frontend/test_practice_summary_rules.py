"""The summary's rules on rows already read (no database): a question's outcome, each
skill's change over the session, the mistakes counted by name, and what comes next."""

from __future__ import annotations

from types import SimpleNamespace

from assess.mastery import bkt
from assess.policy import question_policy
from assess.scoring import Rules
from assess.selectors import LessonMastery, SkillRow
from frontend.queries.practice import named_slips, next_step, outcome_verdict, skill_changes

PRACTICE = Rules(deferred=False)
PARTS = [{"name": "a", "weight": 1}, {"name": "b", "weight": 1}]


def tries(*marks: bool, code: str = "", feedback: str = ""):
    return [
        SimpleNamespace(
            correct=m, score=float(m), misconception="" if m else code, feedback=feedback
        )
        for m in marks
    ]


def verdict(a=(), b=(), revealed=()):
    its = {"a": tries(*a), "b": tries(*b)}
    policy = question_policy(
        parts=PARTS,
        tries=its,
        revealed=revealed,
        rules=PRACTICE,
        over=False,
        grades=True,
        learner=True,
    )
    return outcome_verdict(["a", "b"], its, set(revealed), policy)


def test_a_question_is_right_only_when_every_part_is_right_at_its_first_try():
    assert verdict(a=[True], b=[True]) == "right"
    assert verdict(a=[True], b=[False, True]) == "corrected"
    assert verdict(a=[True], b=[False]) == "wrong"
    assert verdict(a=[True]) == "wrong"  # a part left blank is not right
    assert verdict(a=[True], revealed=["b"]) == "wrong"


def test_a_question_with_no_try_is_unanswered_or_shown():
    assert verdict() == "unanswered"
    assert verdict(revealed=["a"]) == "shown"


def test_with_grades_hidden_an_answer_says_nothing_of_correctness():
    its = {"a": tries(False), "b": tries(True)}
    policy = question_policy(
        parts=PARTS,
        tries=its,
        revealed=(),
        rules=Rules(deferred=True),
        over=False,
        grades=False,
        learner=True,
    )
    assert outcome_verdict(["a", "b"], its, set(), policy) == "hidden"


def test_a_skill_changes_from_its_first_estimate_to_its_last():
    events = [("x", 0.2, 0.3), ("y", 0.5, 0.4), ("x", 0.3, 0.6), ("x", 0.6, 0.97)]
    x, y = skill_changes(events)
    assert (x.skill, x.before, x.after, x.answers) == ("x", 0.2, 0.97, 3)
    assert x.direction == "up" and x.points == 77 and x.mastered
    assert (y.direction, y.points, y.mastered) == ("down", 10, False)
    assert skill_changes([("z", 0.5, 0.502)])[0].direction == "unchanged"


def test_mistakes_are_counted_by_name_and_never_show_as_codes():
    rows = tries(False, code="gb-vs-gib", feedback="That is the size in GiB.")
    rows += tries(False, False, code="gib-read-as-gb") + tries(False, True)
    slips = named_slips(rows)
    assert [(s.name, s.count) for s in slips] == [
        ("GiB read as GB", 2),
        ("GB and GiB mixed up", 1),
    ]
    assert slips[1].example == "That is the size in GiB."


def lesson(slug: str, **ps: tuple[float, int]) -> LessonMastery:
    rows = [SkillRow(s, p, bkt.is_mastered(p), n) for s, (p, n) in ps.items()]
    summary = bkt.lesson_summary({r.skill: r.p_mastery for r in rows}, [r.skill for r in rows])
    return LessonMastery("c", slug, slug.title(), rows, summary)


def test_next_is_this_lesson_while_one_of_its_skills_is_unmastered():
    course = [lesson("one", a=(0.97, 4), b=(0.4, 2)), lesson("two", c=(0.1, 3))]
    step = next_step(course, "one")
    assert step.same_lesson and step.skill == "b" and step.estimate == 0.4


def test_next_is_the_weakest_practised_lesson_then_the_first_not_started():
    done = lesson("one", a=(0.97, 4))
    course = [
        done,
        lesson("two", c=(0.2, 0)),
        lesson("three", d=(0.5, 2)),
        lesson("four", e=(0.3, 1)),
    ]
    step = next_step(course, "one")
    assert (step.lesson.lesson, step.skill, step.estimate, step.same_lesson) == (
        "four",
        "e",
        0.3,
        False,
    )
    fresh = [done, lesson("two", c=(0.2, 0)), lesson("three", d=(0.2, 0))]
    step = next_step(fresh, "one")
    assert step.lesson.lesson == "two" and step.estimate is None  # not started: no figure


def test_nothing_is_next_once_every_skill_is_mastered():
    assert next_step([lesson("one", a=(0.97, 4)), lesson("two", b=(0.99, 5))], "one") is None
