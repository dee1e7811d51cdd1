"""The documentation site has a page for each reader, each with the headings its readers
need (issue 38), every page is in the navigation, and every image a page shows exists.

The table is the contract: a page that loses a section, or a reader who loses a page,
fails here by name, before a reader finds the gap.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

pytestmark = pytest.mark.db_independent  # reads files only

PAGES = {
    "index.md": ["Which guide is yours", "Trying it"],
    "learners.md": [
        "Signing in",
        "Practice and mastery",
        "Exams and their rules",
        "Hints and reveals",
        "The capstone",
        "Certification",
    ],
    "instructors.md": [
        "Courses and enrolment",
        "The quiz builder",
        "Feedback policies",
        "Gradebooks and CSV",
        "Extensions",
        "Item analysis",
        "Memo reviews and decisions",
        "Regrades",
    ],
    "managers.md": [
        "Organisations and teams",
        "Tracks and certificates",
        "Readiness",
        "The check API",
        "Revocation",
    ],
    "lms-administrators.md": [
        "Registering Burn-in in Moodle",
        "Registering Burn-in in Canvas",
        "Deployments and the courses they may launch into",
        "Deep linking",
        "Grade passback and its states",
        "Rosters",
        "Key rotation",
    ],
    "operators/index.md": [
        "Compose",
        "Scaling web and workers",
        "The Celery queues",
        "Throttles",
        "Mail",
        "Upgrades",
    ],
    "operators/settings.md": ["Core", "Database", "Cache", "Celery", "Mail"],
    "api.md": [
        "Authentication and tokens",
        "Errors",
        "Pagination",
        "Versions and compatibility",
        "Idempotency",
        "Generating a client",
        "Worked example: practice",
        "Worked example: exams",
        "Worked example: grades",
    ],
    "developers/architecture.md": ["One road for an answer", "The layers"],
    "developers/templates.md": ["The problems command"],
    "developers/testing.md": ["CI", "The documentation", "Runnable examples", "Screenshots"],
    "developers/benchmarks.md": [],  # bench/README.md, included whole
    "reliability.md": [],  # as it is (tests/test_reliability_doc.py)
}
# A page under this many words is a stub, not a guide.
MIN_WORDS = 300


def headings(text: str) -> list[str]:
    """The page's ## and ### headings, outside fenced code."""
    text = re.sub(r"^(`{3,}|~{3,}).*?^\1\s*$", "", text, flags=re.M | re.S)
    return [m[1].strip() for m in re.finditer(r"^#{2,3} (.+)$", text, re.M)]


def nav_files(node) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [f for item in node for f in nav_files(item)]
    if isinstance(node, dict):
        return [f for value in node.values() for f in nav_files(value)]
    return []


def rendered_text(page: str) -> str:
    text = (DOCS / page).read_text()
    # A snippet include stands for the file it includes.
    return re.sub(r'^--8<-- "([^"]+)"$', lambda m: (ROOT / m[1]).read_text(), text, flags=re.M)


@pytest.mark.parametrize("page", sorted(PAGES))
def test_each_page_has_its_headings_and_substance(page):
    text = rendered_text(page)
    missing = [h for h in PAGES[page] if h not in headings(text)]
    assert missing == [], f"docs/{page} lacks the sections {missing}"
    assert len(text.split()) >= MIN_WORDS, f"docs/{page} is a stub"


def test_the_navigation_is_the_table():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    assert config["docs_dir"] == "docs" and config["strict"] is True
    listed = nav_files(config["nav"])
    assert sorted(listed) == sorted(PAGES)
    on_disk = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))
    assert on_disk == sorted(PAGES), "every page in docs/ is in the table and the navigation"


IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)")


def referenced_images() -> list[tuple[str, Path]]:
    return [
        (page, (DOCS / page).parent / target)
        for page in PAGES
        for target in IMAGE.findall((DOCS / page).read_text())
        if "://" not in target
    ]


def test_every_image_a_page_shows_exists():
    refs = referenced_images()
    assert len(refs) >= 6, "the guides show the screenshots"
    missing = [
        f"docs/{page} -> {path.relative_to(ROOT)}" for page, path in refs if not path.is_file()
    ]
    assert missing == [], f"run make docs-screenshots: {missing}"


def test_the_guides_show_both_widths_of_the_screenshots():
    shown = {path.name for _, path in referenced_images()}
    assert any(name.endswith("-1280.png") for name in shown)
    assert any(name.endswith("-390.png") for name in shown)


def test_the_strict_build_fails_on_a_missing_image(tmp_path):
    """`make docs` (mkdocs build --strict) is what CI runs: with one screenshot gone, the
    same configuration refuses to build, naming the image."""
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs)
    (docs / "images" / "team-1280.png").unlink()
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    config.update(docs_dir=str(docs), site_dir=str(tmp_path / "site"))
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config))
    proc = subprocess.run(  # noqa: S603 - our interpreter's mkdocs
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(tmp_path / "mkdocs.yml")],
        cwd=ROOT,  # the snippets' base path (bench/README.md)
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=120,
    )
    assert proc.returncode != 0
    assert "team-1280.png" in proc.stderr
