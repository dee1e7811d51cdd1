"""An instructor builds a quiz as a draft, previews it as a learner will see it, and
publishes it, at 1280 px and at 390 px (no page of the journey wider than the screen);
the learner sees it only once it is published. At 1280 px the progress tables show every
column without scrolling."""

import pytest
from playwright.sync_api import expect

from assess.models import Quiz
from curricula.models import Course
from curricula.services import curricula_load
from problems.engine import registry
from tests.factories import CourseRoleFactory, EnrolmentFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def pick(page, title: str, slot: int):
    """The builder's checkbox of one template (its group, named by its title) and slot."""
    return page.get_by_role("group", name=title, exact=True).get_by_label(
        f"slot {slot}", exact=True
    )


COURSE = "learn-ai-infrastructure"
WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}


def page_width(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def hidden_columns(page) -> list[int]:
    """How far each table's scroller would scroll sideways (0: nothing hidden)."""
    return page.evaluate(
        "[...document.querySelectorAll('.scroll')].map(e => e.scrollWidth - e.clientWidth)"
    )


@pytest.mark.parametrize("device", list(WIDTHS))
def test_instructor_drafts_previews_and_publishes_a_quiz(
    browser, live_server, sign_in, shot, device
):
    curricula_load()
    course = Course.objects.get(slug=COURSE)
    CourseRoleFactory(user__username="teacher", course=course)
    learner = UserFactory(username="learner")
    EnrolmentFactory(user=learner, course=course)
    width, height = WIDTHS[device]

    def context_page():
        context = browser.new_context(
            viewport={"width": width, "height": height}, base_url=live_server.url
        )
        context.set_default_timeout(15_000)
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        return context, page, errors

    def fits(page, name: str) -> None:
        shot(page, f"lifecycle-{name}-{device}")
        if width <= 390:
            assert page_width(page) <= width, (name, page_width(page))

    teacher_context, page, errors = context_page()
    sign_in(page, "teacher", "/teach/quizzes/new/")
    fits(page, "builder")
    page.get_by_label("Title").fill("Memory warm-up")
    page.get_by_label("Course").select_option(COURSE)
    page.get_by_label("Closes (UTC)").fill("2099-01-01T12:00")

    # Lessons are groups to open; the search filters in place (htmx), opening the groups
    # that match, and keeps what is ticked.
    weights = registry.get("weights-memory").title
    kv = registry.get("kv-cache-per-token").title
    hidden_box = page.locator('input[name="slot1_templates"][value="weights-memory"]')
    page.locator("details.lesson-group", has=hidden_box).locator("summary").click()
    pick(page, weights, 1).check()
    page.get_by_label("Search templates").fill("kv cache per token")
    page.get_by_text("templates listed for “kv cache per token”").wait_for()
    assert page.url.endswith("/teach/quizzes/new/")
    assert pick(page, weights, 1).is_checked()
    pick(page, kv, 2).check()
    assert page.locator("#library code").filter(has_text="gb-gib").count() == 0
    fits(page, "builder-filtered")

    page.get_by_role("button", name="Preview the quiz").click()
    preview = page.locator("#quiz-preview")
    preview.wait_for()
    expect(preview.get_by_role("heading", name=f"Question 1: {weights}")).to_be_visible()
    expect(preview.get_by_role("heading", name=f"Question 2: {kv}")).to_be_visible()
    assert "Worked solution" not in preview.inner_text()
    assert not Quiz.objects.exists()  # a preview saves nothing
    assert page.get_by_label("Title").input_value() == "Memory warm-up"
    fits(page, "builder-preview")

    page.get_by_role("button", name="Save the draft").click()
    page.wait_for_url("**/teach/quizzes/*/")
    quiz = Quiz.objects.get(title="Memory warm-up")
    assert quiz.status == "draft"
    assert [s.templates for s in quiz.slots.order_by("order")] == [
        ["weights-memory"],
        ["kv-cache-per-token"],
    ]
    expect(page.get_by_text("Status: Draft.")).to_be_visible()
    fits(page, "quiz-draft")

    learner_context, learner_page, learner_errors = context_page()
    sign_in(learner_page, "learner", "/quizzes/")
    assert learner_page.get_by_text("Memory warm-up").count() == 0
    assert learner_page.goto(f"/teach/quizzes/{quiz.pk}/preview/").status == 404

    page.get_by_role("link", name="Preview as a learner").click()
    page.wait_for_url("**/preview/")
    assert page.locator(".quiz-preview section.question").count() == 2
    assert page.locator(".quiz-preview input[type=text]").count() >= 2  # answer boxes
    assert "Worked solution" not in page.locator("main").inner_text()
    fits(page, "quiz-preview")

    page.get_by_role("link", name="Back to the quiz").click()
    page.get_by_role("button", name="Publish").click()
    page.get_by_text("Status: Published.").wait_for()
    assert Quiz.objects.get(pk=quiz.pk).status == "published"
    fits(page, "quiz-published")

    learner_page.goto("/quizzes/")
    learner_page.get_by_role("button", name="Start Memory warm-up").click()
    learner_page.wait_for_url("**/attempts/*/")
    fits(learner_page, "learner-attempt")

    page.goto(f"/teach/courses/{COURSE}/progress/")
    expect(page.get_by_role("row", name="learner").first).to_be_visible()
    if width >= 1280:
        assert all(extra <= 0 for extra in hidden_columns(page)), hidden_columns(page)
    fits(page, "progress")

    learner_context.close()
    teacher_context.close()
    assert errors == [] and learner_errors == []
