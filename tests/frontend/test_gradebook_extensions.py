"""Extensions from the quiz's gradebook (issue 36 item 2): each learner's row grants,
changes and revokes their extension through the extension services (audited, nobody on
their own work), shows it, and explains a time taken past the quiz's limit, as the
attempt's own page does."""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from assess.models import Extension
from assess.services.attempts import attempt_finish, attempt_start
from assess.services.extensions import extension_grant
from audit.models import AuditEvent
from tests.factories import EnrolmentFactory, UserFactory

pytestmark = pytest.mark.django_db


def text(response) -> str:
    plain = html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode()))
    return re.sub(r"\s+", " ", plain)


def gradebook(exam) -> str:
    return f"/teach/quizzes/{exam.pk}/gradebook/"


def post(client, exam, **data):
    return client.post(f"/teach/quizzes/{exam.pk}/extensions/", data, follow=True)


@pytest.fixture
def ann(course):
    user = UserFactory(username="ann")
    EnrolmentFactory(user=user, course=course)
    return user


def test_grant_from_the_row_shows_on_the_row_and_revoke_removes_it(login, instructor, exam, ann):
    client = login(instructor)
    page = client.get(gradebook(exam)).content.decode()
    assert 'name="extra_minutes"' in page and 'value="ann"' in page
    response = post(client, exam, learner="ann", extra_minutes="5")
    assert response.redirect_chain[-1][0] == f"{gradebook(exam)}#learner-{ann.pk}"
    said = text(response)
    assert "ann's extension is saved" in said and "+5 minutes" in said
    extension = Extension.objects.get(quiz=exam, learner=ann)
    assert extension.extra_time == timedelta(minutes=5) and extension.granted_by == instructor
    assert AuditEvent.objects.filter(action=AuditEvent.Action.EXTENSION_GRANT).count() == 1
    said = text(post(client, exam, learner="ann", action="revoke"))
    assert "ann's extension is revoked" in said
    assert not Extension.objects.filter(quiz=exam, learner=ann).exists()


def test_a_time_taken_past_the_limit_is_explained_on_the_row_and_the_attempt(
    login, instructor, exam, ann
):
    extension_grant(user=instructor, quiz=exam, learner=ann, extra_time=timedelta(minutes=5))
    t0 = timezone.now() - timedelta(hours=1)
    attempt, _ = attempt_start(quiz=exam, learner=ann, now=t0)
    attempt_finish(attempt=attempt, now=t0 + timedelta(minutes=13, seconds=34))
    client = login(instructor)
    row = text(client.get(gradebook(exam)))
    assert "13:34 (limit 15 minutes: 10 minutes plus 5 minutes extension)" in row
    review = text(client.get(f"/attempts/{attempt.pk}/"))
    assert "Extension for ann: 5 minutes of extra time" in review
    assert "Time taken 13:34 of 15 minutes (10 minutes plus 5 minutes of extra time)" in review


def test_nobody_extends_their_own_work(login, instructor, exam, course):
    EnrolmentFactory(user=instructor, course=course)  # the instructor also takes the quiz
    client = login(instructor)
    page = text(client.get(gradebook(exam)))
    assert "Not on your own work" in page
    said = text(post(client, exam, learner=instructor.username, extra_minutes="5"))
    assert "your own" in said.lower()
    assert not Extension.objects.exists()


def test_bad_input_is_said_on_the_page_and_stores_nothing(login, instructor, exam, ann):
    client = login(instructor)
    assert "Extra minutes:" in text(post(client, exam, learner="ann", extra_minutes="0"))
    assert "Give extra minutes, a new close, or both" in text(post(client, exam, learner="ann"))
    # The quiz never closes: a new close is the service's field error, in words.
    said = text(post(client, exam, learner="ann", closes_at="2030-01-01T10:00"))
    assert "New close: This quiz never closes" in said
    assert "No learner has that username" in text(post(client, exam, learner="ghost"))
    assert not Extension.objects.exists()


def test_others_get_404_and_the_row_count_does_not_grow_the_queries(
    login, instructor, exam, ann, course
):
    assert post(login(ann), exam, learner="ann", extra_minutes="5").status_code == 404
    client = login(instructor)

    def count() -> int:
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(gradebook(exam)).status_code == 200
        return len(ctx.captured_queries)

    few = count()
    for i in range(4):
        user = UserFactory(username=f"extra{i}")
        EnrolmentFactory(user=user, course=course)
        extension_grant(
            user=instructor, quiz=exam, learner=user, extra_time=timedelta(minutes=i + 1)
        )
    assert count() == few <= 11
