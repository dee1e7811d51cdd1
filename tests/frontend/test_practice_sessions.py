"""Lesson practice in sessions of n questions through the pages: "Question x of n", an
end, and a summary that says right and wrong, names the mistakes in words (never the
codes), shows each skill before and after, says what to practise next, and writes
nothing."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from assess.models import Attempt, MasteryEvent, Question, SkillMastery
from assess.services.attempts import attempt_finish
from assess.services.practice_sessions import practice_session_start
from assess.services.questions import practice_question_add
from assess.services.responses import response_submit
from problems.engine.skill_names import skill_name
from tests.factories import LessonFactory
from tests.frontend.helpers import gib_slip_text, right_text

pytestmark = pytest.mark.django_db

LESSON = "/lessons/gpu-memory-math/"


def start(client, n=5):
    response = client.post(LESSON + "practice/", {"questions": str(n)})
    assert response.status_code == 302, response.content
    return response["Location"]


def answer(client, question: Question, text: str):
    url = f"/attempts/{question.attempt_id}/q/{question.pk}/answer/"
    assert client.post(url, {"part-weights": text}).status_code == 302


def latest(learner) -> Question:
    return Question.objects.filter(attempt__learner=learner).order_by("-id").first()


def wrong_text(question: Question) -> str:
    """Readable and wrong by a factor no detector names (37): a slip with no name."""
    part = question.answers[0]
    return f"{part['value'] * 37!r} {part['unit']}"


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_the_lesson_page_offers_a_session_of_n(login, learner, lesson):
    html = login(learner).get(LESSON).content.decode()
    assert '<select name="questions" id="n-gpu-memory-math-questions">' in html
    assert '<option value="5" selected>5 questions</option>' in html
    assert '<option value="10">' in html and '<option value="20">' in html
    assert "Practice this lesson</button>" in html


def test_with_a_session_open_continuing_is_the_primary_action(login, learner, lesson):
    """The primary button used to start a new session, ending the open one; Continue
    was the secondary."""
    client = login(learner)
    start(client, 5)
    html = client.get(LESSON).content.decode()
    assert re.search(r'<a class="button" href="/attempts/\d+/">Continue your session</a>', html)
    assert '<button type="submit" class="secondary">Start a new session</button>' in html
    assert "Practice this lesson</button>" not in html


def test_a_length_not_offered_is_a_400_that_says_why_and_stores_nothing(login, learner, lesson):
    response = login(learner).post(LESSON + "practice/", {"questions": "7"})
    assert response.status_code == 400
    assert "A practice session has 5, 10 or 20 questions." in response.content.decode()
    assert not Attempt.objects.exists()


def test_question_x_of_n_then_the_last_question_offers_the_finish(login, learner, lesson):
    client = login(learner)
    html = client.get(start(client, 5)).content.decode()
    assert "Question 1 of 5" in text(html) and "Next question</button>" in html
    for x in range(2, 6):
        response = client.post(LESSON + "practice/")
        html = client.get(response["Location"]).content.decode()
        assert f"Question {x} of 5" in text(html)
    assert "Next question</button>" not in html
    assert "Finish and see your summary</button>" in html
    # A stale "Next question" (a second tab) draws no sixth question; it says why.
    stale = client.post(LESSON + "practice/", follow=True).content.decode()
    assert "has had all its 5 questions" in stale
    assert Question.objects.count() == 5
    # The lesson page offers to continue the open session.
    assert "question 5 of 5" in text(client.get(LESSON).content.decode())


def test_the_overview_says_right_or_wrong_and_names_mistakes_in_words(login, learner, lesson):
    client = login(learner)
    start(client, 5)
    first = latest(learner)
    answer(client, first, right_text(first.answers[0]))
    client.post(LESSON + "practice/")
    second = latest(learner)
    answer(client, second, gib_slip_text(second.answers[0]))
    client.post(LESSON + "practice/")
    html = client.get(f"/attempts/{first.attempt_id}/").content.decode()
    page = text(html)
    assert "Question 3 of 5" in page
    assert "Right first time" in page and "Not right" in page and "Not answered" in page
    assert "named mistake: GB and GiB mixed up" in page
    assert "gb-vs-gib" not in html and '">answered</span>' not in html
    assert "Continue with question 3" in page and "End the session now" in page


def test_a_session_ended_after_three_questions_shows_its_summary(login, learner, lesson):
    client = login(learner)
    start(client, 5)
    # A session of 5 abandoned for one of 3: the first is finished, the new one begins.
    old = latest(learner).attempt_id
    client.post(LESSON + "practice/", {"questions": "5"})
    assert Attempt.objects.get(pk=old).status == "finished"
    # This session: right; a GiB slip then right; wrong (no known mistake).
    texts = [
        lambda q: [right_text(q.answers[0])],
        lambda q: [gib_slip_text(q.answers[0]), right_text(q.answers[0])],
        lambda q: [wrong_text(q)],
    ]
    for i, tries in enumerate(texts):
        if i:
            client.post(LESSON + "practice/")
        question = latest(learner)
        for t in tries(question):
            answer(client, question, t)
    attempt = latest(learner).attempt
    assert attempt.is_open
    response = client.post(f"/attempts/{attempt.pk}/finish/")
    assert response["Location"] == f"/attempts/{attempt.pk}/"
    html = client.get(response["Location"]).content.decode()
    page = text(html)
    assert "Practice summary: GPU Memory Math" in page
    assert "1 right and 2 wrong, of 3 questions" in page
    assert "(the session ended after 3 of its 5)" in page
    assert "You then put 1 of the 2 wrong ones right." in page
    assert "GB and GiB mixed up" in page and "gb-vs-gib" not in html
    # Before and after, per skill, read from the answers' own mastery events.
    for skill in ("weights-bytes", "units-gb-gib"):
        events = list(
            MasteryEvent.objects.filter(response__attempt=attempt, skill=skill).order_by("id")
        )
        assert len(events) == 3  # one first try per question
        before, after = round(events[0].p_before * 100), round(events[-1].p_after * 100)
        assert after != before
        assert f"{skill_name(skill)} {before}% {after}% up {after - before} point" in page
    # What next: this lesson, whose weakest skill is named, with a start form.
    assert "This lesson again: its weakest skill is" in page
    assert "Practice this lesson again</button>" in html


def test_a_session_ended_early_says_so(login, learner, lesson):
    client = login(learner)
    start(client, 10)
    attempt_id = latest(learner).attempt_id
    client.post(f"/attempts/{attempt_id}/finish/")
    page = text(client.get(f"/attempts/{attempt_id}/").content.decode())
    assert "0 right and 0 wrong, of 1 question (the session ended after 1 of its 10)" in page
    assert "1 not answered" in page
    assert "no estimate moved" in page


def test_the_summary_points_to_the_weakest_other_lesson_once_this_one_is_mastered(
    login, learner, lesson, kv_lesson
):
    client = login(learner)
    start(client, 5)
    attempt_id = latest(learner).attempt_id
    client.post(f"/attempts/{attempt_id}/finish/")
    for skill in ("weights-bytes", "units-gb-gib"):
        SkillMastery.objects.update_or_create(
            learner=learner, skill=skill, defaults={"p_mastery": 0.99, "responses": 3}
        )
    html = client.get(f"/attempts/{attempt_id}/").content.decode()
    assert 'href="/lessons/the-kv-cache/">The KV Cache</a>: its weakest skill is' in html
    assert 'action="/lessons/the-kv-cache/practice/"' in html


def test_reading_the_summary_writes_no_mastery(login, learner, lesson):
    client = login(learner)
    start(client, 5)
    question = latest(learner)
    answer(client, question, gib_slip_text(question.answers[0]))
    client.post(f"/attempts/{question.attempt_id}/finish/")
    state = (list(SkillMastery.objects.values_list("skill", "p_mastery", "responses")),)
    events = MasteryEvent.objects.count()
    for _ in range(3):
        assert client.get(f"/attempts/{question.attempt_id}/").status_code == 200
    assert (list(SkillMastery.objects.values_list("skill", "p_mastery", "responses")),) == state
    assert MasteryEvent.objects.count() == events


def test_another_learners_session_is_a_404(login, learner, other_learner, lesson):
    client = login(learner)
    start(client, 5)
    attempt_id = latest(learner).attempt_id
    assert login(other_learner).get(f"/attempts/{attempt_id}/").status_code == 404


def test_recent_answers_name_the_mistake_in_words(login, learner, lesson):
    client = login(learner)
    start(client, 5)
    question = latest(learner)
    answer(client, question, gib_slip_text(question.answers[0]))
    html = client.get(LESSON).content.decode()
    assert "not correct: GB and GiB mixed up" in html and "gb-vs-gib" not in html


def session_answered(learner, lesson, k: int) -> int:
    """A finished session of k questions, each a GiB slip then right (two tries, one
    named mistake, one evidence answer per skill); returns its attempt id."""
    practice = practice_session_start(learner=learner, lesson=lesson, length=20)
    for i in range(k):
        if i:
            practice = practice_question_add(learner=learner, lesson=lesson)
        part = practice.question.answers[0]
        for j, t in enumerate((gib_slip_text(part), right_text(part))):
            response_submit(
                attempt=practice.attempt,
                question=practice.question,
                part=part["name"],
                text=t,
                idempotency_key=f"{practice.question.pk}-{j}",
            )
    attempt_finish(attempt=practice.attempt)
    return practice.attempt.pk


def count(client, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_session_pages_read_a_fixed_number_of_times(client, learner, module, lesson):
    """The summary (and the page of a session in progress) cost the same however many
    answers the session holds and however many lessons its course has."""
    client.force_login(learner)
    small = session_answered(learner, lesson, 1)
    open_small = practice_question_add(learner=learner, lesson=lesson).attempt.pk
    few = (count(client, f"/attempts/{small}/"), count(client, f"/attempts/{open_small}/"))
    for i in range(10):
        LessonFactory(module=module, templates=["kv-cache-per-token"], order=10 + i)
    big = session_answered(learner, lesson, 6)
    open_big = practice_session_start(learner=learner, lesson=lesson, length=20).attempt.pk
    for _ in range(5):
        practice_question_add(learner=learner, lesson=lesson)
    assert Attempt.objects.get(pk=small).questions.count() == 1
    assert Attempt.objects.get(pk=big).questions.count() == 6
    many = (count(client, f"/attempts/{big}/"), count(client, f"/attempts/{open_big}/"))
    assert many == few
    assert few[0] <= 15 and few[1] <= 9  # the summary: + answers per template (started)
