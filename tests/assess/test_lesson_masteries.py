"""A learner's mastery of lessons from shapes computed once (the progress table's path),
and a table's figures computed at once (the progress CSV's), held to it."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from assess.mastery import bkt
from assess.selectors.mastery import LessonShape, SkillRow, lesson_figures, masteries_of
from frontend.queries.common import weakest_estimate

PRIOR = bkt.DEFAULT_PARAMS.p_init


def shape(lesson: str, slugs: tuple[str, ...], skills: tuple[str, ...]) -> LessonShape:
    unseen = tuple(SkillRow(s, PRIOR, False, 0) for s in skills)
    return LessonShape("c", lesson, lesson.title(), slugs, skills, unseen)


SHAPES = [
    shape("memory", ("gpu-memory", "kv-cache"), ("bytes", "kv")),
    shape("network", ("allreduce",), ("bytes", "ring")),
    shape("power", ("rack-power",), ("watts",)),
]
ROWS = {
    "bytes": SkillRow("bytes", 0.97, True, 4),
    "kv": SkillRow("kv", 0.4, False, 2),
}


def test_each_lesson_reads_its_skills_with_unseen_ones_at_the_prior():
    memory, network, power = masteries_of(SHAPES, ROWS, {"kv-cache": 3})
    assert (memory.answers, memory.started) == (3, True)
    assert memory.summary == bkt.lesson_summary({"bytes": 0.97, "kv": 0.4}, ["bytes", "kv"])
    # not started here, but "bytes" has evidence from elsewhere: carried, at the prior for ring
    assert (network.started, network.carried) == (False, True)
    assert (network.summary.weakest, network.summary.weakest_p) == ("ring", PRIOR)
    assert (power.started, power.carried, power.summary.mastered) == (False, False, 0)


def test_figures_of_a_table_are_each_learner_s_masteries():
    """One learner has a row on every kind of skill: mastered, not, and (ring) none."""
    figures = lesson_figures(
        SHAPES, [7, 8], [(7, "bytes", 0.97, 4), (7, "kv", 0.4, 2)], [(7, "kv-cache")]
    )
    memory, network, power = figures
    assert memory.started.tolist() == [True, False]
    assert memory.share.tolist() == [0.5, 0.0]  # bytes mastered, kv not; none for learner 8
    assert (memory.weakest.tolist(), memory.weakest_seen.tolist()) == ([0.4, PRIOR], [True, False])
    assert network.started.tolist() == [False, False]
    assert (network.weakest[0], network.weakest_seen[0]) == (PRIOR, False)  # ring, unseen
    assert power.started.tolist() == [False, False]
    (nothing, *_) = lesson_figures(SHAPES, [7], [], [])  # no row at all: the prior, not started
    assert (nothing.started.tolist(), nothing.weakest.tolist()) == ([False], [PRIOR])


ESTIMATE = st.sampled_from([0.05, 0.2, 0.4, 0.4, 0.949, 0.95, 0.97, 1.0])
SKILLS = ["bytes", "kv", "ring", "watts"]
TEMPLATES = ["gpu-memory", "kv-cache", "allreduce", "rack-power"]


@st.composite
def tables(draw):
    learners = draw(st.lists(st.integers(1, 40), unique=True, max_size=6))
    estimates = [
        (pk, skill, draw(ESTIMATE), draw(st.integers(0, 3)))
        for pk in learners
        for skill in draw(st.lists(st.sampled_from(SKILLS), unique=True))
    ]
    started = [
        (pk, t) for pk in learners for t in draw(st.lists(st.sampled_from(TEMPLATES), unique=True))
    ]
    # rows of someone outside the table, or of a skill or template no lesson has, count
    # for nothing
    estimates.append((99, "kv", 0.1, 1))
    started.append((99, "kv-cache"))
    if learners:
        estimates.append((learners[0], "elsewhere", 0.1, 1))
        started.append((learners[0], "elsewhere"))
    return learners, estimates, started


@given(tables())
def test_a_table_s_figures_are_what_each_learner_s_masteries_say(table):
    learners, estimates, started = table
    figures = lesson_figures(SHAPES, learners, estimates, started)
    for i, pk in enumerate(learners):
        rows = {s: SkillRow(s, p, bkt.is_mastered(p), n) for who, s, p, n in estimates if who == pk}
        answered = {t: 1 for who, t in started if who == pk}
        for lesson, mastery in zip(figures, masteries_of(SHAPES, rows, answered), strict=True):
            assert bool(lesson.started[i]) == mastery.started
            assert float(lesson.share[i]) == mastery.summary.share
            assert float(lesson.weakest[i]) == mastery.summary.weakest_p
            seen = bool(lesson.weakest_seen[i])
            assert (float(lesson.weakest[i]) if seen else None) == weakest_estimate(mastery)


@given(
    st.lists(st.lists(ESTIMATE, min_size=1, max_size=5), min_size=1, max_size=6).filter(
        lambda rows: len({len(r) for r in rows}) == 1
    )
)
def test_tally_rows_is_tally_of_each_row(rows):
    mastered, weakest = bkt.tally_rows(np.array(rows))
    assert list(zip(mastered.tolist(), weakest.tolist(), strict=True)) == [
        bkt.tally(r) for r in rows
    ]
