"""What every browser test of issue 36's items checks on each page it visits: the page
is no wider than the screen, and axe-core finds nothing serious or critical."""

from __future__ import annotations

from axe_playwright_python.sync_playwright import Axe

AXE = Axe()
BLOCKING = ("serious", "critical")


def fits(page, width: int, where: str) -> None:
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, f"{where}: {scroll} px wide at {width} px"


def axe_clean(page, where: str) -> None:
    violations = AXE.run(page).response["violations"]
    bad = [
        (v["id"], v["impact"], [n["html"][:80] for n in v["nodes"][:3]])
        for v in violations
        if v["impact"] in BLOCKING
    ]
    assert bad == [], f"{where}: {bad}"


def checked(page, width: int, where: str) -> None:
    """Both checks, for a page just loaded."""
    fits(page, width, where)
    axe_clean(page, where)
