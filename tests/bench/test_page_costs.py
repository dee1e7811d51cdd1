"""bench/page_costs.py: the web-page exam's sequence in-process, every request timed by
its name, the warm-up's learners left out, nothing failed and every part stored."""

from __future__ import annotations

import pytest

from assess.models import Response
from bench.exam_pages import PAGE_ENDPOINTS, signed_in_session
from bench.page_costs import measure
from tests.bench.locust_doubles import bench_exam
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_every_page_of_the_counted_learners_is_timed_and_every_answer_stored():
    quiz, _ = bench_exam(learners=3)
    users = UserFactory._meta.model.objects
    sessions = [signed_in_session(users.get(username=f"bench-{k}")) for k in range(3)]

    result = measure(quiz.pk, sessions, warm=1)

    assert result["failures"] == []
    assert result["learners"] == 2
    assert set(result["pages"]) == set(PAGE_ENDPOINTS)
    autosaves = result["pages"].pop("autosave")["n"]
    assert {p["n"] for p in result["pages"].values()} == {2}  # the warm-up's not counted
    assert result["sent"] == Response.objects.filter(attempt__quiz=quiz).count()
    assert autosaves == result["sent"] * 2 // 3  # each learner answers the same parts
    assert result["per_learner_ms"] > 0
