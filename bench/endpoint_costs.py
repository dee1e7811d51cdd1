"""What one request costs the service, per endpoint, in-process: CPU, wall time, queries.

The HTTP benches say how fast the service is under load; this one says where a
request's time goes, without a load generator sharing the cores. In a throwaway
PostgreSQL database (`<name>_endpoint_bench`), through Django's test client (the whole
middleware stack, DRF, the services and the database, no sockets), each endpoint is
called `--calls` times after a warm-up, every call on fresh data (a new part, a new
learner's start), and it reports per endpoint the median and p95 of the process's CPU
time (what a gunicorn worker spends; PostgreSQL's own work is not in it), the median
wall time, and the queries one call issues. The framework's floor (a DRF view doing one
INSERT, without and with token authentication: bench/urls.py) is measured the same way.

    .venv/bin/python bench/endpoint_costs.py --database-url postgres://postgres@127.0.0.1:5432/burnin
    .venv/bin/python bench/endpoint_costs.py ... --profile "practice answer"   # pyinstrument
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._server import run_step, throwaway_database  # noqa: E402

PRACTICE_POOL = ["gb-gib", "weights-memory", "kv-cache-total", "roofline-ridge"]


def _fixture(calls: int):
    """Learners with tokens; a practice quiz with an attempt each; an exam with one
    learner per start. Returns {endpoint: [request thunk, ...]} plus the floor's."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    from assess.models import Quiz, Slot
    from assess.services.drawn_variants import variants_predraw
    from bench.exam_load import exam_with_learners
    from curricula.models import Course

    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE bench_floor (id bigserial PRIMARY KEY, note text)")
    users = get_user_model().objects
    staff = users.create_user(username="bench-staff", password=None, is_staff=True)
    course = Course.objects.create(slug="bench-costs", title="Bench", summary=".", order=1)

    practice = Quiz.objects.create(title="Practice", mode="practice", feedback="immediately")
    slots = 40
    Slot.objects.bulk_create(
        Slot(quiz=practice, order=i + 1, points=1, templates=[PRACTICE_POOL[i % 4]])
        for i in range(slots)
    )
    learners = max(4, calls // slots + 2)
    first, later, closing = _practising(practice, learners, slots, "p")
    # The same right answer as a part's first try (other learners' parts): it closes the
    # part as the ceiling's right answer does, and is the mastery's evidence.
    first_right = _interleaved(
        [_call(a, t, q, right=True) for a, t, q in _practice_questions(practice, learners, "r")],
        learners,
        slots,
    )
    at_ceiling = _practised_to_the_ceiling(practice, learners, slots, "c")
    ceiling_right = _practised_to_the_ceiling(practice, learners, slots, "k", right=True)

    exam, tokens = exam_with_learners(
        staff=staff, course=course, title="Exam", learners=calls + 30, prefix="bench-e"
    )
    # The exam's variants drawn ahead, as its publish's task and the beat draw them.
    variants_predraw(quiz=exam, wanted=calls + 30, budget=10**9)
    # A certification exam of the same questions: each start assembles its own variants
    # (none the learner was shown before: assess.services.fresh_variants), no pool.
    certification, certification_tokens = exam_with_learners(
        staff=staff, course=course, title="Certification", learners=calls + 30, prefix="bench-c"
    )
    Quiz.objects.filter(pk=certification.pk).update(mode=Quiz.Mode.CERTIFICATION)
    return {
        "practice": (first, later, at_ceiling, closing, first_right, ceiling_right),
        "exam": (exam.pk, tokens),
        "certification": (certification.pk, certification_tokens),
        "floor_token": tokens[0],
    }


def _call(attempt, token: str, question, right: bool) -> tuple:
    """One answer to the question's first numeric part, right or wrong by a factor."""
    part = next(p for p in question.answers if p["kind"] == "numeric")
    text = (
        f"{part['value']!r} {part.get('unit', '')}".strip()
        if right
        else f"{float(part['value']) * 1.37:.6g} {part.get('unit', '')}"
    )
    return (f"/api/attempts/{attempt.pk}/responses/", token, question.pk, part["name"], text)


def _interleaved(calls: list, learners: int, slots: int) -> list:
    """Consecutive calls on different attempts, as a class answering would send them."""
    return [calls[q * slots + s] for s in range(slots) for q in range(learners)]


def _practice_questions(practice, learners: int, prefix: str):
    """(attempt, token, question) for each question of `learners` new learners' practice
    attempts, learner by learner."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from assess.services.attempts import attempt_start

    for n in range(learners):
        user = get_user_model().objects.create_user(username=f"bench-{prefix}{n}", password=None)
        token = Token.objects.create(user=user).key
        attempt, _ = attempt_start(quiz=practice, learner=user)
        for q in attempt.questions.order_by("order"):
            yield attempt, token, q


def _practising(practice, learners: int, slots: int, prefix: str) -> tuple[list, list, list]:
    """New learners' calls: each part's first try (wrong), its second (wrong: the part
    stays open) and its third (right: the part closes); the i-th call of each list
    answers the same part."""
    first, closing = [], []
    for attempt, token, q in _practice_questions(practice, learners, prefix):
        first.append(_call(attempt, token, q, right=False))
        closing.append(_call(attempt, token, q, right=True))
    first, closing = _interleaved(first, learners, slots), _interleaved(closing, learners, slots)
    return first, list(first), closing


def _practised_to_the_ceiling(practice, learners: int, slots: int, prefix: str, right=False):
    """Calls that are each part's last allowed try (wrong, or with `right` right): other
    learners whose every part already holds TRIES_CEILING - 1 wrong tries (stored in
    bulk, as the service would have: valid, wrong, no evidence), so the answer reads 29
    earlier tries of its part."""
    from assess.models import Response
    from assess.scoring import TRIES_CEILING

    calls, rows = [], []
    for attempt, token, q in _practice_questions(practice, learners, prefix):
        part = next(p for p in q.answers if p["kind"] == "numeric")
        for k in range(TRIES_CEILING - 1):
            rows.append(Response(attempt=attempt, question=q, part=part["name"],
                                 raw=f"{1000 + k}", parsed_value=1000 + k, correct=False,
                                 score=0.0, idempotency_key=f"pre-{q.pk}-{k}"))  # fmt: skip
        calls.append(_call(attempt, token, q, right=right))
    Response.objects.bulk_create(rows, batch_size=2000)
    return _interleaved(calls, learners, slots)


def _measure(fn, args_list, *, warm: int) -> dict:
    return _measure_alternating([(fn, args_list)], warm=warm)[0]


FLOOR_BLOCK = 10  # the token floor's calls in a row, every FLOOR_BLOCK rounds


def _measure_alternating(
    endpoints: list[tuple], *, warm: int, before=None, floor: tuple | None = None
) -> list[dict]:
    """Each endpoint's figures, its calls taken in turn with the others' (one of each,
    round after round), so the machine's drift over the run weighs on them alike: for
    comparing endpoints with each other (an answer at the tries ceiling against a later
    try), where measured one after another their gap moved by half between runs.
    `before`, if given, runs ahead of every call, outside its timing.

    With `floor` (the token floor's thunk and calls), its figures come last: its calls
    run FLOOR_BLOCK in a row every FLOOR_BLOCK rounds, as many as each endpoint's, so it
    meets the same minutes of the machine as they do, and mostly warm as when measured
    alone (a floor call taken right after each endpoint call read a fifth slower than
    alone: the endpoint's code had taken the caches; that would flatter the ratio)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for fn, args_list in endpoints:
        for args in args_list[:warm]:
            fn(*args)
    n = min(len(args_list) for _fn, args_list in endpoints) - warm
    timed = [*endpoints, floor] if floor is not None else endpoints
    cpu: list[list[float]] = [[] for _ in timed]
    wall: list[list[float]] = [[] for _ in timed]
    queries: list[int | None] = [None] * len(timed)

    def call(k: int, fn, args) -> None:
        c0, w0 = time.process_time(), time.perf_counter()
        fn(*args)
        cpu[k].append((time.process_time() - c0) * 1000)
        wall[k].append((time.perf_counter() - w0) * 1000)

    if floor is not None:
        for args in floor[1][:warm]:
            floor[0](*args)
        with CaptureQueriesContext(connection) as ctx:
            floor[0](*floor[1][warm])
        queries[-1] = len(ctx.captured_queries)
    for i in range(warm, warm + n):
        for k, (fn, args_list) in enumerate(endpoints):
            if before is not None:
                before()
            if i == warm:
                with CaptureQueriesContext(connection) as ctx:
                    fn(*args_list[i])
                queries[k] = len(ctx.captured_queries)
                continue
            call(k, fn, args_list[i])
        if floor is not None and (i - warm) % FLOOR_BLOCK == FLOOR_BLOCK - 1:
            for j in range(i - FLOOR_BLOCK + 1, i + 1):
                call(len(endpoints), floor[0], floor[1][j])
    results = []
    for k in range(len(timed)):
        cpu[k].sort()
        results.append(
            {
                "cpu_ms": statistics.median(cpu[k]),
                "cpu_p95_ms": cpu[k][int(0.95 * (len(cpu[k]) - 1))],
                "wall_ms": statistics.median(wall[k]),
                "queries": queries[k],
            }
        )
    return results


def _profile(fn, args_list, warm: int) -> None:
    """pyinstrument's call tree (wall time: database waits included), then cProfile's
    functions by CPU time alone."""
    import cProfile
    import pstats

    from pyinstrument import Profiler

    for args in args_list[:warm]:
        fn(*args)
    half = warm + (len(args_list) - warm) // 2
    profiler = Profiler(interval=0.0005)
    profiler.start()
    for args in args_list[warm:half]:
        fn(*args)
    profiler.stop()
    print(profiler.output_text(unicode=False, color=False), file=sys.stderr)
    cpu = cProfile.Profile(time.process_time)
    cpu.enable()
    for args in args_list[half:]:
        fn(*args)
    cpu.disable()
    stats = pstats.Stats(cpu, stream=sys.stderr)
    if os.environ.get("BENCH_PROFILE_STATS"):  # for pstats or snakeviz: every function
        stats.dump_stats(os.environ["BENCH_PROFILE_STATS"])
    _by_package(stats, calls=len(args_list) - half)
    stats.sort_stats("tottime").print_stats(20)
    stats.sort_stats("cumulative").print_stats(45)


def _package(filename: str) -> str:
    """The library or the repository's top-level package a function lives in."""
    if filename == "~":
        return "builtins"
    path = Path(filename)
    parts = path.parts
    if "site-packages" in parts:
        at = parts.index("site-packages") + 1
        package = parts[at].split(".")[0]
        # Django's own layers apart: its ORM, request handling, middleware, utils
        return f"{package}.{parts[at + 1]}" if package == "django" else package
    if path.is_relative_to(ROOT):
        return path.relative_to(ROOT).parts[0]
    return "python" if filename.startswith(("/", "<")) else filename


def _by_package(stats, calls: int) -> None:
    """CPU per request by where the code lives (each function's own time): which
    library, or which of the service's packages, the request's CPU goes to."""
    spent: dict[str, float] = {}
    for (filename, _line, _name), (_cc, _nc, tottime, _ct, _callers) in stats.stats.items():
        package = _package(filename)
        spent[package] = spent.get(package, 0.0) + tottime
    total = sum(spent.values())
    print(f"\nCPU per request by package ({calls} calls, {total / calls * 1000:.2f} ms):")
    for package, seconds in sorted(spent.items(), key=lambda kv: -kv[1])[:14]:
        print(f"  {package:24s} {seconds / calls * 1000:6.3f} ms  {seconds / total:5.1%}")


def measure(out: Path, calls: int, warm: int, profile: str | None) -> None:
    """Inside Django: the fixture, then every endpoint; writes the results as JSON."""
    import django

    django.setup()
    from django.test import Client

    from bench.exam_load import answer_for
    from problems.engine.render import render_markdown

    data = _fixture(calls + warm + 1)
    client = Client()

    def expect(response, code):
        if response.status_code != code:
            raise RuntimeError(f"{response.status_code}: {response.content[:300]!r}")
        return response

    def post(url, token, body=None, code=201):
        extra = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
        payload = json.dumps(body if body is not None else {})
        return expect(client.post(url, payload, content_type="application/json", **extra), code)

    def answer(url, token, qid, part, text):
        body = {"question": qid, "part": part, "answer": text, "idempotency_key": uuid.uuid4().hex}
        return post(url, token, body)

    exam_quiz, exam_tokens = data["exam"]
    attempts: list[tuple[int, str, list]] = []

    def start(token):
        body = post(f"/api/quizzes/{exam_quiz}/attempts/", token).json()
        attempts.append((body["id"], token, body["questions"]))

    certification_quiz, certification_tokens = data["certification"]

    def certification_start(token):
        post(f"/api/quizzes/{certification_quiz}/attempts/", token)

    def read(attempt, token, _questions):
        auth = {"HTTP_AUTHORIZATION": f"Token {token}"}
        expect(client.get(f"/api/attempts/{attempt}/", **auth), 200)

    def exam_answer(attempt, token, questions):
        for question in questions:
            for part in question["parts"]:
                url = f"/api/attempts/{attempt}/responses/"
                answer(url, token, question["id"], part["name"], answer_for(part))
                return  # one answer a call: the first part

    def finish(attempt, token, _questions):
        post(f"/api/attempts/{attempt}/finish/", token, code=200)

    first, later, at_ceiling, closing, first_right, ceiling_right = data["practice"]
    n = calls + warm + 1
    endpoints = {
        "floor (no auth)": (lambda: post("/bench/floor/", None), [()] * n),
        "floor (token)": (lambda: post("/bench/floor-token/", data["floor_token"]), [()] * n),
        "practice answer (first try)": (answer, first[:n]),
        "practice answer (later try)": (answer, later[:n]),
        "practice answer (try 30, the ceiling)": (answer, at_ceiling[:n]),
        "practice answer (try 3, right: the part closes)": (answer, closing[:n]),
        "practice answer (first try, right: the part closes)": (answer, first_right[:n]),
        "practice answer (try 30, right)": (answer, ceiling_right[:n]),
        "exam start (5 questions)": (start, [(t,) for t in exam_tokens[:n]]),
        "certification start (5 questions, no pool)": (
            certification_start,
            [(t,) for t in certification_tokens[:n]],
        ),
        "exam read attempt": (read, None),
        "exam answer": (exam_answer, None),
        "exam finish": (finish, None),
    }
    # A part's first try, its second, the ceiling's answer and the part's third try,
    # which closes it as the ceiling's does (its body shows the answer and worked
    # solution), and a right answer as a part's first try and as its 30th (the pair that
    # differs only in the tries read: both grade alike and close their part), measured
    # in turn (_measure_alternating says why): each round answers one part three times,
    # another part at its ceiling, and two more parts right. Each of those calls finds
    # the rendered texts' cache empty (render_markdown's; the converted shapes of texts
    # and formulas stay, as in a warm worker): in the service an answer's variant is
    # mostly its learner's own, while the bench's four templates repeat variants, so
    # whichever call rendered a solution first in a round left it to the next (at 18:22
    # UTC on 2026-12-07 the closing try found 41 of its 73 solutions rendered already,
    # the ceiling's answer, just before it, 27).
    together = (
        "practice answer (first try)",
        "practice answer (later try)",
        "practice answer (try 30, the ceiling)",
        "practice answer (try 3, right: the part closes)",
        "practice answer (first try, right: the part closes)",
        "practice answer (try 30, right)",
    )
    # Every endpoint is also measured in turn with the token floor (in blocks:
    # _measure_alternating): its ratio to the floor is then taken against the floor of
    # the same minutes (the machine's speed moved the floor 1.48-2.0 ms between runs
    # minutes apart, and within a run as much, so a floor measured once, before, moved
    # every ratio by a tenth or more).
    floor_token = endpoints["floor (token)"]
    results = {}
    for label, (fn, args_list) in endpoints.items():
        if args_list is None:
            args_list = attempts[:n]
        if profile and label.startswith(profile):
            _profile(fn, args_list, warm)
            continue
        if label in results:
            continue
        # With --profile the others are still called, each alone, as before the pairing:
        # the exam's starts make the attempts its read, answer and finish then use.
        if profile or label.startswith("floor"):
            results[label] = _measure(fn, args_list, warm=warm)
            continue
        practice = label == together[0]
        labels = together if practice else (label,)
        group = [endpoints[t] if t != label else (fn, args_list) for t in labels]
        before = render_markdown.cache_clear if practice else None  # the comment above
        *measured, paired = _measure_alternating(group, warm=warm, before=before, floor=floor_token)
        for t, m in zip(labels, measured, strict=True):
            results[t] = {**m, "paired_floor_ms": paired["cpu_ms"]}
    out.write_text(json.dumps(results))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL", ""))
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--warm", type=int, default=20)
    parser.add_argument("--profile", help="profile the endpoint whose label starts so")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure(args.measure, args.calls, args.warm, args.profile)
        return
    with throwaway_database(args.database_url, "endpoint_bench") as env:
        out = Path(tempfile.mkdtemp(prefix="burnin-endpoints-")) / "costs.json"
        extra = ["--profile", args.profile] if args.profile else []
        run_step(
            "bench/endpoint_costs.py",
            env,
            "--measure",
            str(out),
            "--calls",
            str(args.calls),
            "--warm",
            str(args.warm),
            *extra,
        )
        results = json.loads(out.read_text())
        out.unlink()
    _report(results, args)


def _report(results: dict, args) -> None:
    print(
        f"\nIn-process (Django test client, PostgreSQL, DEBUG=0), {args.calls} calls each "
        f"after {args.warm} warm-up calls, each on fresh data\n"
    )
    floor = results.get("floor (no auth)", {}).get("cpu_ms")
    print(
        "| endpoint | CPU ms (median) | CPU ms (p95) | wall ms (median) | queries | x floor "
        "| token floor in turn, ms | x token floor |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, r in results.items():
        ratio = f"{floor / r['cpu_ms']:.2f}" if floor else "-"
        paired = r.get("paired_floor_ms")
        in_turn = "-" if paired is None else f"{paired:.2f}"
        token = "-" if paired is None else f"{paired / r['cpu_ms']:.2f}"
        print(
            f"| {label} | {r['cpu_ms']:.2f} | {r['cpu_p95_ms']:.2f} | {r['wall_ms']:.2f} | "
            f"{r['queries']} | {ratio} | {in_turn} | {token} |"
        )
    print(
        "\nx floor: the floor's CPU time over the endpoint's (what the service's Python "
        "spends per request; the HTTP benches measure the whole machine). x token floor: "
        "the token floor's, measured in turn with the endpoint's calls (ten floor calls "
        "every ten rounds; its median beside it), over the endpoint's: the issue's >= 0.5x."
    )
    ceiling = results.get("practice answer (try 30, the ceiling)")
    right = results.get("practice answer (try 30, right)")
    closes = "right: both close their part"
    for at, label, what in (
        (ceiling, "practice answer (first try)", "a first try"),
        (ceiling, "practice answer (later try)", "a later try (its part stays open)"),
        (ceiling, "practice answer (try 3, right: the part closes)", "a later try that closes"),
        (right, "practice answer (first try, right: the part closes)", f"a first try ({closes})"),
    ):
        if at and label in results:
            other = results[label]
            print(
                f"An answer at the tries ceiling against {what}, calls taken in turn: "
                f"{at['cpu_ms'] / other['cpu_ms'] - 1:+.0%} CPU (median), "
                f"{at['queries']} against {other['queries']} queries."
            )


if __name__ == "__main__":
    main()
