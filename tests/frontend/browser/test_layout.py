"""Every main page of the learner's and the instructor's journeys, in chromium at a
laptop's width (1280 px) and a phone's (390 px): nothing is wider than the screen (wide
tables and long formulas scroll inside their own box), and axe-core finds no serious or
critical violation. On the phone the header is one row whose menu is a <details> that
opens without JavaScript, the dashboard chart's text stays readable, and a long formula
of a reviewed exam scrolls in its own keyboard-focusable box.

The pages and the state behind them (a worked solution showing, an exam reviewed,
gradebooks with scores, a memo under review, a team's readiness) come from
`journeys.seed`, built from the demo data through the services.
"""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.frontend.browser.journeys import DEMO_PASSWORDS, seed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = (1280, 390)
HEIGHT = 844
BLOCKING = ("serious", "critical")

# What widens the page: every element whose right edge passes the viewport while no
# ancestor clips or scrolls it, named so a failure says where to look.
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const culprits = [];
  for (const el of document.querySelectorAll("body *")) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.right <= width + 1) continue;
    let up = el.parentElement, held = false;
    for (; up && up !== document.body; up = up.parentElement) {
      if (getComputedStyle(up).overflowX !== "visible") { held = true; break; }
    }
    const name = `${el.tagName.toLowerCase()}.${el.className}`;
    if (!held) culprits.push(`${name} to ${Math.round(box.right)}px`);
  }
  return {scrollWidth: document.documentElement.scrollWidth, width, culprits: culprits.slice(0, 3)};
}"""

SMALLEST_CHART_TEXT = """() => {
  const sizes = [];
  for (const svg of document.querySelectorAll("svg.chart")) {
    const shown = svg.getBoundingClientRect().width;
    if (!shown) continue;  // the drawing for the other width
    const scale = shown / svg.viewBox.baseVal.width;
    for (const text of svg.querySelectorAll("text")) {
      sizes.push(parseFloat(getComputedStyle(text).fontSize) * scale);
    }
  }
  return sizes.length ? Math.min(...sizes) : null;
}"""


def sign_in(page, username: str) -> None:
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(DEMO_PASSWORDS[username])
    page.get_by_role("button", name="Sign in").click()
    # A learner or instructor lands on the dashboard, the manager on their team.
    page.wait_for_url(re.compile(r".*/(dashboard|teams/[0-9]+)/$"))


def walk(browser, base_url: str, width: int, who: str, pages: dict[str, str], problems: list):
    """Visit each page as `who`; add to `problems` what is wider than the screen and what
    axe finds serious or critical."""
    context = browser.new_context(viewport={"width": width, "height": HEIGHT}, base_url=base_url)
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    axe = Axe()
    try:
        if who != "anonymous":
            sign_in(page, who)
        for name, url in pages.items():
            page.goto(url)
            page.wait_for_load_state("load")
            fit = page.evaluate(OVERFLOW)
            if fit["scrollWidth"] > width:
                problems.append(f"{who} {name} ({url}) at {width}px: {fit}")
            report = axe.run(page)
            for violation in report.response["violations"]:
                if violation["impact"] in BLOCKING:
                    targets = [n["target"] for n in violation["nodes"][:3]]
                    problems.append(
                        f"{who} {name} ({url}) at {width}px: axe {violation['id']} "
                        f"({violation['impact']}) on {targets}"
                    )
    finally:
        context.close()
    problems.extend(f"{who}: JavaScript error {e}" for e in errors)


def phone_checks(browser, base_url: str, journeys) -> list[str]:
    """At 390 px, as the learner: the dashboard chart's text stays at 11 px or more, and
    a long formula of the reviewed exam scrolls inside its own box, reachable by keyboard,
    while the page itself does not scroll."""
    context = browser.new_context(viewport={"width": 390, "height": HEIGHT}, base_url=base_url)
    page = context.new_page()
    problems = []
    try:
        sign_in(page, "learner")
        page.goto("/dashboard/")
        if not page.locator(".chart-compact svg.chart").is_visible():
            problems.append("dashboard: the phone drawing of the chart is not shown")
        smallest = page.evaluate(SMALLEST_CHART_TEXT)
        if smallest is None or smallest < 11:  # the 680-wide drawing gave about 6 px
            problems.append(f"dashboard: chart text {smallest} px")

        page.goto(journeys.learner["exam review"])
        formulas = page.locator("math[display='block']")
        boxes = formulas.evaluate_all(
            "ms => ms.map(m => [m.scrollWidth, m.clientWidth, m.getAttribute('tabindex')])"
        )
        scrolling = [i for i, (wide, shown, _) in enumerate(boxes) if wide > shown + 1]
        if not scrolling:
            return [*problems, f"exam review: no formula wider than a phone: {boxes}"]
        if any(boxes[i][2] != "0" for i in scrolling):
            problems.append(f"exam review: a scrolling formula is not focusable: {boxes}")
        if any(tabindex is not None for wide, shown, tabindex in boxes if wide <= shown + 1):
            problems.append(f"exam review: a formula that fits is a tab stop: {boxes}")
        box = formulas.nth(scrolling[0])
        box.focus()
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        page.wait_for_function("m => m.scrollLeft > 0", arg=box.element_handle())
        if page.evaluate("document.documentElement.scrollWidth") > 390:
            problems.append("exam review: scrolling a formula widened the page")
    finally:
        context.close()
    return problems


@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_fits_the_screen_and_passes_axe(browser, live_server, width):
    journeys = seed()
    problems: list[str] = []
    visited = 0
    for who in ("anonymous", "learner", "instructor", "manager"):
        pages = getattr(journeys, who)
        walk(browser, live_server.url, width, who, pages, problems)
        visited += len(pages)
    assert visited >= 35  # the walk really covers both journeys
    if width == 390:
        problems += phone_checks(browser, live_server.url, journeys)
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("script", [True, False], ids=["with-js", "without-js"])
def test_on_a_phone_the_header_is_one_row_with_a_menu(browser, live_server, script):
    context = browser.new_context(
        viewport={"width": 390, "height": HEIGHT},
        base_url=live_server.url,
        java_script_enabled=script,
    )
    page = context.new_page()
    page.goto("/hardware/")
    assert page.locator("header.site").bounding_box()["height"] <= 64  # was 161 px
    courses = page.get_by_role("link", name="Courses", exact=True)
    expect(courses).not_to_be_visible()  # folded away in the menu
    page.get_by_text("Menu", exact=True).click()  # a <details>: opens with no script
    expect(courses).to_be_visible()
    expect(page.get_by_role("link", name="Sign in")).to_be_visible()
    courses.click()
    page.wait_for_url("**/courses/")
    context.close()


def test_at_a_laptop_width_the_menu_is_laid_out_inline(page):
    page.goto("/hardware/")
    expect(page.get_by_role("link", name="Courses", exact=True)).to_be_visible()
    expect(page.get_by_role("link", name="Sign in")).to_be_visible()
    expect(page.get_by_text("Menu", exact=True)).not_to_be_visible()
    assert page.locator("header.site").bounding_box()["height"] <= 64
