"""Extensions in the quiz gradebook in chromium (issue 36 item 2), at 390 and 1280 px:
a learner's 13:34 on a 10-minute exam reads with the 5 minutes of extra time they were
given, on the gradebook row and on the attempt; the instructor grants another learner
an extension from that learner's row and revokes the first one's, without the API. Every
page visited fits the screen and axe-core finds no serious or critical violation."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.utils import timezone
from playwright.sync_api import expect

from assess.models import Extension, Quiz
from assess.services.attempts import attempt_finish, attempt_start
from assess.services.extensions import extension_grant
from tests.factories import (
    CourseFactory,
    CourseRoleFactory,
    EnrolmentFactory,
    QuizFactory,
    UserFactory,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BLOCKING = ("serious", "critical")


@pytest.fixture
def book():
    course = CourseFactory(slug="ai-infra", title="AI Infra")
    teacher = CourseRoleFactory(user__username="teacher", course=course).user
    exam = QuizFactory(
        title="Sizing exam",
        mode=Quiz.Mode.EXAM,
        course=course,
        time_limit=timedelta(minutes=10),
        slots=[["weights-memory"]],
    )
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    for user in (ann, bob):
        EnrolmentFactory(user=user, course=course)
    extension_grant(user=teacher, quiz=exam, learner=ann, extra_time=timedelta(minutes=5))
    t0 = timezone.now() - timedelta(hours=2)
    attempt, _ = attempt_start(quiz=exam, learner=ann, now=t0)
    attempt_finish(attempt=attempt, now=t0 + timedelta(minutes=13, seconds=34))
    return {"exam": exam, "ann": ann, "bob": bob, "attempt": attempt}


@pytest.mark.parametrize("width", [390, 1280])
def test_extensions_from_the_gradebook(page, sign_in, shot, book, width):
    page.set_viewport_size({"width": width, "height": 844})
    axe, problems = Axe(), []

    def check(name: str) -> str:
        page.wait_for_load_state("load")
        wide = page.evaluate("document.documentElement.scrollWidth")
        if wide > width:
            problems.append(f"{name}: {wide}px wide at {width}px")
        for violation in axe.run(page).response["violations"]:
            if violation["impact"] in BLOCKING:
                problems.append(f"{name}: axe {violation['id']} ({violation['impact']})")
        return " ".join(page.locator("main").inner_text().split())

    exam, ann, bob = book["exam"], book["ann"], book["bob"]
    url = f"/teach/quizzes/{exam.pk}/gradebook/"
    sign_in(page, "teacher", url)
    check("gradebook")
    ann_row = page.locator(f"#learner-{ann.pk}")
    said = " ".join(ann_row.inner_text().split())
    assert "13:34 (limit 15 minutes: 10 minutes plus 5 minutes extension)" in said, said
    assert "+5 minutes" in said
    shot(page, f"gradebook-extensions-{width}")

    # The attempt says it too.
    ann_row.get_by_role("link", name="#1 attempt by ann").click()
    page.wait_for_url(f"**/attempts/{book['attempt'].pk}/")
    said = check("attempt")
    assert "Time taken 13:34 of 15 minutes (10 minutes plus 5 minutes of extra time)" in said

    # Grant bob 20 minutes from his row.
    page.goto(url)
    bob_row = page.locator(f"#learner-{bob.pk}")
    bob_row.locator("summary").click()
    bob_row.get_by_label("Extra minutes").fill("20")
    check("gradebook (grant form open)")
    bob_row.get_by_role("button", name="Grant the extension for bob").click()
    page.wait_for_url(f"**{url}?page=1#learner-{bob.pk}")  # back to the row's page
    expect(page.get_by_text("bob's extension is saved")).to_be_visible()
    assert "+20 minutes" in page.locator(f"#learner-{bob.pk}").inner_text()
    assert Extension.objects.get(quiz=exam, learner=bob).extra_time == timedelta(minutes=20)

    # Revoke ann's.
    ann_row = page.locator(f"#learner-{ann.pk}")
    ann_row.locator("summary").click()
    ann_row.get_by_role("button", name="Revoke ann's extension").click()
    page.wait_for_url(f"**{url}?page=1#learner-{ann.pk}")
    said = check("gradebook (revoked)")
    assert "ann's extension is revoked" in said
    assert not Extension.objects.filter(quiz=exam, learner=ann).exists()
    assert problems == [], problems
