"""Finishing a paper with blank parts asks first and names them; without blanks, or
once confirmed, it finishes. Works without script: the question is a page."""

import pytest

from assess.models import Attempt
from tests.frontend.helpers import part_of, right_text

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def _finish(client, attempt, **data):
    return client.post(f"/attempts/{attempt.pk}/finish/", data)


def _status(attempt) -> str:
    return Attempt.objects.get(pk=attempt.pk).status


def _questions(attempt):
    return list(attempt.questions.filter(active=True).order_by("order"))


def test_blank_parts_are_listed_and_nothing_is_finished(login, learner, exam_attempt):
    client = login(learner)
    first, second = _questions(exam_attempt)
    client.post(
        f"/attempts/{exam_attempt.pk}/q/{first.pk}/answer/",
        {f"part-{part_of(first)['name']}": right_text(part_of(first))},
        **HTMX,
    )
    response = _finish(client, exam_attempt)
    html = response.content.decode()
    assert response.status_code == 200 and "Submit with blank parts?" in html
    label = second.answers[0].get("label") or second.answers[0]["name"]
    assert f"<li>Question {second.order}, {label}</li>" in html
    assert f"Question {first.order}," not in html  # the answered part is not blank
    assert 'name="confirm" value="1"' in html and "Keep working" in html
    assert _status(exam_attempt) == Attempt.Status.OPEN


def test_submit_anyway_finishes(login, learner, exam_attempt):
    client = login(learner)
    response = _finish(client, exam_attempt, confirm="1")
    assert response.status_code == 302 and _status(exam_attempt) == Attempt.Status.FINISHED


def test_no_blank_parts_finishes_at_once(login, learner, exam_attempt):
    client = login(learner)
    for q in _questions(exam_attempt):
        body = {f"part-{p['name']}": right_text(p) for p in q.answers}
        client.post(f"/attempts/{exam_attempt.pk}/q/{q.pk}/answer/", body, **HTMX)
    response = _finish(client, exam_attempt)
    assert response.status_code == 302 and _status(exam_attempt) == Attempt.Status.FINISHED
