"""Issue 36, item 5: progress from the learner's own activity, in chromium at 1280 and
390 px. A learner masters a lesson's skills by practising it; another lesson of the
course shares those skills. That lesson is not "started" (the learner answered none of
its questions): the dashboard, course page, lesson page and the instructor's progress
table say "known from other lessons" apart from progress, never "not started" beside a
mastered skill, and print mastery as a percentage, never as a probability."""

from __future__ import annotations

import re

import pytest

from assess.models import SkillMastery
from assess.services.questions import practice_question_add
from assess.services.responses import response_submit
from tests.factories import (
    CourseFactory,
    CourseRoleFactory,
    EnrolmentFactory,
    LessonFactory,
    ModuleFactory,
    UserFactory,
)
from tests.frontend.browser.pagechecks import checked
from tests.frontend.helpers import right_text

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PROBABILITY = re.compile(r"(?<![\d.])0\.\d\d(?!\d)")  # "0.17" as pages once printed it


def setting():
    course = CourseFactory(slug="ai-infra", title="AI Infra")
    module = ModuleFactory(course=course, slug="basic", title="Basic")
    practised = LessonFactory(
        module=module, slug="gpu-memory-math", title="GPU Memory Math", templates=["weights-memory"]
    )
    # tp-min-gpus shares weights-bytes and units-gb-gib with weights-memory.
    LessonFactory(module=module, slug="sharding", title="Sharding", templates=["tp-min-gpus"])
    LessonFactory(
        module=module, slug="the-kv-cache", title="The KV Cache", templates=["kv-cache-per-token"]
    )
    learner = UserFactory(username="learner")
    EnrolmentFactory(user=learner, course=course)
    CourseRoleFactory(user=UserFactory(username="teacher"), course=course)
    for i in range(4):  # right first tries: both skills of the lesson mastered
        practice = practice_question_add(learner=learner, lesson=practised)
        for part in practice.question.answers:
            response_submit(
                attempt=practice.attempt,
                question=practice.question,
                part=part["name"],
                text=right_text(part),
                idempotency_key=f"k{i}-{part['name']}",
            )
    assert SkillMastery.objects.get(learner=learner, skill="weights-bytes").p_mastery >= 0.95


def main_text(page) -> str:
    return page.locator("main").inner_text()


@pytest.mark.parametrize("width", [1280, 390])
def test_progress_counts_only_the_learners_own_answers(page, sign_in, width):
    setting()
    page.set_viewport_size({"width": width, "height": 844})
    sign_in(page, "learner", "/dashboard/")
    checked(page, width, "dashboard")
    course = page.locator("section.course-progress").first
    assert "1 of 3 lessons started" in course.inner_text()  # was "2 of 3": a shared skill
    row = course.locator("tr").filter(has=page.get_by_role("link", name="Sharding"))
    assert "known from other lessons" in row.inner_text()
    assert row.locator("td.num").inner_text() == "0"  # its own answers: none
    kv = course.locator("tr").filter(has=page.get_by_role("link", name="The KV Cache"))
    assert "not started" in kv.inner_text()
    assert not PROBABILITY.search(main_text(page)), main_text(page)

    page.goto("/lessons/sharding/")
    checked(page, width, "lesson sharing skills")
    said = page.locator("#lesson-mastery").inner_text()
    assert "Known from other lessons: 2 of 3 skills mastered" in said
    text = main_text(page)
    assert "not started" not in text.lower()  # never beside a mastered skill
    mastered = page.locator("table.skills tr").filter(has_text="mastered")
    assert mastered.count() == 2 and "known from other lessons" in mastered.first.inner_text()
    assert not PROBABILITY.search(text) and "%" in text

    page.goto("/courses/ai-infra/")
    checked(page, width, "course")
    sharding = page.locator("ol.lessons li").filter(has_text="Sharding")
    assert "known from other lessons" in sharding.inner_text()
    assert "not started" not in sharding.inner_text()
    assert not PROBABILITY.search(main_text(page))

    page.context.clear_cookies()  # signed out: the instructor signs in
    sign_in(page, "teacher", "/teach/courses/ai-infra/progress/")
    checked(page, width, "progress table")
    cells = page.locator("table.progress tbody tr").first.locator("td")
    assert "2/2" in cells.nth(0).inner_text()
    assert "known from other lessons" in cells.nth(1).inner_text()  # was "2/3 (0.17)"
    assert cells.nth(2).inner_text().strip() == "—"
    assert not PROBABILITY.search(main_text(page)), main_text(page)
