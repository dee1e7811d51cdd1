"""Screen readers hear the grade, not the drafts: the question block is swapped whole
after an answer, so its verdict also goes out of band into one polite live region the
page keeps (#announcer); the draft notice, written at every keystroke, is silent."""

import re

import pytest

from tests.frontend.helpers import gib_slip_text, part_of, right_text

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
ANNOUNCER = re.compile(r'<div id="announcer" hx-swap-oob="innerHTML">(.*?)</div>', re.S)


def _url(attempt, question, suffix):
    return f"/attempts/{attempt.pk}/q/{question.pk}/{suffix}"


def test_the_page_has_one_polite_live_region_and_a_silent_draft_notice(login, learner, practice):
    html = login(learner).get(_url(practice.attempt, practice.question, "")).content.decode()
    assert html.count('id="announcer"') == 1
    assert re.search(r'id="announcer" class="sr-only" aria-live="polite"', html)
    draft = re.search(r'<span[^>]*id="draft-\d+"[^>]*>', html).group(0)
    assert 'aria-live="off"' in draft and "role=" not in draft


def test_a_right_answer_announces_its_verdict(login, learner, practice):
    q = practice.question
    body = {"part-weights": right_text(part_of(q))}
    html = login(learner).post(_url(practice.attempt, q, "answer/"), body, **HTMX).content.decode()
    said = ANNOUNCER.search(html).group(1).strip()
    assert said.startswith(f"Question {q.order}, ") and said.endswith(": Correct.")


def test_a_wrong_answer_announces_the_named_mistake(login, learner, practice):
    """Not a bare "Not correct.": the mistake the page names is read out too."""
    q = practice.question
    part = part_of(q)
    body = {"part-weights": gib_slip_text(part)}
    html = login(learner).post(_url(practice.attempt, q, "answer/"), body, **HTMX).content.decode()
    said = ANNOUNCER.search(html).group(1).strip()
    other = "GiB" if part["unit"] == "GB" else "GB"
    assert said.startswith(f"Question {q.order}, ")
    assert ": Not correct: GB and GiB mixed up. " in said
    assert f"That is the size in {other}." in said


def test_an_unreadable_answer_announces_no_verdict(login, learner, practice):
    q = practice.question
    body = {"part-weights": "lots"}
    html = login(learner).post(_url(practice.attempt, q, "answer/"), body, **HTMX).content.decode()
    assert ANNOUNCER.search(html) is None


def test_an_exam_answer_announces_nothing_of_its_grade(login, learner, exam_attempt):
    q = exam_attempt.questions.order_by("order").first()
    body = {"part-weights": right_text(part_of(q))}
    html = login(learner).post(_url(exam_attempt, q, "answer/"), body, **HTMX).content.decode()
    assert ANNOUNCER.search(html) is None and "Correct" not in html
