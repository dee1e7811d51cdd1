"""A walk through the HTML pages over every mode and feedback setting: no answer value
(in any usual spelling), no worked solution and no correctness before the feedback
policy allows, and each of them once it does (a correct try, the last allowed try, a
reveal, the finish, the quiz's close).

Immediate feedback (practice; homework with 3 tries and a penalty): each try is told
right or wrong with its mistake named, the answer waits for the part to close. Deferred
feedback (homework or exam after the attempt, exam after the close, certification):
answers are saved and nothing about them shows until the grades are released.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from assess.models import Attempt, Question, Quiz, Response, Reveal
from frontend.queries.common import answer_text
from tests.factories import QuizFactory
from tests.frontend.helpers import assert_no_answer_in, gib_slip_text, right_text

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
MISTAKE = "That is the size in"  # weights-memory's GB/GiB misconception, named
CORRECTNESS = ("<strong>Correct</strong>", "Not correct", "Partly right", 'class="feedback')


def right_in_other_unit(part: dict) -> str:
    """The right bytes written in the other unit: graded correct, and no spelling of the
    part's value, so the learner's own text cannot hide (or fake) a leak."""
    value = float(part["value"])
    if part["unit"] == "GB":
        return f"{value * 1e9 / 2**30!r} GiB"
    return f"{value * 2**30 / 1e9!r} GB"


# The lesson page's worked example: a fixed variant shown to every reader, with its
# solution by design. Its values still go through assert_no_answer_in with the page.
EXAMPLE = re.compile(r'<section aria-labelledby="example-h".*?</section>', re.S)


def assert_hidden(html: str, question: Question) -> None:
    """No value of any part in any spelling outside the statement (which may print the
    question's inputs), no seed, no answer line, no worked solution (but the lesson
    page's public example, which is another variant)."""
    assert_no_answer_in(html, question)
    rest = EXAMPLE.sub("", html)
    assert "Worked solution" not in rest and '<span class="answer">' not in rest


def assert_shown(html: str, question: Question) -> None:
    part = question.answers[0]
    assert f'<span class="answer">{answer_text(part)}</span>' in html
    assert "Worked solution" in html
    with pytest.raises(AssertionError):  # control: the leak check sees a shown answer
        assert_hidden(html, question)


def assert_no_correctness(html: str) -> None:
    for text in (*CORRECTNESS, MISTAKE):
        assert text not in html, text


@dataclass
class Walk:
    client: Client
    attempt: Attempt
    question: Question

    @property
    def part(self) -> dict:
        return self.question.answers[0]

    @property
    def q_url(self) -> str:
        return f"/attempts/{self.attempt.pk}/q/{self.question.pk}/"

    def page(self) -> str:
        response = self.client.get(f"/attempts/{self.attempt.pk}/")
        assert response.status_code == 200
        return response.content.decode()

    def answer(self, text: str, **extra):
        response = self.client.post(self.q_url + "answer/", {"part-weights": text}, **extra)
        assert response.status_code in (200, 302)
        return response

    def reveal(self, **extra):
        return self.client.post(self.q_url + "reveal/", {"part": "weights"}, **extra)

    def finish(self) -> str:
        return self.client.post(
            f"/attempts/{self.attempt.pk}/finish/", follow=True
        ).content.decode()


@pytest.fixture
def walk(login, enrolled, course, lesson):
    """walk(mode, feedback, ...) -> a started attempt on a one-question quiz, taken
    through the pages by an enrolled learner."""

    def start(mode, feedback, tries=None, penalty=0.0, closes_at=None) -> Walk:
        quiz = QuizFactory(
            mode=mode,
            feedback=feedback,
            course=course,
            tries_per_part=tries,
            penalty_per_try=penalty,
            closes_at=closes_at,
            slots=[["weights-memory"]],
        )
        client = login(enrolled)
        assert client.post(f"/quizzes/{quiz.pk}/start/").status_code == 302
        attempt = Attempt.objects.get(quiz=quiz)
        return Walk(client, attempt, attempt.questions.get())

    return start


IMMEDIATE = [
    pytest.param(Quiz.Mode.PRACTICE, None, 0.0, id="practice-immediately"),
    pytest.param(Quiz.Mode.HOMEWORK, 3, 0.25, id="homework-immediately-3-tries"),
]


def start_immediate(walk, mode, tries, penalty) -> Walk:
    return walk(mode, Quiz.Feedback.IMMEDIATELY, tries=tries, penalty=penalty)


@pytest.mark.parametrize(("mode", "tries", "penalty"), IMMEDIATE)
def test_a_wrong_try_names_the_mistake_but_hides_the_answer(walk, mode, tries, penalty):
    w = start_immediate(walk, mode, tries, penalty)
    html = w.page()
    assert_hidden(html, w.question)
    assert_no_correctness(html)
    assert "Each answer is checked at once." in html and "Show the answer" in html
    if tries:
        assert "3 tries left" in html and "Each part takes up to 3 tries." in html
        assert "costs 25% of the part" in html
    else:
        assert "tries left" not in html and "costs" not in html

    w.answer(gib_slip_text(w.part))  # without JavaScript: post, redirect, page
    html = w.page()
    assert "Not correct" in html and MISTAKE in html
    assert_hidden(html, w.question)
    assert f'id="a{w.question.pk}-weights"' in html  # the box stays: the part is open
    assert ("2 tries left" in html) == bool(tries)

    fragment = w.answer("1", **HTMX).content.decode()  # with htmx: the question block
    assert "<html" not in fragment and "Not correct" in fragment
    assert_hidden(fragment, w.question)
    assert Response.objects.filter(attempt=w.attempt).count() == 2


@pytest.mark.parametrize(("mode", "tries", "penalty"), IMMEDIATE)
def test_a_correct_try_shows_the_answer_and_the_solution(walk, mode, tries, penalty):
    w = start_immediate(walk, mode, tries, penalty)
    w.answer(gib_slip_text(w.part))
    fragment = w.answer(right_text(w.part), **HTMX).content.decode()
    assert "<strong>Correct</strong>" in fragment
    assert_shown(fragment, w.question)
    html = w.page()
    assert_shown(html, w.question)
    assert "This part was answered correctly already" in html
    assert f'id="a{w.question.pk}-weights"' not in html and "Show the answer" not in html


def test_the_last_allowed_try_shows_the_answer_and_closes_the_part(walk):
    w = walk(Quiz.Mode.HOMEWORK, Quiz.Feedback.IMMEDIATELY, tries=3)
    for text, left in ((gib_slip_text(w.part), "2 tries left"), ("1", "1 try left")):
        w.answer(text)
        html = w.page()
        assert_hidden(html, w.question)
        assert left in html
    w.answer("2")
    html = w.page()
    assert "Not correct" in html
    assert_shown(html, w.question)
    assert "You have used every try allowed on this part." in html
    assert f'id="a{w.question.pk}-weights"' not in html
    # Past the limit a post is refused with the reason; nothing is stored.
    refused = w.client.post(w.q_url + "answer/", {"part-weights": right_text(w.part)}, follow=True)
    assert "used every try" in refused.content.decode()
    assert Response.objects.filter(attempt=w.attempt).count() == 3


def test_practice_closes_a_part_at_the_tries_ceiling_and_offers_another_variant(walk):
    """Practice sets no limit, yet a part takes at most TRIES_CEILING tries (issue 43):
    the page says so and offers another variant; a further post is refused, not lost."""
    from assess.scoring import TRIES_CEILING

    w = walk(Quiz.Mode.PRACTICE, Quiz.Feedback.IMMEDIATELY)
    for k in range(TRIES_CEILING):
        w.answer(str(1000 + k))
    html = w.page()
    assert f"This part has taken {TRIES_CEILING} tries" in html and "Another variant" in html
    assert_shown(html, w.question)
    assert "tries left" not in html
    refused = w.client.post(w.q_url + "answer/", {"part-weights": right_text(w.part)}, follow=True)
    assert f"{TRIES_CEILING} tries, the most any part takes" in refused.content.decode()
    assert Response.objects.filter(attempt=w.attempt).count() == TRIES_CEILING


@pytest.mark.parametrize(("mode", "tries", "penalty"), IMMEDIATE)
def test_a_reveal_shows_the_answer_and_the_answer_cannot_be_typed_back(walk, mode, tries, penalty):
    w = start_immediate(walk, mode, tries, penalty)
    w.answer(gib_slip_text(w.part))
    assert "ends your tries on that part" in w.page()
    fragment = w.reveal(**HTMX).content.decode()  # htmx: the question block, revealed
    assert "<html" not in fragment
    assert_shown(fragment, w.question)
    assert Reveal.objects.filter(question=w.question, part="weights").exists()
    html = w.page()
    assert_shown(html, w.question)
    assert "You asked for this part&#x27;s answer, so it takes no more tries." in html
    assert f'id="a{w.question.pk}-weights"' not in html and "Show the answer" not in html
    # The answer, retyped: refused with the reason, nothing stored, no credit.
    refused = w.client.post(w.q_url + "answer/", {"part-weights": right_text(w.part)}, follow=True)
    assert refused.status_code == 200
    assert "You asked for this part&#x27;s answer" in refused.content.decode()
    assert list(Response.objects.filter(attempt=w.attempt).values_list("correct", flat=True)) == [
        False
    ]
    # Without JavaScript a reveal is a plain post and a redirect; asking twice is harmless.
    again = w.reveal()
    assert (
        again.status_code == 302
        and again["Location"] == f"/attempts/{w.attempt.pk}/#q-{w.question.pk}"
    )
    assert Reveal.objects.count() == 1


@pytest.mark.parametrize(("mode", "tries", "penalty"), IMMEDIATE)
def test_the_finish_shows_every_answer(walk, mode, tries, penalty):
    w = start_immediate(walk, mode, tries, penalty)
    w.answer(gib_slip_text(w.part))
    assert_hidden(w.page(), w.question)
    html = w.finish()
    assert "Score: 0 of " in html and "(0%)" in html
    assert_shown(html, w.question)


DEFERRED = [
    pytest.param(Quiz.Mode.HOMEWORK, Quiz.Feedback.AFTER_ATTEMPT, id="homework-after_attempt"),
    pytest.param(Quiz.Mode.EXAM, Quiz.Feedback.AFTER_ATTEMPT, id="exam-after_attempt"),
    pytest.param(Quiz.Mode.EXAM, Quiz.Feedback.AFTER_CLOSE, id="exam-after_close"),
    pytest.param(
        Quiz.Mode.CERTIFICATION, Quiz.Feedback.AFTER_ATTEMPT, id="certification-after_attempt"
    ),
]


@pytest.mark.parametrize(("mode", "feedback"), DEFERRED)
def test_deferred_feedback_shows_nothing_until_the_grades_are_released(walk, mode, feedback):
    after_close = feedback == Quiz.Feedback.AFTER_CLOSE
    closes_at = timezone.now() + timedelta(days=1) if after_close else None
    w = walk(mode, feedback, closes_at=closes_at)
    html = w.page()
    assert_hidden(html, w.question)
    assert_no_correctness(html)
    assert "Save answer" in html and "Show the answer" not in html
    assert "the last saved answer counts" in html

    right = right_in_other_unit(w.part)
    fragment = w.answer(right, **HTMX).content.decode()  # autosave: graded, hidden
    assert "Saved at" in fragment
    assert_no_correctness(fragment)
    assert Response.objects.get(attempt=w.attempt).correct is True
    for url in (f"/attempts/{w.attempt.pk}/", w.q_url, "/lessons/gpu-memory-math/"):
        html = w.client.get(url).content.decode()
        assert_hidden(html, w.question)
        assert_no_correctness(html)
    lesson = w.client.get("/lessons/gpu-memory-math/").content.decode()
    assert "saved; graded after the attempt" in lesson
    assert "in progress" in w.client.get("/dashboard/").content.decode()

    # No reveal before the release: refused with the reason, nothing recorded.
    refused = w.reveal(follow=True).content.decode()
    assert "show when its feedback is released" in refused
    assert not Reveal.objects.exists()

    html = w.finish()
    if after_close:
        assert "Results appear when the quiz closes" in html and "Score:" not in html
        assert_hidden(html, w.question)
        assert_no_correctness(html)
        Quiz.objects.filter(pk=w.attempt.quiz_id).update(
            closes_at=timezone.now() - timedelta(seconds=1)
        )
        html = w.page()
    assert "Score: " in html and "(100%)" in html and "<strong>Correct</strong>" in html
    assert_shown(html, w.question)
