"""The exam the bench's request sequences load (`bench_exam`), made with the factories;
tests/bench/test_exam_load.py and test_exam_pages.py drive the sequences over Django's
test clients with bench.page_costs' ClientSession and ClientResult."""

from __future__ import annotations

from bench.exam_load import exam_with_learners
from tests.factories import CourseFactory, UserFactory


def bench_exam(learners: int = 1):
    """The bench's exam (bench.exam_load.exam_with_learners) with `learners` learners
    named bench-0, bench-1, ...: (quiz, their tokens)."""
    staff = UserFactory(username="bench-staff", is_staff=True)
    course = CourseFactory(slug="bench-exam")
    return exam_with_learners(
        staff=staff, course=course, title="Bench exam", learners=learners, prefix="bench"
    )
