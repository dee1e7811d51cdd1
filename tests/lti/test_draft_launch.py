"""An LMS link to a draft: a learner's launch cannot start it (409, no attempt, as any
quiz that cannot start), while an instructor's launch still lands on its teaching page;
once published, the learner's launch starts the attempt."""

from __future__ import annotations

import pytest

from assess.models import Attempt, Quiz
from tests.lti.conftest import INSTRUCTOR


@pytest.fixture
def draft_platform(platform):
    Quiz.objects.filter(pk=platform.quiz.pk).update(status=Quiz.Status.DRAFT)
    return platform


def test_a_learner_cannot_start_a_draft_through_the_lms(draft_platform):
    response = draft_platform.launch()
    assert response.status_code == 409
    assert "draft" in response.content.decode()
    assert not Attempt.objects.exists()
    Quiz.objects.filter(pk=draft_platform.quiz.pk).update(status=Quiz.Status.PUBLISHED)
    assert draft_platform.launch().status_code == 303
    assert Attempt.objects.count() == 1


def test_an_instructor_launch_on_a_draft_lands_on_its_teaching_page(draft_platform):
    response = draft_platform.launch(roles=[INSTRUCTOR])
    assert response.status_code == 303 and not Attempt.objects.exists()
    assert response["Location"].endswith(f"/teach/quizzes/{draft_platform.quiz.pk}/items/")
