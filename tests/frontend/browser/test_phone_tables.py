"""Issue 36, item 8, in chromium at 390 px (a phone) and 1280 px: wide tables scroll
with a visible cue and their first column pinned (the course gradebook showed 1 of 3
quizzes with no cue; the progress table broke "learner" a letter a line), the memo's
rubric becomes one card per criterion (its Comment and Instructor columns were off
screen), the sticky exam timer keeps to one line (it wrapped to four, 15% of the
screen), and "Practice this lesson" is within the lesson page's first screen (it was
2,630 px down). Pages and state from the demo data (journeys.seed); axe finds nothing
serious or critical on any page visited."""

from __future__ import annotations

import pytest

from tests.frontend.browser.journeys import DEMO_PASSWORDS, seed
from tests.frontend.browser.pagechecks import checked

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

HEIGHT = 844

LINES = """el => {
  const s = getComputedStyle(el);
  const inner = el.clientHeight - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom);
  return inner / parseFloat(s.lineHeight);
}"""

# How many lines the first text of an element (a row's username) is broken over.
NAME_LINES = """el => {
  const range = document.createRange();
  range.selectNodeContents(el.firstChild);
  return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
}"""

# The first column's left edge before and after the box scrolls sideways, and whether
# the box overflows at all.
PINNED = """box => {
  const cell = box.querySelector("tbody tr > :first-child");
  const before = cell.getBoundingClientRect().left;
  box.scrollLeft = 400;
  const moved = box.scrollLeft;
  const after = cell.getBoundingClientRect().left;
  box.scrollLeft = 0;
  return {overflows: box.scrollWidth > box.clientWidth + 1, moved, before, after};
}"""


def signed_in(browser, base_url: str, width: int, username: str):
    context = browser.new_context(viewport={"width": width, "height": HEIGHT}, base_url=base_url)
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(DEMO_PASSWORDS[username])
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/dashboard/")
    return context, page


def wide_table_problems(page, width: int, where: str) -> list[str]:
    """What is wrong with the page's first wide table: no cue while it overflows (or one
    while it fits), a first column that scrolls away; at 390 px it must overflow."""
    box = page.locator("div.scroll").filter(has=page.locator("table")).first
    page.wait_for_timeout(100)  # scroll-regions.js marks overflowing boxes on a frame
    state = box.evaluate(PINNED)
    cue = box.locator(".scroll-cue")
    problems = []
    if state["overflows"]:
        if not (cue.count() and cue.is_visible()):
            problems.append(f"{where}: no cue that the table scrolls sideways")
        if not (state["moved"] > 0 and abs(state["after"] - state["before"]) < 1):
            problems.append(f"{where}: the first column scrolls away: {state}")
    elif cue.count() and cue.is_visible():
        problems.append(f"{where}: a cue for a table that fits")
    if width == 390 and not state["overflows"]:
        problems.append(f"{where}: expected a table wider than a phone")
    return problems


def lines(locator) -> float:
    return locator.evaluate(LINES)


@pytest.mark.parametrize("width", [390, 1280])
def test_phone_layouts_of_tables_timer_and_lesson(browser, live_server, width):
    journeys = seed()
    problems: list[str] = []

    context, page = signed_in(browser, live_server.url, width, "learner")
    try:
        page.goto(journeys.learner["lesson"])
        checked(page, width, "lesson")
        if "{#" in page.locator("main").inner_text():
            problems.append("lesson: a template comment printed on the page")
        # The primary action: continuing the open session, else starting one.
        primary = page.get_by_role("link", name="Continue your session").or_(
            page.get_by_role("button", name="Practice this lesson")
        )
        box = primary.first.bounding_box()
        if box["y"] + box["height"] > HEIGHT:
            problems.append(f"lesson: the primary action at {box['y']:.0f} px")

        page.goto(journeys.learner["exam question"])
        checked(page, width, "exam question")
        timer = page.locator("p.timer")
        page.locator("#countdown").filter(has_text=":").wait_for()  # the clock ticks
        if lines(timer) >= 1.5 or timer.bounding_box()["height"] > 0.07 * HEIGHT:
            problems.append(
                f"timer: {lines(timer):.1f} lines, {timer.bounding_box()['height']:.0f} px"
            )
    finally:
        context.close()

    context, page = signed_in(browser, live_server.url, width, "instructor")
    try:
        page.goto(journeys.instructor["course gradebook"])
        checked(page, width, "course gradebook")
        problems += wide_table_problems(page, width, "course gradebook")

        page.goto(journeys.instructor["progress"])
        checked(page, width, "progress")
        problems += wide_table_problems(page, width, "progress")
        learner = page.locator("table.progress tbody th[scope=row]").first
        name_lines = learner.evaluate(NAME_LINES)
        if name_lines > 1:
            problems.append(f"progress: the learner's username takes {name_lines} lines")

        page.goto(journeys.instructor["memo review"])
        checked(page, width, "memo review")
        rubric = page.locator("table.rubric")
        assert rubric.count() == 1, "the demo memo has a finished review"
        rights = rubric.locator("td, th").evaluate_all(
            "cs => cs.map(c => Math.round(c.getBoundingClientRect().right))"
        )
        if width == 390:  # a card per criterion: each cell on screen, saying what it is
            if max(rights) > width:
                problems.append(f"rubric: a column ends at {max(rights)} px, off screen")
            comment = rubric.locator("td[data-label=Comment]")
            label = (
                comment.first.evaluate("c => getComputedStyle(c, '::before').content")
                if (comment.count())
                else ""
            )
            if "Comment" not in label:
                problems.append("rubric: a comment not labelled as one on a card")
    finally:
        context.close()
    assert problems == [], "\n".join(problems)
