"""Hostile plan text cannot stall a review. A measurement plan of 60,000 digits took the
number pattern (`\\d[\\d,]*` tried from every digit) 398 s on this machine: quadratic in
one C call, which no call count sees. Numbers now start only where a run of digits
starts. The guard is an alarm, not a timing: a linear review of 60,000 characters takes
well under a second, and the test fails only when the review hangs."""

from __future__ import annotations

import signal

import pytest

from capstone.memo_review import brief_for, example_memo, plan_content, plan_text, review_memo
from capstone.memo_review.memo import MAX_MEMO_CHARS

HOSTILE = ["1", "1,", "1.1", "12 ", "kill a ", "TTFT 1", "1 req", "xid ", "9 ms TPOT "]


class Hung(Exception):
    pass


@pytest.fixture
def alarm():
    def ring(signum, frame):
        raise Hung("the plan checks did not finish in 20 s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("unit", HOSTILE)
def test_the_plan_checks_read_hostile_text_in_linear_time(unit, alarm):
    text = (unit * (60_000 // len(unit)))[:60_000]
    plan_text.measurement_parts(text, peak_rps=10.0, replicas=3, ttft_ms=500, tpot_ms=40)
    plan_text.failure_parts(text)
    plan_text.concrete_parts(text)
    assert plan_content.load_at_peak(text, 10.0, 3).name == "load"


def test_a_memo_whose_plan_is_all_digits_is_reviewed(alarm):
    brief = brief_for(3)
    memo = example_memo(brief)
    plan = memo.split("## Measurement plan\n\n")[1].split("\n\n## ")[0]
    room = MAX_MEMO_CHARS - len(memo) + len(plan) - 10
    review = review_memo(brief, memo.replace(plan, "1" * room))
    assert review.criterion("measurement-plan").points == 0
