"""README.md is what a newcomer needs first and nothing more (issue 38): at most about
150 lines, and every relative link and image in it resolves; the rest lives in docs/."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MAX_LINES = 160
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")

pytestmark = pytest.mark.db_independent  # reads files only


def test_the_readme_stays_short():
    lines = README.read_text().splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines: move detail to docs/"


def test_every_relative_link_in_the_readme_resolves():
    targets = LINK.findall(README.read_text())
    relative = [t for t in targets if not re.match(r"[a-z]+:", t) and not t.startswith("#")]
    assert len(relative) >= 10, "the README points at the guides"
    missing = [t for t in relative if not (ROOT / t.split("#")[0]).exists()]
    assert missing == []


def test_the_readme_names_every_guide_and_the_two_commands():
    text = README.read_text()
    for page in (
        "docs/learners.md",
        "docs/instructors.md",
        "docs/managers.md",
        "docs/lms-administrators.md",
        "docs/operators/index.md",
        "docs/operators/settings.md",
        "docs/api.md",
        "docs/developers/architecture.md",
        "docs/developers/templates.md",
    ):
        assert f"]({page})" in text, page
    assert "make run" in text and "make test" in text
    assert "learner-demo-pass" in text  # the demo accounts


def test_the_stated_template_and_drill_counts_are_the_registries():
    """README and the architecture page say how many templates, families and drills
    there are; the registries decide, so the words cannot drift from the code."""
    from problems.drills import registry as drills
    from problems.engine import registry

    slugs = registry.slugs()
    families = {registry.get(s).family for s in slugs}
    stated = f"{len(slugs)} templates in {len(families)} families and {len(drills.slugs())} drills"
    for page in (ROOT / "README.md", ROOT / "docs" / "developers" / "architecture.md"):
        assert stated in " ".join(page.read_text().split()), page
