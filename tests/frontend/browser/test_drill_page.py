"""An incident drill in lesson practice, in chromium at 390 px (a phone) and 1280 px: the
learner takes the expert's three looks and one wrong disruptive act through htmx, each
output lands in its own box that scrolls sideways while the page never does, focus
follows each step, and the right diagnosis comes back with the wrong act named and the
timeline beside the expert path. axe finds nothing serious or critical."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from assess.services.questions import practice_question_add
from problems.engine.variants import Variant
from tests.factories import CourseFactory, LessonFactory, ModuleFactory, UserFactory
from tests.frontend.browser.pagechecks import checked, fits

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SLUG = "drill-gpu-off-bus"

# Each output box: does it scroll sideways by itself (and not spill out of the page)?
BOXES = """() => [...document.querySelectorAll("pre.drill-output")].map(el => {
  const s = getComputedStyle(el);
  const before = el.scrollLeft;
  el.scrollLeft = 200;
  const moved = el.scrollLeft;
  el.scrollLeft = before;
  return {overflowX: s.overflowX, right: el.getBoundingClientRect().right,
          overflows: el.scrollWidth > el.clientWidth + 1, moved};
})"""

WIDE = "() => [document.documentElement.scrollWidth, window.innerWidth]"


def take(page, qid: int, action: str, number: int) -> None:
    """Unfold the action's group if it is folded, press its button, wait for its step."""
    group = page.locator(f'details.drill-group:has(input[name=action][value="{action}"])')
    if not group.evaluate("el => el.open"):
        group.locator("summary").click()
    form = page.locator(f'form:has(input[name=action][value="{action}"])')
    form.get_by_role("button").click()
    page.locator(f"#drill-{qid}-step-{number}").wait_for()
    page.wait_for_function(f"() => document.activeElement.id === 'drill-{qid}-step-{number}'")


@pytest.mark.parametrize("width", [390, 1280])
def test_a_practice_drill_at_phone_and_laptop_width(page, sign_in, shot, width):
    course = CourseFactory(slug="oncall", title="On call")
    module = ModuleFactory(course=course, slug="triage", title="Triage")
    lesson = LessonFactory(module=module, slug="triage-drills", title="Drills", templates=[SLUG])
    learner = UserFactory(username="learner")
    p = practice_question_add(learner=learner, lesson=lesson)
    q = p.question
    variant = Variant.from_params(q.template_slug, q.params)
    drill = variant.template.drill(variant.params)
    host = drill.answer.location.split(":")[0]
    healthy = next(n.hostname for n in drill.state.nodes if n.hostname != host)
    wrong = f"resume@{healthy}"  # disruptive, 1 minute: only the safety point is lost
    assert len(drill.expert_path) == 3 and wrong not in drill.handling

    page.set_viewport_size({"width": width, "height": 844})
    url = f"/attempts/{p.attempt.pk}/q/{q.pk}/"
    sign_in(page, "learner", url)
    page.get_by_role("heading", name="Steps taken").wait_for()
    checked(page, width, "drill before any action")

    for n, action in enumerate([*drill.expert_path, wrong], start=1):
        take(page, q.pk, action, n)
    outputs = page.locator("pre.drill-output")
    assert outputs.count() == 4
    for (_, printed), n in zip(drill.replay([*drill.expert_path, wrong]), range(4), strict=True):
        assert outputs.nth(n).inner_text().strip() == printed.strip()
    assert "Step 4: " in page.locator("#announcer").inner_text()
    wrong_button = page.locator(f'form:has(input[value="{wrong}"]) button')
    assert wrong_button.inner_text().startswith("DISRUPTIVE:") or "Disruptive:" in (
        wrong_button.text_content()
    )
    # Every group unfolded: the longest labels still fit the screen.
    page.evaluate(
        "() => document.querySelectorAll('details.drill-group').forEach(d => d.open = true)"
    )
    scroll, inner = page.evaluate(WIDE)
    assert scroll <= inner, f"{scroll} px wide at {inner} px"
    boxes = page.evaluate(BOXES)
    assert all(b["overflowX"] == "auto" and b["right"] <= inner for b in boxes), boxes
    if width == 390:  # tool output is wider than a phone: its box scrolls, not the page
        assert any(b["overflows"] and b["moved"] > 0 for b in boxes), boxes
    shot(page, f"drill-steps-{width}")

    ans = drill.answer
    page.get_by_label("Fault kind").select_option(ans.fault)
    page.get_by_label("Location").select_option(ans.location)
    page.get_by_label("First remedy").select_option(ans.remedy)
    page.get_by_role("button", name="Submit diagnosis").click()
    result = page.locator(f"#drill-{q.pk}-result")
    result.wait_for()
    page.wait_for_function(f"() => document.activeElement.id === 'drill-{q.pk}-result'")
    assert "Score: 90%" in result.inner_text()
    safety = page.locator(f"#fb-{q.pk}-safety").inner_text()
    assert "Not correct" in safety and drill.action(wrong).label in safety
    assert "Score: 90%" in page.locator("#announcer").inner_text()
    paths = page.get_by_role("heading", name="Your timeline beside the expert path")
    expect(paths).to_be_visible()
    expert = page.locator("ol.drill-timeline.expert li")
    assert expert.count() == 3
    for i, action in enumerate(drill.expert_path):
        assert drill.action(action).label in expert.nth(i).inner_text()
    mine = page.locator("ol.drill-timeline:not(.expert) li")
    assert mine.count() == 4 and "not needed" in mine.nth(3).inner_text()
    assert page.locator("form.drill-submit").count() == 0
    assert page.locator("button.drill-action").count() == 0
    fits(page, width, "drill after the diagnosis")
    scroll, inner = page.evaluate(WIDE)
    assert scroll <= inner
    checked(page, width, "drill after the diagnosis")
    shot(page, f"drill-result-{width}")
