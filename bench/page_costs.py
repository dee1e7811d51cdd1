"""The web-page exam's requests in-process: a worker's CPU per page and per learner.

`exam_load.py --pages` measures the pages under locust, where the machine's speed and
the queue decide the tails: on this shared machine its figures swing by a third within
an hour, more than most changes move them. This runs the same sequence
(bench.exam_pages.page_requests) through Django's test client in one process, no
sockets and no think time, and reports each request's CPU time (the process's own, as
`make bench-endpoints` does): run it for two checkouts back to back to compare code.

    .venv/bin/python bench/page_costs.py \
        --database-url postgres://postgres@127.0.0.1:5432/burnin --learners 120

The first `--warm` learners warm the process and are not counted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._server import ROOT, throwaway_database  # noqa: E402


class ClientResult:
    """What the bench's request sequences read of locust's response (status, body,
    headers, json(), failure()), over a Django test client's response; a failure is
    added to `failures`. tests/bench drives the sequences with it too."""

    def __init__(self, response, failures: list[str]):
        self.status_code = response.status_code
        self.text = response.content.decode()
        self.headers = response.headers
        self._response = response
        self._failures = failures

    def json(self):
        return self._response.json()

    def failure(self, message: str) -> None:
        self._failures.append(message)


class ClientSession:
    """locust's FastHttpSession.request(...) over one Django test client: each request's
    name in order, its CPU time by name, and the failures."""

    def __init__(self, *, enforce_csrf_checks: bool = False):
        from django.test import Client

        self.client = Client(enforce_csrf_checks=enforce_csrf_checks)
        self.names: list[str] = []
        self.cpu_ms: dict[str, list[float]] = {}
        self.failures: list[str] = []

    @contextmanager
    def request(self, method, url, *, name, headers, data, allow_redirects, catch_response):
        assert not allow_redirects and catch_response
        self.names.append(name)
        headers = dict(headers)  # its Cookie header is the learner's, whatever the client kept
        content_type = headers.pop("Content-Type", "application/octet-stream")
        start = time.process_time()
        response = self.client.generic(
            method, url, data=data or "", content_type=content_type, headers=headers
        )
        self.cpu_ms.setdefault(name, []).append((time.process_time() - start) * 1000)
        yield ClientResult(response, self.failures)


def _summary(values: list[float]) -> dict:
    ordered = sorted(values)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    return {"n": len(values), "median": statistics.median(values), "p95": p95}


def measure(quiz: int, sessions: list[str], warm: int) -> dict:
    """Every learner's exam through the pages; the CPU of those after the first `warm`."""
    from bench.exam_pages import page_requests

    browser, rng, sent = ClientSession(), random.Random(1), 0
    for i, key in enumerate(sessions):
        if i == warm:
            browser.cpu_ms.clear()
        sent += page_requests(browser, quiz, key, lambda: None, rng)
    counted = len(sessions) - warm
    return {
        "learners": counted,
        "failures": browser.failures,
        "sent": sent,
        "pages": {
            name: {
                "n": len(v),
                "median": statistics.median(v),
                "p95": sorted(v)[int(0.95 * (len(v) - 1))],
            }
            for name, v in browser.cpu_ms.items()
        },  # fmt: skip
        "per_learner_ms": sum(sum(v) for v in browser.cpu_ms.values()) / counted,
    }


def _inner(out: Path, learners: int, warm: int) -> None:
    import django

    django.setup()
    from bench.exam_load import prepare

    fixture = out.with_suffix(".fixture.json")
    prepare(fixture, [learners + warm], signin=1, pages=True)
    run = json.loads(fixture.read_text())["runs"][0]
    out.write_text(json.dumps(measure(run["quiz"], run["sessions"], warm)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL", ""))
    parser.add_argument("--learners", type=int, default=120)
    parser.add_argument("--warm", type=int, default=20)
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        _inner(args.measure, args.learners, args.warm)
        return
    with throwaway_database(args.database_url, "page_costs") as env:
        # DEBUG off serves the manifest's hashed names, as production does
        static = [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"]
        subprocess.run(static, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
        out = Path(tempfile.mkdtemp(prefix="burnin-page-costs-")) / "costs.json"
        extra = ["--learners", str(args.learners), "--warm", str(args.warm)]
        # the request log stays on (production's middleware), its lines unprinted
        step = [sys.executable, "bench/page_costs.py", "--measure", str(out), *extra]
        subprocess.run(step, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
        result = json.loads(out.read_text())
    print(f"\n{result['learners']} learners, {len(result['failures'])} failures; CPU ms a request:")
    print("| request | n | median | p95 |\n|---|---:|---:|---:|")
    for name, p in result["pages"].items():
        print(f"| {name} | {p['n']} | {p['median']:.2f} | {p['p95']:.2f} |")
    print(f"\nper learner: {result['per_learner_ms']:.1f} ms of a worker's CPU")


if __name__ == "__main__":
    main()
