"""A learner's mastery of lessons from shapes computed once (the progress table's path)."""

from assess.mastery import bkt
from assess.selectors.mastery import LessonShape, SkillRow, masteries_of

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


def test_started_only_leaves_out_the_lessons_not_started_and_keeps_the_rest_as_they_were():
    full = masteries_of(SHAPES, ROWS, {"kv-cache": 3, "rack-power": 1})
    lean = masteries_of(SHAPES, ROWS, {"kv-cache": 3, "rack-power": 1}, started_only=True)
    assert lean == [full[0], None, full[2]]
    assert masteries_of(SHAPES, ROWS, None, started_only=True) == [None, None, None]
