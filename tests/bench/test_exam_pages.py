"""The web-page exam's request sequence (bench/exam_pages.py), end to end through Django's
test client with CSRF checks on (not locust): a learner signed in beforehand opens the
start page, starts, answers every part of the paper by its autosaves (drafts stay in the
browser: no request), and finishes; every part is stored once, the result page shows,
and nothing failed."""

from __future__ import annotations

import random

import pytest

from assess.models import Attempt, Response
from bench.exam_pages import PAGE_ENDPOINTS, page_requests, paper_parts, signed_in_session
from bench.page_costs import ClientSession
from tests.bench.locust_doubles import bench_exam
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_a_learner_takes_the_exam_through_the_pages_and_every_part_is_stored():
    quiz, _ = bench_exam()
    learner = UserFactory._meta.model.objects.get(username="bench-0")
    browser, thinks = ClientSession(enforce_csrf_checks=True), []

    sent = page_requests(
        browser, quiz.pk, signed_in_session(learner), lambda: thinks.append(1), random.Random(1)
    )

    assert browser.failures == []
    attempt = Attempt.objects.get(quiz=quiz, learner=learner)
    assert attempt.status == Attempt.Status.FINISHED
    parts = sum(len(q.answers) for q in attempt.questions.all())
    stored = Response.objects.filter(attempt=attempt)
    assert sent == parts == stored.count() == browser.names.count("autosave")
    assert stored.values("question", "part").distinct().count() == parts  # each part once
    assert len(browser.names) == 3 + parts + 2  # the draft requests are gone
    assert browser.names[:3] == ["start page", "start", "exam page"]
    assert browser.names[-2:] == ["finish", "result page"]
    assert set(browser.names) == set(PAGE_ENDPOINTS)


def test_a_request_without_the_session_fails_and_says_so():
    quiz, _ = bench_exam()
    browser = ClientSession(enforce_csrf_checks=True)
    assert page_requests(browser, quiz.pk, "no-such-session", lambda: None, random.Random(1)) == 0
    assert browser.names == ["start page"]
    assert browser.failures and browser.failures[0].startswith("start page: 302")
    assert not Attempt.objects.exists()


def test_the_paper_s_forms_and_parts_are_read_from_its_html():
    html = (
        '<form class="answer" method="post" action="/attempts/7/q/41/answer/">'
        '<input name="part-bytes" type="text" value="">'
        '<input type="radio" name="part-fabric" value="NVLink"> '
        '<input type="radio" name="part-fabric" value="PCIe"></form>'
        '<form action="/attempts/7/q/42/answer/"><input name="part-gib" type="text"></form>'
    )
    assert paper_parts(html) == [
        (41, [("part-bytes", []), ("part-fabric", ["NVLink", "PCIe"])]),
        (42, [("part-gib", [])]),
    ]
