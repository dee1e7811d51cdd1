"""An instructor builds a quiz in the browser with a live preview, publishes it, then reads its item
analysis once learners have answered, the progress of the enrolled learners, and adds a
learner to the course; the hardware pages are captured on the way."""

import pytest
from playwright.sync_api import expect

from assess.models import Enrolment, Quiz
from assess.services.attempts import attempt_finish, attempt_start
from assess.services.responses import response_submit
from curricula.models import Course
from curricula.services import curricula_load
from problems.engine import registry
from tests.factories import CourseRoleFactory, EnrolmentFactory, UserFactory
from tests.frontend.browser.test_quiz_lifecycle import pick
from tests.frontend.helpers import gib_slip_text, right_text

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def answer_as(username: str, quiz: Quiz, right: bool) -> None:
    learner = UserFactory(username=username)
    EnrolmentFactory(user=learner, course=quiz.course)
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    for question in attempt.questions.order_by("order"):
        part = question.answers[0]
        if question.template_slug == "weights-memory":
            text = right_text(part) if right else gib_slip_text(part)
        else:
            text = right_text(part) if right else "1"
        response_submit(
            attempt=attempt,
            question=question,
            part=part["name"],
            text=text,
            idempotency_key=f"{username}-{question.pk}",
        )
    attempt_finish(attempt=attempt)


def test_instructor_builds_a_quiz_and_reads_its_item_analysis(page, shot, sign_in):
    curricula_load()
    course = Course.objects.get(slug="learn-ai-infrastructure")
    CourseRoleFactory(user__username="teacher", course=course)
    sign_in(page, "teacher", "/teach/quizzes/new/")

    page.get_by_label("Title").fill("Week 1 check")
    page.get_by_label("Mode", exact=True).select_option("exam")
    page.get_by_label("Course").select_option("learn-ai-infrastructure")
    page.get_by_label("Time limit (minutes)").fill("10")
    # Pools are ticked in the template library, found by a search (which keeps ticks).
    search = page.get_by_label("Search templates")
    for words, ticks in (
        ("weights", [("weights-memory", 1)]),
        ("kv cache", [("kv-cache-per-token", 2), ("kv-cache-total", 2)]),
    ):
        search.fill(words)
        page.get_by_text(f"templates listed for “{words}”").wait_for()
        for slug, slot in ticks:
            pick(page, registry.get(slug).title, slot).check()
    page.get_by_label("Slot 2: points").fill("2")

    page.get_by_label("Template to preview").fill("weights-memory")
    page.get_by_role("button", name="Preview a variant").click()
    preview = page.locator("#preview .preview")
    preview.wait_for()
    assert "Weights memory:" in preview.inner_text() and "Worked solution" in preview.inner_text()
    assert page.url.endswith("/teach/quizzes/new/")  # htmx swapped it in place
    shot(page, "quiz-builder")

    page.get_by_role("button", name="Save the draft").click()
    page.wait_for_url("**/teach/quizzes/*/")
    quiz = Quiz.objects.get(title="Week 1 check")
    assert [s.templates for s in quiz.slots.order_by("order")] == [
        ["weights-memory"],
        ["kv-cache-per-token", "kv-cache-total"],
    ]
    page.get_by_role("button", name="Publish").click()
    page.get_by_text("Status: Published.").wait_for()
    quiz.refresh_from_db()
    page.get_by_role("link", name="Item analysis").click()
    page.wait_for_url("**/items/")
    expect(page.get_by_text("No attempt at this quiz has closed yet")).to_be_visible()

    for i, right in enumerate([True, True, False, False]):
        answer_as(f"learner{i}", quiz, right)
    page.reload()
    assert page.locator("svg.correct rect.bar").count() >= 2
    expect(page.locator("svg.discrimination")).to_be_visible()
    assert "GB and GiB mixed up" in page.locator("table").inner_text()
    shot(page, "item-analysis")

    UserFactory(username="outsider")  # answered nothing here, not enrolled
    page.goto("/teach/courses/learn-ai-infrastructure/progress/")
    expect(page.get_by_role("row", name="learner0").first).to_be_visible()  # a table per module
    assert page.get_by_role("row", name="outsider").count() == 0
    shot(page, "progress")

    page.get_by_role("link", name="manage them").click()
    page.get_by_label("Username").fill("outsider")
    page.get_by_role("button", name="Enrol this learner").click()
    page.get_by_text("outsider is now enrolled.").wait_for()
    expect(page.get_by_role("row", name="outsider")).to_be_visible()
    assert Enrolment.objects.filter(user__username="outsider").exists()
    shot(page, "learners")
    page.get_by_role("button", name="Remove outsider").click()
    page.get_by_text("outsider is no longer enrolled.").wait_for()
    assert not Enrolment.objects.filter(user__username="outsider").exists()

    page.goto("/hardware/compare/")
    page.get_by_label("First accelerator").select_option("h100-sxm")
    page.get_by_label("Second accelerator").select_option("b200")
    page.get_by_role("button", name="Compare").click()
    page.wait_for_url("**b=b200")
    expect(page.get_by_role("cell", name="7.7 TB/s")).to_be_visible()
    shot(page, "hardware-compare")

    page.goto("/hardware/roofline/?accelerator=mi300x&precision=fp8")
    expect(page.locator("svg.roofline circle.ridge")).to_be_visible()
    shot(page, "roofline")
