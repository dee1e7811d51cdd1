"""A classroom on the embedded default (issue 43, item 4): 40 learners take a 10-question
exam at once through the web pages, against the server `make run` starts (Django's
runserver, SQLite, Celery in-process), in a throwaway directory.

The prepare step runs `manage.py migrate` and the catalog loads into a new SQLite file,
then makes (through the services, in a `manage.py shell` of the same settings) a staff
user, a course, an exam of 10 questions and the learners, enrolled, with passwords. The
server is `manage.py runserver --noreload` on those settings. Each learner signs in
first (apart, not timed with the exam: a password check costs about 0.2 s by design),
then, when the teacher says start (each within the think time), does what a browser
does: the quiz page, start, the attempt page,
for each question its page and an answer (the htmx autosave post), then finish (with
the confirmation) and the result page, thinking 2-8 s between requests. It reports per
page p50/p95/p99, every request that was not a 2xx or a redirect, and the answers
stored (read from the database) against the answers that got a 2xx.

    .venv/bin/python bench/classroom.py --learners 40 --questions 10
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._server import ROOT, free_port, wait_for  # noqa: E402

PYTHON = str(ROOT / ".venv" / "bin" / "python")
PASSWORD = "classroom bench sign-in"  # noqa: S105 (a throwaway database's learners)
TEMPLATES = [
    "gb-gib", "weights-memory", "kv-cache-total", "roofline-attainable", "littles-law",
    "decode-tpot-floor", "prefill-time", "kv-max-sequences", "tp-min-gpus", "cost-per-mtok",
]  # fmt: skip
PAGES = ["quiz", "start", "attempt", "question", "answer", "finish", "result"]

PREPARE = """
from django.contrib.auth import get_user_model
from assess.services.enrolments import enrolment_add
from assess.services.quizzes import QuizSpec, SlotSpec, quiz_create
from curricula.models import Course
import json
users = get_user_model().objects
staff = users.create_user(username="classroom-teacher", password=None, is_staff=True)
course = Course.objects.order_by("order").first()
spec = QuizSpec(title="Classroom exam", mode="exam",
                slots=[SlotSpec(templates=[t]) for t in {templates!r}],
                course_slug=course.slug, attempts_allowed=1)
quiz = quiz_create(user=staff, spec=spec, status="published")
for k in range({learners}):
    user = users.create_user(username=f"pupil-{{k}}", password={password!r})
    enrolment_add(actor=staff, course=course, username=user.username)
print(json.dumps({{"quiz": quiz.pk}}))
"""
STORED = """
from assess.models import Response
print(Response.objects.filter(attempt__quiz_id={quiz}).count())
"""


def manage(env: dict[str, str], *args: str, code: str | None = None) -> str:
    argv = [PYTHON, "manage.py", *args] + (["shell", "-c", code] if code else [])
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args) or 'shell'} failed:\n{done.stderr[-3000:]}")
    return done.stdout


class Learner:
    """One browser: a session with its cookies, timing every request it makes."""

    def __init__(self, base: str, name: str, timings: dict, failures: list, lock) -> None:
        self.base, self.name = base, name
        self.http = requests.Session()
        self.timings, self.failures, self.lock = timings, failures, lock
        self.sent = 0

    def _csrf(self) -> str:
        return self.http.cookies.get("csrftoken", "")

    def request(self, page: str, method: str, path: str, **kw) -> requests.Response:
        headers = kw.pop("headers", {})
        if method == "POST":
            headers["X-CSRFToken"] = self._csrf()
            headers["Referer"] = self.base + path
        start = time.perf_counter()
        r = self.http.request(
            method, self.base + path, headers=headers, allow_redirects=False, timeout=60, **kw
        )
        elapsed = (time.perf_counter() - start) * 1000
        with self.lock:
            self.timings.setdefault(page, []).append(elapsed)
            if not (200 <= r.status_code < 400):
                self.failures.append(f"{self.name} {page} {method} {path}: {r.status_code}")
        return r

    def sign_in(self) -> None:
        self.http.get(self.base + "/accounts/login/", timeout=60)
        r = self.http.post(
            self.base + "/accounts/login/",
            data={"login": self.name, "username": self.name, "password": PASSWORD,
                  "csrfmiddlewaretoken": self._csrf()},
            headers={"Referer": self.base + "/accounts/login/"},
            allow_redirects=False, timeout=60,
        )  # fmt: skip
        if r.status_code != 302:
            raise RuntimeError(f"{self.name} could not sign in: {r.status_code}")

    def exam(self, quiz: int, think, burst: bool = False) -> None:
        if not burst:
            think()  # the teacher says "start"; the class opens the quiz within seconds
        self.request("quiz", "GET", f"/quizzes/{quiz}/")
        think()
        r = self.request("start", "POST", f"/quizzes/{quiz}/start/")
        attempt_path = r.headers.get("Location", "")
        if not re.match(r"^/attempts/\d+/$", attempt_path):
            return
        page = self.request("attempt", "GET", attempt_path).text
        questions = sorted(set(re.findall(rf"{attempt_path}q/(\d+)/", page)), key=int)
        for qid in questions:
            think()
            html = self.request("question", "GET", f"{attempt_path}q/{qid}/").text
            data = {}
            for name in sorted(set(re.findall(r'name="(part-[^"]+)"', html))):
                options = re.findall(rf'name="{re.escape(name)}" value="([^"]*)"', html)
                data[name] = random.choice(options) if options else f"{random.uniform(1, 999):.4g}"
            think()
            r = self.request(
                "answer", "POST", f"{attempt_path}q/{qid}/answer/", data=data,
                headers={"HX-Request": "true"},
            )  # fmt: skip
            if 200 <= r.status_code < 300:
                self.sent += len(data)
        think()
        r = self.request("finish", "POST", f"{attempt_path}finish/", data={"confirm": "1"})
        if r.status_code in (302, 303):
            self.request("result", "GET", r.headers["Location"])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learners", type=int, default=40)
    parser.add_argument("--questions", type=int, default=10, choices=range(1, 11))
    parser.add_argument("--think", type=float, nargs=2, default=(2.0, 8.0), metavar=("MIN", "MAX"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--burst",
        action="store_true",
        help="open the quiz page in the same instant for every learner (no think before it)",
    )
    args = parser.parse_args(argv)
    random.seed(args.seed)
    with tempfile.TemporaryDirectory(prefix="classroom-") as tmp:
        env = dict(os.environ, DATABASE_URL=f"sqlite:///{tmp}/db.sqlite3")
        env.pop("CELERY_BROKER_URL", None)  # Celery in-process, as `make run`
        for step in ("migrate", "load_hardware", "load_curricula"):
            manage(env, step, "--verbosity", "0") if step == "migrate" else manage(env, step)
        code = PREPARE.format(
            templates=TEMPLATES[: args.questions], learners=args.learners, password=PASSWORD
        )
        quiz = json.loads(manage(env, code=code).strip().splitlines()[-1])["quiz"]
        port = free_port()
        server = subprocess.Popen(
            [PYTHON, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            wait_for(port, server, timeout=60)
            base = f"http://127.0.0.1:{port}"
            timings: dict[str, list[float]] = {}
            failures: list[str] = []
            lock = threading.Lock()
            learners = [
                Learner(base, f"pupil-{k}", timings, failures, lock) for k in range(args.learners)
            ]
            with ThreadPoolExecutor(max_workers=8) as pool:
                list(pool.map(Learner.sign_in, learners))

            def think() -> None:
                time.sleep(random.uniform(*args.think))

            started = time.monotonic()
            with ThreadPoolExecutor(max_workers=args.learners) as pool:
                list(pool.map(lambda learner: learner.exam(quiz, think, args.burst), learners))
            wall = time.monotonic() - started
            stored = int(manage(env, code=STORED.format(quiz=quiz)).strip().splitlines()[-1])
        finally:
            server.terminate()
            server.wait(timeout=30)
    every = [t for page in PAGES for t in timings.get(page, [])]
    report = {
        "learners": args.learners,
        "questions": args.questions,
        "server": "manage.py runserver (make run), SQLite, Celery in-process",
        "wall_seconds": round(wall, 1),
        "requests": len(every),
        "errors": len(failures),
        "first_errors": failures[:10],
        "answers_sent_2xx": sum(learner.sent for learner in learners),
        "answers_stored": stored,
        "p99_ms_all": round(percentile(every, 0.99), 1) if every else None,
        "pages": {
            page: {
                "n": len(timings[page]),
                "p50_ms": round(percentile(timings[page], 0.50), 1),
                "p95_ms": round(percentile(timings[page], 0.95), 1),
                "p99_ms": round(percentile(timings[page], 0.99), 1),
            }
            for page in PAGES
            if timings.get(page)
        },
    }
    print(json.dumps(report, indent=2))
    return 0 if not failures and report["answers_sent_2xx"] == stored else 1


if __name__ == "__main__":
    sys.exit(main())
