"""What the bench's request sequences need of locust, over Django's test clients: the
exam they load (`bench_exam`) and the response a `catch_response=True` request yields
(`Result`). tests/bench/test_exam_load.py and test_exam_pages.py drive them with it."""

from __future__ import annotations

from bench.exam_load import exam_with_learners
from tests.factories import CourseFactory, UserFactory


class Result:
    """What the sequences read of locust's response: status, body, headers, failure()."""

    def __init__(self, response, failures: list[str]):
        self.status_code = response.status_code
        self.text = response.content.decode()
        self.headers = response.headers
        self._response = response
        self._failures = failures

    def json(self):
        return self._response.json()

    def failure(self, message: str) -> None:
        self._failures.append(message)


def bench_exam(learners: int = 1):
    """The bench's exam (bench.exam_load.exam_with_learners) with `learners` learners
    named bench-0, bench-1, ...: (quiz, their tokens)."""
    staff = UserFactory(username="bench-staff", is_staff=True)
    course = CourseFactory(slug="bench-exam")
    return exam_with_learners(
        staff=staff, course=course, title="Bench exam", learners=learners, prefix="bench"
    )
