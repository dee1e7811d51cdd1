"""An exam under load: N learners start, read, answer and finish one exam (locust).

One gunicorn (2 sync workers, DEBUG=0) on a throwaway PostgreSQL database
(`<name>_exam_bench`, created, migrated and dropped). The prepare step (inside Django,
through the services) makes a course, and for each N an exam quiz of 5 questions in it
with N learners of its own, enrolled, with tokens issued beforehand, so runs never share
an attempt. Then:

- sign-in, apart: `POST /api/auth/token/` for learners with passwords (a password check
  costs about 0.2 s by design), a few at a time;
- for each N: locust headless (bench/exam_locustfile.py), 50 new learners a second
  (`--rate`), think time uniform 2-8 s, each doing one exam; per endpoint p50/p95/p99,
  failures, and the answers stored (read from the database) against the answers sent
  (2xx).

    .venv/bin/python bench/exam_load.py \\
        --database-url postgres://postgres@127.0.0.1:5432/burnin --learners 100 250 500 1000
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._autovacuum import autovacuum  # noqa: E402
from bench._exam_report import report  # noqa: E402
from bench._server import (  # noqa: E402
    ROOT,
    cpu_between,
    cpu_seconds,
    gunicorn,
    run_step,
    settle,
    throwaway_database,
)

TEMPLATES = ["gb-gib", "weights-memory", "kv-cache-total", "roofline-attainable", "littles-law"]
EXAM_TIME_LIMIT = timedelta(hours=1)  # every run ends long before any attempt's deadline
PASSWORD = "bench exam sign-in"  # noqa: S105 (a throwaway database's learners)
WARM_LEARNERS = 12
THINK_MAX = 8  # seconds, the top of the 2-8 s think time


def answer_for(part: dict) -> str:
    """Any answer the reader can read: one of a choice part's options, else a number in
    the part's unit (right or wrong does not matter to the load)."""
    if part["kind"] == "choice":
        return random.choice(part["choices"])
    number = (
        str(random.randint(1, 999))
        if part["kind"] == "integer"
        else f"{random.uniform(1, 1000):.4g}"
    )
    return f"{number} {part['unit']}".strip()


def exam_requests(client, quiz: int, token: str, think) -> None:
    """One exam, request by request, calling think() between requests. `client` is
    locust's HttpSession (bench/exam_locustfile.py) or anything with the same
    request(method, url, name=, headers=, json=, catch_response=) returning a context
    manager (tests/bench wraps Django's test client)."""
    headers = {"Authorization": f"Token {token}"}
    with client.request(
        "POST", f"/api/quizzes/{quiz}/attempts/", name="start", headers=headers, catch_response=True
    ) as r:
        if r.status_code != 201:  # 200 would be a second start of the same attempt
            r.failure(f"start: {r.status_code}")
            return
        attempt = r.json()["id"]
    think()
    with client.request(
        "GET",
        f"/api/attempts/{attempt}/",
        name="read attempt",
        headers=headers,
        catch_response=True,
    ) as r:
        if r.status_code != 200:
            r.failure(f"read: {r.status_code}")
            return
        questions = r.json()["questions"]
    for question in questions:
        for part in question["parts"]:
            think()
            body = {
                "question": question["id"],
                "part": part["name"],
                "answer": answer_for(part),
                "idempotency_key": uuid.uuid4().hex,
            }
            with client.request(
                "POST",
                f"/api/attempts/{attempt}/responses/",
                name="answer",
                headers=headers,
                json=body,
                catch_response=True,
            ) as r:
                if r.status_code != 201:
                    r.failure(f"answer: {r.status_code} {r.text[:200]}")
    think()
    with client.request(
        "POST",
        f"/api/attempts/{attempt}/finish/",
        name="finish",
        headers=headers,
        catch_response=True,
    ) as r:
        if r.status_code != 200:
            r.failure(f"finish: {r.status_code}")


def exam_with_learners(*, staff, course, title: str, learners: int, prefix: str):
    """Through the services: an exam quiz of 5 questions in `course` (one attempt
    allowed, an hour's time limit, as an exam has: so each start reads the learner's
    extension and sets a deadline) and `learners` new learners enrolled in it, each with
    a token issued now. Returns (quiz, tokens)."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from assess.services.enrolments import enrolment_add
    from assess.services.quizzes import QuizSpec, SlotSpec, quiz_create

    spec = QuizSpec(
        title=title,
        mode="exam",
        slots=[SlotSpec(templates=[t]) for t in TEMPLATES],
        course_slug=course.slug,
        attempts_allowed=1,
        time_limit=EXAM_TIME_LIMIT,
    )
    quiz = quiz_create(user=staff, spec=spec)
    users = get_user_model().objects
    tokens = []
    for k in range(learners):
        user = users.create_user(username=f"{prefix}-{k}", password=None)
        enrolment_add(actor=staff, course=course, username=user.username)
        tokens.append(Token.objects.create(user=user).key)
    return quiz, tokens


def prepare(
    out: Path, learners: list[int], signin: int, live_draw: bool = False, pages: bool = False
) -> None:
    """Inside Django (bench settings): a course, an exam per N with its own enrolled
    learners, a warm-up exam, and `signin` learners with a password; writes the fixture.
    Each exam's variants are drawn ahead for its learners, as the publish's task and the
    beat would have drawn them before it opened (assess.services.drawn_variants), unless
    `live_draw`: then every start draws its own. With `pages`, each learner also has a
    signed-in session (bench.exam_pages)."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from curricula.models import Course

    users = get_user_model().objects
    staff = users.create_user(username="bench-staff", password=None, is_staff=True)
    course = Course.objects.create(slug="bench-exam", title="Bench exam", summary=".", order=1)
    runs = []
    for i, n in enumerate(learners):
        quiz, tokens = exam_with_learners(
            staff=staff,
            course=course,
            title=f"Bench exam {i + 1} ({n})",
            learners=n,
            prefix=f"bench-{i}",
        )
        sessions = []
        if pages:
            from bench.exam_pages import signed_in_session

            sessions = [signed_in_session(users.get(username=f"bench-{i}-{k}")) for k in range(n)]
        runs.append({"n": n, "quiz": quiz.pk, "tokens": tokens, "sessions": sessions})
    warm, warm_tokens = exam_with_learners(
        staff=staff, course=course, title="Warm-up", learners=WARM_LEARNERS, prefix="bench-warm"
    )
    if not live_draw:
        from assess.models import Quiz
        from assess.services.drawn_variants import MARGIN, variants_predraw

        for quiz_id, n in [(r["quiz"], r["n"]) for r in runs] + [(warm.pk, WARM_LEARNERS)]:
            quiz = Quiz.objects.get(pk=quiz_id)
            variants_predraw(quiz=quiz, wanted=n + MARGIN, budget=10**9)
    # one hash for every sign-in learner: hashing each costs 0.2 s of preparation
    first = users.create_user(username="bench-signin-0", password=PASSWORD)
    for k in range(1, signin):
        users.create_user(username=f"bench-signin-{k}", password=None)
    users.filter(username__startswith="bench-signin-").update(password=first.password)
    names = [f"bench-signin-{k}" for k in range(signin)]
    out.write_text(
        json.dumps(
            {"runs": runs, "signin": names, "warm": {"quiz": warm.pk, "tokens": warm_tokens}}
        )
    )


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def warm_up(base: str, warm: dict) -> None:
    """Every gunicorn worker's first requests cost 0.3-0.5 s (imports, the hardware
    catalog, the templates' formulas): a few learners start, read and finish an exam of
    their own, several at a time so each worker serves some, before anything is timed."""

    def call(method: str, path: str, token: str) -> dict:
        req = urllib.request.Request(  # noqa: S310 (our own http base)
            f"{base}{path}", method=method, headers={"Authorization": f"Token {token}"}
        )
        with urllib.request.urlopen(req, timeout=60) as r:  # noqa: S310
            return json.loads(r.read())

    def one(token: str) -> None:
        attempt = call("POST", f"/api/quizzes/{warm['quiz']}/attempts/", token)["id"]
        call("GET", f"/api/attempts/{attempt}/", token)
        call("POST", f"/api/attempts/{attempt}/finish/", token)

    with ThreadPoolExecutor(6) as pool:
        list(pool.map(one, warm["tokens"]))


def sign_in_phase(base: str, names: list[str], concurrency: int) -> str:
    """Time `POST /api/auth/token/` for each name, `concurrency` at a time."""

    def one(name: str) -> tuple[float, bool]:
        body = json.dumps({"username": name, "password": PASSWORD}).encode()
        req = urllib.request.Request(  # noqa: S310 (our own http base)
            f"{base}/api/auth/token/", data=body, headers={"Content-Type": "application/json"}
        )
        started = time.perf_counter()
        try:
            with urllib.request.urlopen(req, timeout=30) as r:  # noqa: S310
                ok = r.status == 200 and "token" in json.loads(r.read())
        except OSError:
            ok = False
        return (time.perf_counter() - started) * 1000, ok

    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        results = list(pool.map(one, names))
    wall = time.perf_counter() - started
    ms = [t for t, _ in results]
    failures = sum(1 for _, ok in results if not ok)
    return (
        f"Sign-in (`POST /api/auth/token/`, {len(names)} learners, {concurrency} at a time): "
        f"{len(names) / wall:.1f} req/s, p50 {_pct(ms, 50):.0f} ms, p95 {_pct(ms, 95):.0f} ms, "
        f"p99 {_pct(ms, 99):.0f} ms, {failures} failures"
    )


def _run_locust(env, fixture: Path, index: int, n: int, parts: int, base: str, work: Path, args):
    """One locust run: (its rows of the stats CSV by name, its wall time, failure samples,
    the CPU seconds locust itself spent: the load generator shares the service's cores).
    The run stops itself when every learner has finished; --run-time is only the bound
    (spawn + every think)."""
    bound = int(n / args.rate + (parts + 3) * THINK_MAX + 30)
    bound += parts * THINK_MAX if args.pages else 0
    prefix = work / f"run{index}"
    started = time.monotonic()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)  # locust is the one waited for
    subprocess.run(
        [
            str(ROOT / ".venv/bin/locust"),
            "-f",
            str(ROOT / "bench/exam_locustfile.py"),
            "--headless",
            "-u",
            str(n),
            "-r",
            str(args.rate),
            "--run-time",
            f"{bound}s",
            "--host",
            base,
            "--csv",
            str(prefix),
            "--only-summary",
            "--loglevel",
            "WARNING",
        ],
        cwd=ROOT,
        env={
            **env,
            "EXAM_FIXTURE": str(fixture),
            "EXAM_RUN": str(index),
            "EXAM_ARRIVAL_SPREAD": "0" if args.burst else "1.0",
            "EXAM_PAGES": "1" if args.pages else "0",
        },
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    locust_cpu = (after.ru_utime + after.ru_stime) - (children.ru_utime + children.ru_stime)
    with open(f"{prefix}_stats.csv") as f:
        rows = {row["Name"]: row for row in csv.DictReader(f)}
    failures_csv = Path(f"{prefix}_failures.csv")
    samples = []
    if failures_csv.exists():
        with open(failures_csv) as f:
            samples = [
                f"{r['Name']}: {r['Error'][:160]} (x{r['Occurrences']})" for r in csv.DictReader(f)
            ]
    return rows, wall, samples, locust_cpu


def _stored(database_url: str, quiz: int) -> tuple[int, int]:
    """Answers stored for the quiz's attempts, and its attempts finished."""
    import psycopg

    with psycopg.connect(database_url) as conn:
        stored = conn.execute(
            "SELECT count(*) FROM assess_response r JOIN assess_attempt a ON a.id = r.attempt_id "
            "WHERE a.quiz_id = %s",
            (quiz,),
        ).fetchone()[0]
        finished = conn.execute(
            "SELECT count(*) FROM assess_attempt WHERE quiz_id = %s AND status = 'finished'",
            (quiz,),
        ).fetchone()[0]
    return stored, finished


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL", ""))
    parser.add_argument("--learners", type=int, nargs="+", default=[100, 250, 500, 1000])
    parser.add_argument("--signin", type=int, default=20)
    parser.add_argument("--signin-concurrency", type=int, default=2)
    parser.add_argument(
        "--cold", action="store_true", help="no warm-up: the first starts meet cold workers"
    )
    parser.add_argument(
        "--async-commit",
        action="store_true",
        help="diagnostic: every connection of the bench with synchronous_commit=off "
        "(commits stop waiting for the WAL flush; never the service's setting)",
    )
    parser.add_argument(
        "--burst",
        action="store_true",
        help="locust's own arrivals: each second's learners (--rate) start at once",
    )
    parser.add_argument(
        "--rate",
        type=int,
        default=50,
        help="new learners a second (locust's spawn rate): with --burst, the size of each "
        "second's burst of simultaneous starts (the target is 50; a smaller one says how "
        "large a burst the machine absorbs)",
    )
    parser.add_argument(
        "--pages",
        action="store_true",
        help="the exam through the web pages and their htmx requests (bench/exam_pages.py)",
    )
    parser.add_argument(
        "--live-draw",
        action="store_true",
        help="no variants drawn ahead: every start draws and renders its own questions",
    )
    parser.add_argument(
        "--parts", type=int, default=9, help="parts in an exam (9 for TEMPLATES): sets the bound"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="threads per worker: above 1, gunicorn's gthread workers (requests of one "
        "worker overlap while they wait on PostgreSQL)",
    )
    parser.add_argument("--port", type=int, default=0, help="0: a free port")
    parser.add_argument("--prepare", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.prepare:
        prepare(args.prepare, args.learners, args.signin, args.live_draw, args.pages)
        return
    if args.async_commit:  # libpq reads it: gunicorn's connections and the preparation's
        os.environ["PGOPTIONS"] = "-c synchronous_commit=off"
    with throwaway_database(args.database_url, "exam_bench") as env:
        work = Path(tempfile.mkdtemp(prefix="burnin-exam-bench-"))
        fixture = work / "fixture.json"
        started = time.monotonic()
        run_step(
            "bench/exam_load.py",
            env,
            "--prepare",
            str(fixture),
            "--signin",
            str(args.signin),
            *(["--live-draw"] if args.live_draw else []),
            *(["--pages"] if args.pages else []),
            "--learners",
            *map(str, args.learners),
        )
        print(f"prepared in {time.monotonic() - started:.0f} s", file=sys.stderr)
        data = json.loads(fixture.read_text())
        settle(env["DATABASE_URL"])
        if args.pages:  # DEBUG off serves the manifest's hashed names, as production does
            subprocess.run(
                [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
                cwd=ROOT,
                env=env,
                check=True,
            )
        threads = ("--worker-class", "gthread", "--threads", str(args.threads))
        extra = threads if args.threads > 1 else ()
        with (
            autovacuum(env["DATABASE_URL"]),
            gunicorn(env, workers=args.workers, port=args.port, extra=extra) as base,
        ):
            if not args.cold:
                warm_up(base, data["warm"])
            signin_line = sign_in_phase(base, data["signin"], args.signin_concurrency)
            print(signin_line, file=sys.stderr)
            results = []
            for index, run in enumerate(data["runs"]):
                before = cpu_seconds()
                rows, wall, samples, locust_cpu = _run_locust(
                    env, fixture, index, run["n"], args.parts, base, work, args
                )
                cpu = cpu_between(before, cpu_seconds())  # the queue's wait is not in it
                stored, finished = _stored(env["DATABASE_URL"], run["quiz"])
                results.append((run["n"], rows, wall, samples, stored, finished))
                print(
                    f"N={run['n']}: {wall:.0f} s; CPU a learner: gunicorn "
                    f"{cpu['gunicorn'] * 1000 / run['n']:.0f} ms, PostgreSQL "
                    f"{cpu['postgres'] * 1000 / run['n']:.0f} ms, locust (the load generator) "
                    f"{locust_cpu * 1000 / run['n']:.0f} ms",
                    file=sys.stderr,
                )
    report(results, args, signin_line)


if __name__ == "__main__":
    main()
