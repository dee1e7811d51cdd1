"""Stepwise hints on the question page: a "Hint 1 of n" button per open part, working
without JavaScript (a form post, then the page) and with htmx (the question fragment);
each hint is shown under the part that asked, none gives the answer; exams show no
button and refuse the post."""

import pytest

from assess.models import Hint, Question
from assess.selectors.hints import question_hints
from tests.frontend.helpers import assert_no_answer_in

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def url(attempt_id, question_id, suffix=""):
    return f"/attempts/{attempt_id}/q/{question_id}/{suffix}"


def test_practice_hints_without_and_with_javascript(login, learner, practice):
    client = login(learner)
    aid, qid = practice.attempt.pk, practice.question.pk
    question = Question.objects.get(pk=qid)
    total = len(question_hints(question))
    html = client.get(url(aid, qid)).content.decode()
    assert f"Hint 1 of {total}" in html and 'name="hint-part" value="weights"' in html
    assert "Hints are free." in html

    # No JavaScript: the answer form posts to the hint URL; typed text is kept.
    r = client.post(url(aid, qid, "hint/"), {"hint-part": "weights", "part-weights": "12 GB"})
    assert r.status_code == 302 and r["Location"] == url(aid, qid)
    html = client.get(r["Location"]).content.decode()
    assert f"<strong>Hint 1 of {total}</strong>" in html
    assert question_hints(question)[0].html in html
    assert 'value="12 GB"' in html
    assert_no_answer_in(html, Question.objects.get(pk=qid), typed=True)

    # htmx: the question fragment comes back with every hint so far.
    for _ in range(total + 1):  # one past the last: the last again, nothing new
        r = client.post(url(aid, qid, "hint/"), {"hint-part": "weights"}, **HTMX)
        assert r.status_code == 200
    fragment = r.content.decode()
    assert fragment.count('class="hint-step"') == total
    assert f"Hint {total} of {total}" in fragment
    assert 'name="hint-part"' not in fragment  # no hint left: no button
    assert Hint.objects.filter(question_id=qid).count() == total
    assert_no_answer_in(fragment, Question.objects.get(pk=qid))


def test_exams_show_no_hint_button_and_refuse_the_post(login, enrolled, exam_attempt):
    client = login(enrolled)
    question = exam_attempt.questions.first()
    html = client.get(f"/attempts/{exam_attempt.pk}/").content.decode()
    assert 'name="hint-part"' not in html and "Hint 1 of" not in html
    r = client.post(url(exam_attempt.pk, question.pk, "hint/"), {"hint-part": "weights"})
    assert r.status_code == 302
    page = client.get(r["Location"]).content.decode()
    assert "offers no hints" in page
    assert not Hint.objects.exists()
