"""The docs' code blocks, read from the pages and checked: runnable ones are run against a
live server on the demo data, illustrative ones are linted.

The convention (docs/developers/testing.md says it to writers):

- A fence's title says what the block is: ```` ```sh title="runnable" ```` or
  ```` ```python title="runnable" ```` is run; ```` title="illustrative" ```` (shell,
  Python or YAML that cannot run here, such as `docker compose`) is only linted: shell by
  `bash -n`, Python by its parser, YAML by a YAML parser. MkDocs Material shows the title
  above the block, so a reader sees which is which.
- Every `sh`, `bash`, `python` and `yaml` fence on a page carries one of the two titles;
  an unmarked one is an error, so nothing slips past both checks.
- A page's runnable shell blocks run in order in one bash (`set -euo pipefail`), so a
  later block may use a variable an earlier one set (`$TOKEN`); each runnable Python
  block runs alone.
- Runnable blocks run from the checkout's root with the project's `python` first on
  the PATH, and address the server as `http://127.0.0.1:8000` (`make run`'s); the
  runner substitutes the live server's address.

    python -m tools.docs.examples              # start a demo server and run every page
    python -m tools.docs.examples --base-url http://127.0.0.1:8000   # against `make run`
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
ORIGIN = "http://127.0.0.1:8000"
CHECKED_LANGS = {"sh", "bash", "python", "yaml"}
MARKERS = {"runnable", "illustrative"}
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
TIMEOUT = 120


@dataclass(frozen=True)
class Block:
    page: str  # relative to docs/
    line: int  # the opening fence's line, 1-based
    lang: str
    marker: str | None
    code: str

    @property
    def where(self) -> str:
        return f"docs/{self.page}:{self.line}"


@dataclass(frozen=True)
class Failure:
    block: Block
    reason: str

    def __str__(self) -> str:
        return f"{self.block.where} ({self.block.lang}, {self.block.marker}): {self.reason}"


def read_blocks(path: Path, page: str | None = None) -> list[Block]:
    """Every fenced block of a Markdown file, with its language and its title marker."""
    page = page or str(path.relative_to(DOCS))
    lines = path.read_text().splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        fence, indent, info = match["fence"], len(match["indent"]), match["info"].strip()
        lang = info.split()[0].lower() if info else ""
        title = re.search(r'title="([^"]*)"', info)
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            body.append(lines[j][indent:] if lines[j][:indent].isspace() else lines[j])
            j += 1
        found.append(Block(page, i + 1, lang, title[1] if title else None, "\n".join(body)))
        i = j + 1
    return found


def all_blocks(docs: Path = DOCS) -> list[Block]:
    return [b for path in sorted(docs.rglob("*.md")) for b in read_blocks(path)]


def unmarked(blocks: list[Block]) -> list[Failure]:
    return [
        Failure(b, "a sh, bash, python or yaml block must be titled runnable or illustrative")
        for b in blocks
        if b.lang in CHECKED_LANGS and b.marker not in MARKERS
    ]


def lint(block: Block) -> Failure | None:
    """An illustrative block must at least parse."""
    if block.lang in {"sh", "bash"}:
        proc = subprocess.run(  # noqa: S603
            ["bash", "-n"],  # noqa: S607 - the system's bash
            input=block.code,
            capture_output=True,
            text=True,
        )
        return Failure(block, proc.stderr.strip()) if proc.returncode else None
    if block.lang == "python":
        try:
            ast.parse(block.code)
        except SyntaxError as exc:
            return Failure(block, f"Python does not parse: {exc}")
    if block.lang == "yaml":
        try:
            yaml.safe_load(block.code)
        except yaml.YAMLError as exc:
            return Failure(block, f"YAML does not parse: {exc}")
    return None


def _run(cmd: list[str], code: str, base_url: str) -> subprocess.CompletedProcess:
    """Run a block from the checkout's root, where `python` is the project's interpreter
    (as in an activated .venv) on the embedded settings."""
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(  # noqa: S603 - bash or our interpreter, on the docs' own text
        cmd,
        input=code.replace(ORIGIN, base_url.rstrip("/")),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        cwd=ROOT,
        env=env,
    )


def run_page_shell(blocks: list[Block], base_url: str) -> Failure | None:
    """A page's runnable shell blocks, in order, in one bash: the first that fails is
    named by the marker it printed last."""
    if not blocks:
        return None
    script = ["set -euo pipefail"]
    for n, block in enumerate(blocks):
        script += [f"echo '@@block {n}' >&2", block.code]
    proc = _run(["bash"], "\n".join(script) + "\n", base_url)
    if proc.returncode == 0:
        return None
    started = re.findall(r"^@@block (\d+)$", proc.stderr, re.M)
    failed = blocks[int(started[-1])] if started else blocks[0]
    tail = re.sub(r"^@@block \d+\n", "", proc.stderr, flags=re.M).strip()[-1500:]
    return Failure(failed, f"exit {proc.returncode}: {tail or proc.stdout[-1500:]}")


def run_python(block: Block, base_url: str) -> Failure | None:
    proc = _run([sys.executable, "-"], block.code, base_url)
    if proc.returncode == 0:
        return None
    return Failure(block, f"exit {proc.returncode}: {proc.stderr.strip()[-1500:]}")


def check(blocks: list[Block], base_url: str | None) -> list[Failure]:
    """Every failure of these blocks: unmarked ones, illustrative ones that do not parse,
    and (with a server) runnable ones that do not run."""
    failures = unmarked(blocks)
    for block in blocks:
        if block.marker == "illustrative" or (block.marker == "runnable" and base_url is None):
            failure = lint(block)
            if failure:
                failures.append(failure)
    if base_url is None:
        return failures
    pages = sorted({b.page for b in blocks})
    for page in pages:
        mine = [b for b in blocks if b.page == page and b.marker == "runnable"]
        failure = run_page_shell([b for b in mine if b.lang in {"sh", "bash"}], base_url)
        if failure:
            failures.append(failure)
        for block in (b for b in mine if b.lang == "python"):
            failure = run_python(block, base_url)
            if failure:
                failures.append(failure)
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", help="a running server (default: start a demo one)")
    args = parser.parse_args(argv)
    blocks = all_blocks()
    if args.base_url:
        failures = check(blocks, args.base_url)
    else:
        from tools.docs.server import demo_server

        with demo_server() as url:
            failures = check(blocks, url)
    runnable = sum(b.marker == "runnable" for b in blocks)
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"{runnable} runnable and {len(blocks) - runnable} other blocks; {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
