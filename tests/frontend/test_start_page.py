"""The start page before any timed or counted attempt, and the quiz list's eligibility
(issue 36 item 1): the rules before anything starts, attempts used of allowed, the next
allowed time in words (never an ISO timestamp on the page), and a track's certification
exam closed until its lessons are mastered, naming them."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from assess.models import Attempt, Quiz, SkillMastery
from assess.services.attempts import attempt_finish, attempt_start
from certify.selectors import track_rules, tracks_all
from tests.factories import QuizFactory

pytestmark = pytest.mark.django_db

ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")


def visible_text(response) -> str:
    """The page's text without its tags (a <time datetime="..."> attribute is markup for
    machines; what a reader sees must not be an ISO timestamp)."""
    return re.sub(r"<[^>]+>", " ", response.content.decode()).replace("\xa0", " ")


def timed_exam(**kw) -> Quiz:
    values = {
        "title": "Sizing exam",
        "mode": Quiz.Mode.EXAM,
        "feedback": Quiz.Feedback.AFTER_ATTEMPT,
        "time_limit": timedelta(minutes=10),
        "attempts_allowed": 2,
        "cooldown": timedelta(days=1),
        "slots": [["weights-memory"]],
    }
    return QuizFactory(**(values | kw))


def test_the_list_leads_a_timed_exam_to_its_start_page_which_starts_nothing(client, learner):
    quiz = timed_exam()
    client.force_login(learner)
    listing = client.get("/quizzes/")
    text = visible_text(listing)
    assert "0 used of 2 allowed" in text and "10 minutes" in text
    assert f'href="/quizzes/{quiz.pk}/"' in listing.content.decode()
    assert f'action="/quizzes/{quiz.pk}/start/"' not in listing.content.decode()
    page = client.get(f"/quizzes/{quiz.pk}/")
    text = visible_text(page)
    for said in ("Time limit", "10 minutes", "Attempts", "0 used of 2 allowed", "Feedback"):
        assert said in text
    assert "1 day after an attempt ends" in text
    assert "marked when the attempt ends" in text
    assert not Attempt.objects.exists()  # reading the page starts nothing
    assert f'action="/quizzes/{quiz.pk}/start/"' in page.content.decode()


def test_after_an_attempt_the_list_and_page_say_used_and_when_next_in_words(client, learner):
    quiz = timed_exam()
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    attempt_finish(attempt=attempt)
    client.force_login(learner)
    for url in ("/quizzes/", f"/quizzes/{quiz.pk}/"):
        text = visible_text(client.get(url))
        assert "1 used of 2 allowed" in text
        assert "UTC" in text and "in 23 hours" in text, text
        assert not ISO.search(text), ISO.search(text)
    response = client.post(f"/quizzes/{quiz.pk}/start/", follow=True)
    assert response.redirect_chain[-1][0] == f"/quizzes/{quiz.pk}/"
    text = visible_text(response)
    assert "You may take this quiz again from" in text and not ISO.search(text)
    assert Attempt.objects.count() == 1


def test_an_untimed_unlimited_practice_quiz_starts_from_the_list(client, learner):
    quiz = QuizFactory(title="Warm-up", slots=[["weights-memory"]])
    client.force_login(learner)
    body = client.get("/quizzes/").content.decode()
    assert f'action="/quizzes/{quiz.pk}/start/"' in body
    assert "0 used, no limit" in visible_text(client.get("/quizzes/"))


def test_the_list_reads_a_fixed_number_of_times(client, learner):
    client.force_login(learner)
    for i in range(2):
        timed_exam(title=f"Exam {i}")

    def count() -> int:
        with CaptureQueriesContext(connection) as ctx:
            assert client.get("/quizzes/").status_code == 200
        return len(ctx.captured_queries)

    few = count()
    for i in range(6):
        quiz = timed_exam(title=f"More {i}")
        attempt, _ = attempt_start(quiz=quiz, learner=learner)
    assert count() == few <= 12


@pytest.fixture
def fleet(db):
    call_command("load_curricula", verbosity=0)
    call_command("load_tracks", verbosity=0)
    return tracks_all().get(slug="fleet-bringup-health")


def test_a_certification_exam_names_the_lessons_to_master_and_cannot_start(client, learner, fleet):
    client.force_login(learner)
    listing = visible_text(client.get("/quizzes/"))
    assert "Not yet: Master" in listing
    page = client.get(f"/quizzes/{fleet.exam_id}/")
    text = visible_text(page)
    lessons = track_rules([fleet])[fleet.pk].lessons
    assert "Lessons to master before the exam" in text
    for lesson in lessons:
        assert f'href="/lessons/{lesson.slug}/"' in page.content.decode()
    assert f'action="/quizzes/{fleet.exam_id}/start/"' not in page.content.decode()
    refused = client.post(f"/quizzes/{fleet.exam_id}/start/", follow=True)
    assert "opens once every skill of the track" in visible_text(refused)
    assert not Attempt.objects.exists()


def test_once_mastered_the_certification_exam_starts_from_its_page(client, learner, fleet):
    for skill in track_rules([fleet])[fleet.pk].skills:
        SkillMastery.objects.create(learner=learner, skill=skill, p_mastery=0.99)
    client.force_login(learner)
    page = client.get(f"/quizzes/{fleet.exam_id}/")
    assert "Lessons to master before the exam" not in visible_text(page)
    assert f'action="/quizzes/{fleet.exam_id}/start/"' in page.content.decode()
    assert "You may start now" in visible_text(client.get("/quizzes/"))
    client.post(f"/quizzes/{fleet.exam_id}/start/")
    assert Attempt.objects.filter(quiz_id=fleet.exam_id, learner=learner).exists()


def test_no_template_prints_a_raw_datetime():
    """Times on pages go through a filter or the local_time tag (words), never
    `{{ something_at }}`, which Django prints as an ISO-like timestamp."""
    from pathlib import Path

    raw = re.compile(r"\{\{\s*[\w.]*(_at|deadline|expires|until)\s*\}\}")
    root = Path(__file__).resolve().parents[2]
    found = [
        f"{path.relative_to(root)}: {match.group(0)}"
        for app in ("frontend", "accounts", "lti")
        for path in (root / app).rglob("*.html")
        for match in raw.finditer(path.read_text())
    ]
    assert found == []
