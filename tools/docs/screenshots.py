"""`make docs-screenshots`: the guides' screenshots, taken from the demo data.

Starts a demo server (tools/docs/server.py), gives it a little history through the API
as the demo learner would (a practice answer, a finished exam) so the pages are not
empty, then drives Debian's chromium with Playwright (executable_path: never a
downloaded browser) through the main pages at 1280 and 390 px and writes each as a PNG
into docs/images/ (`NAME-1280.png`, `NAME-390.png`). Only the first screenful is taken
(no full-page captures), so the committed images stay small (30-110 KiB each: flat
page colours compress as well in PNG as in JPEG at quality 70, without its smudges);
the sizes are printed.

    python -m tools.docs.screenshots [--out docs/images]
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path

from tools.docs.server import ROOT, demo_server

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"]
WIDTHS = {1280: 800, 390: 844}  # width: height of the screenful
PASSWORDS = {
    "learner": "learner-demo-pass",
    "instructor": "instructor-demo-pass",
    "manager": "manager-demo-pass",
}
LESSON = "batching-and-the-memory-ceiling"


class Api:
    """Just enough of the REST API to give the demo learner some history."""

    def __init__(self, base: str, username: str):
        self.base = base
        self.token = self.call(
            "POST",
            "/api/auth/token/",
            {
                "username": username,
                "password": PASSWORDS[username],
            },
        )["token"]

    def call(self, method: str, path: str, body: dict | None = None) -> dict:
        request = urllib.request.Request(  # noqa: S310 - our own server
            self.base + path,
            method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={"Content-Type": "application/json"},
        )
        if getattr(self, "token", None):
            request.add_header("Authorization", f"Token {self.token}")
        with urllib.request.urlopen(request) as response:  # noqa: S310
            return json.load(response)


def history(base: str) -> dict[str, str]:
    """A practice question answered wrongly, and the demo exam finished: the paths of the
    pages that show them."""
    learner = Api(base, "learner")
    practice = learner.call("POST", f"/api/lessons/{LESSON}/practice/")
    attempt, question = practice["attempt"], practice["question"]
    learner.call(
        "POST",
        f"/api/attempts/{attempt}/responses/",
        {
            "question": question["id"],
            "part": question["parts"][0]["name"],
            "answer": "12",
            "idempotency_key": "screenshot-practice",
        },
    )
    quizzes = learner.call("GET", "/api/quizzes/")["results"]
    exam = next(q["id"] for q in quizzes if q["mode"] == "exam")
    started = learner.call("POST", f"/api/quizzes/{exam}/attempts/")
    for q in started["questions"]:
        part = q["parts"][0]
        if part["kind"] == "choice":
            continue
        learner.call(
            "POST",
            f"/api/attempts/{started['id']}/responses/",
            {
                "question": q["id"],
                "part": part["name"],
                "answer": "1",
                "idempotency_key": f"screenshot-exam-{q['id']}",
            },
        )
    learner.call("POST", f"/api/attempts/{started['id']}/finish/")
    team = Api(base, "manager").call("GET", "/api/teams/")["results"][0]["id"]
    return {
        "question": f"/attempts/{attempt}/q/{question['id']}/",
        "gradebook": f"/teach/quizzes/{exam}/gradebook/",
        "team": f"/teams/{team}/",
    }


def shots(paths: dict[str, str]) -> list[tuple[str, str | None, str]]:
    """(name, who signs in, path) for every page the guides show."""
    return [
        ("home", None, "/"),
        ("dashboard", "learner", "/dashboard/"),
        ("lesson", "learner", f"/lessons/{LESSON}/"),
        ("question", "learner", paths["question"]),
        ("teach", "instructor", "/teach/"),
        ("gradebook", "instructor", paths["gradebook"]),
        ("team", "manager", paths["team"]),
    ]


def sign_in(page, username: str) -> None:
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORDS[username])
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/dashboard/")


def capture(base: str, out: Path, report: Callable[[str], None]) -> list[Path]:
    from playwright.sync_api import sync_playwright

    paths = history(base)
    written: list[Path] = []
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        for width, height in WIDTHS.items():
            contexts: dict[str | None, object] = {}
            for name, who, path in shots(paths):
                if who not in contexts:
                    contexts[who] = browser.new_context(
                        viewport={"width": width, "height": height}, base_url=base
                    )
                    if who:
                        sign_in(contexts[who].new_page(), who)
                page = contexts[who].new_page()
                page.goto(path)
                page.wait_for_load_state("networkidle")
                target = out / f"{name}-{width}.png"
                page.screenshot(path=str(target))
                page.close()
                written.append(target)
                report(f"{target.relative_to(ROOT)}: {target.stat().st_size // 1024} KiB")
            for context in contexts.values():
                context.close()
        browser.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"Debian's chromium is not at {CHROMIUM} (apt-get install chromium)", file=sys.stderr)
        return 1
    with demo_server() as base:
        written = capture(base, args.out.resolve(), print)
    total = sum(path.stat().st_size for path in written)
    print(f"{len(written)} screenshots, {total // 1024} KiB in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
