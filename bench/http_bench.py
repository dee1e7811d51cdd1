"""Answer submission against the framework's floor, side by side on one server.

One gunicorn (2 sync workers, DEBUG=0) on a throwaway PostgreSQL database
(`<name>_http_bench`, created, migrated and dropped); wrk (`-t2 -c32`) drives, in turn:

- the floor: a DRF view doing one INSERT, no authentication (bench/urls.py);
- the floor with token authentication;
- `POST /api/attempts/{id}/responses/`: learners (tokens issued beforehand) answering
  practice questions, each request a first try at a new part (so a mastery write too),
  with a fresh idempotency key.

Rounds alternate the three so drift hits them alike; the medians are reported, with
p99, non-2xx counts, and the responses stored against the 2xx the load generator saw.

    .venv/bin/python bench/http_bench.py \\
        --database-url postgres://postgres@127.0.0.1:5432/burnin --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._autovacuum import autovacuum  # noqa: E402
from bench._server import cpu_between, cpu_seconds, gunicorn, run_step, settle, throwaway_database  # noqa: E402

LUA = """
local entries = {ENTRIES}
local offset, nthreads, counter = 0, {THREADS}, 0
-- setup() runs in the main state; thread:set makes `tid` a global of that thread's
-- state (a chunk-level local of the same name would shadow it: every thread would then
-- send the same keys, and the server would rightly answer replays)
local made_threads, threads = 0, {}
created = 0
tid = 0
function setup(thread)
  made_threads = made_threads + 1
  thread:set("tid", made_threads)
  table.insert(threads, thread)
end
function response(status, headers, body)
  if status == 201 then created = created + 1 end
end
function init(args)
  offset = tonumber(args[1] or "0")
end
function request()
  counter = counter + 1
  local i = offset + (counter - 1) * nthreads + tid
  local e = entries[(i - 1) % #entries + 1]
  -- a wrong answer that differs every time: a repeated answer could be a replay
  local answer = string.format("%.6g %s", e[4] * (37 + offset + counter), e[5])
  local body = e[3] .. "-" .. offset .. "-" .. tid .. "-" .. counter ..
    '", "answer": "' .. answer .. '"}'
  return wrk.format("POST", e[1], {["Content-Type"] = "application/json",
    ["Authorization"] = "Token " .. e[2]}, body)
end
function done(summary, latency, requests)
  local made = 0
  for _, thread in ipairs(threads) do made = made + thread:get("created") end
  io.write(string.format('BENCH {"created": %d, "requests": %d, "non2xx": %d, ' ..
    '"socket_errors": %d, "duration_us": %d, "p50_us": %d, "p99_us": %d}\\n', made,
    summary.requests,
    summary.errors.status, summary.errors.connect + summary.errors.read +
    summary.errors.write + summary.errors.timeout, summary.duration,
    latency:percentile(50), latency:percentile(99)))
end
"""
FLOOR_LUA = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
{AUTH}
wrk.body = "{{}}"
function done(summary, latency, requests)
  io.write(string.format('BENCH {{"requests": %d, "non2xx": %d, "socket_errors": %d, ' ..
    '"duration_us": %d, "p50_us": %d, "p99_us": %d}}\\n', summary.requests,
    summary.errors.status, summary.errors.connect + summary.errors.read +
    summary.errors.write + summary.errors.timeout, summary.duration,
    latency:percentile(50), latency:percentile(99)))
end
"""


def prepare(out: Path, learners: int, slots: int) -> None:
    """Inside Django (bench settings): the floor's table, learners with tokens, one
    practice quiz of `slots` questions, an attempt per learner; writes the requests."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.db import connection
    from rest_framework.authtoken.models import Token

    from assess.models import Quiz, Slot
    from assess.services.attempts import attempt_start

    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE bench_floor (id bigserial PRIMARY KEY, note text)")
    quiz = Quiz.objects.create(title="Bench practice", mode="practice", feedback="immediately")
    pool = ["gb-gib", "weights-memory", "kv-cache-total", "roofline-ridge"]
    Slot.objects.bulk_create(
        Slot(quiz=quiz, order=i + 1, points=1, templates=[pool[i % len(pool)]])
        for i in range(slots)
    )
    users = get_user_model().objects
    by_part, token_of = [], {}
    for n in range(learners):
        user = users.create_user(username=f"bench-{n}", password=None)
        token_of[n] = Token.objects.create(user=user).key
        attempt, _ = attempt_start(quiz=quiz, learner=user)
        for question in attempt.questions.order_by("order"):
            part = next(p for p in question.answers if p["kind"] == "numeric")
            prefix = json.dumps({"question": question.pk, "part": part["name"]})[:-1]
            by_part.append(
                (
                    f"/api/attempts/{attempt.pk}/responses/",
                    token_of[n],
                    prefix + ', "idempotency_key": "k',
                    float(part["value"]),
                    part.get("unit", ""),
                )
            )
    # learner-major order would queue every request on one attempt's lock: interleave
    entries = [by_part[q * slots + s] for s in range(slots) for q in range(learners)]
    floor_token = token_of[0]
    out.write_text(json.dumps({"entries": entries, "floor_token": floor_token}))


def _lua_entries(entries) -> str:
    def q(x) -> str:
        if isinstance(x, float):
            return repr(x)
        return "'" + x.replace("\\", "\\\\").replace("'", "\\'") + "'"

    return "{" + ",".join("{" + ",".join(q(x) for x in e) + "}" for e in entries) + "}"


def _wrk(url: str, script: Path, *, threads: int, connections: int, seconds: int, args=()):
    cmd = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "-s", str(script), url]
    out = subprocess.run([*cmd, "--", *map(str, args)], capture_output=True, text=True)
    line = next((ln for ln in out.stdout.splitlines() if ln.startswith("BENCH ")), None)
    if line is None:
        raise RuntimeError(f"wrk gave no summary:\n{out.stdout}\n{out.stderr}")
    result = json.loads(line[6:])
    result["rps"] = result["requests"] / (result["duration_us"] / 1e6)
    return result


def _smoke(url: str, token: str | None, body: bytes) -> None:
    """One request before the load: a bench whose every request fails (a missing
    table, a refused host) must say why instead of reporting the speed of its errors."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    req = urllib.request.Request(url, data=body, headers=headers)  # noqa: S310 (our server)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:  # noqa: S310
            if r.status >= 300:
                raise RuntimeError(f"{url}: {r.status}")
    except urllib.error.HTTPError as err:
        raise RuntimeError(f"{url}: {err.code} {err.read()[:500]!r}") from None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL", ""))
    parser.add_argument("--learners", type=int, default=96)
    # enough first tries for 3 x 15 s at 600 answers a second: none runs out into later tries
    parser.add_argument("--slots", type=int, default=320)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--port", type=int, default=0, help="0: a free port")
    parser.add_argument(
        "--observability",
        choices=("on", "off"),
        default="on",
        help="on (default): metrics in multiprocess files and one JSON log line per request "
        "to a file, as deployed; off: neither, for the comparison",
    )
    parser.add_argument("--prepare", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.prepare:
        prepare(args.prepare, args.learners, args.slots)
        return
    if shutil.which("wrk") is None:  # before the fixture's 20 s, not after
        sys.exit("http_bench: wrk is not installed (apt-get install -y wrk)")
    with throwaway_database(args.database_url, "http_bench") as env:
        work = Path(tempfile.mkdtemp(prefix="burnin-bench-"))
        env["BENCH_OBSERVABILITY"] = args.observability
        if args.observability == "on":
            env.update(METRICS_DIR=str(work / "metrics"), LOG_FORMAT="json")
        started = time.monotonic()
        run_step(
            "bench/http_bench.py",
            env,
            "--prepare",
            str(work / "fixture.json"),
            "--learners",
            str(args.learners),
            "--slots",
            str(args.slots),
        )
        print(
            f"prepared {args.learners} learners x {args.slots} questions in "
            f"{time.monotonic() - started:.0f} s",
            file=sys.stderr,
        )
        fixture = json.loads((work / "fixture.json").read_text())
        settle(env["DATABASE_URL"])
        submit_lua = work / "submit.lua"
        submit_lua.write_text(
            LUA.replace("{ENTRIES}", _lua_entries(fixture["entries"])).replace(
                "{THREADS}", str(args.threads)
            )
        )
        floor_lua = work / "floor.lua"
        floor_lua.write_text(FLOOR_LUA.format(AUTH=""))
        token_lua = work / "floor_token.lua"
        token_lua.write_text(
            FLOOR_LUA.format(
                AUTH=f'wrk.headers["Authorization"] = "Token {fixture["floor_token"]}"'
            )
        )
        with (
            autovacuum(env["DATABASE_URL"]),
            gunicorn(env, workers=args.workers, port=args.port, log=work / "server.log") as base,
        ):
            _smoke(f"{base}/bench/floor/", None, b"{}")
            _smoke(f"{base}/bench/floor-token/", fixture["floor_token"], b"{}")
            results, counts = _drive(base, args, fixture, submit_lua, floor_lua, token_lua)
        stored = _count_responses(env)
        logged = _request_lines(work / "server.log")
    _report(results, args, stored, counts, len(fixture["entries"]), logged)


def _drive(base: str, args, fixture, submit_lua: Path, floor_lua: Path, token_lua: Path):
    kinds = {
        "floor (no auth)": (f"{base}/bench/floor/", floor_lua),
        "floor (token)": (f"{base}/bench/floor-token/", token_lua),
        "submission": (f"{base}/api/attempts/", submit_lua),
    }
    wrk = {"threads": args.threads, "connections": args.connections}
    sent_2xx, created, offset = 0, 0, 0
    for label, (url, script) in kinds.items():  # warm every worker up
        r = _wrk(url, script, seconds=3, args=(offset,), **wrk)
        if label == "submission":
            sent_2xx += r["requests"] - r["non2xx"]
            created += r["created"]
            offset += r["requests"]
    results = {label: [] for label in kinds}
    for _ in range(args.rounds):
        for label, (url, script) in kinds.items():
            before = cpu_seconds()
            r = _wrk(url, script, seconds=args.seconds, args=(offset,), **wrk)
            after = cpu_seconds()
            spent = cpu_between(before, after)
            r["cpu_ms"] = {k: seconds * 1000 / r["requests"] for k, seconds in spent.items()}
            results[label].append(r)
            if label == "submission":
                sent_2xx += r["requests"] - r["non2xx"]
                created += r["created"]
                offset += r["requests"]
    return results, (sent_2xx, created, offset)


def _count_responses(env) -> int:
    import psycopg

    with psycopg.connect(env["DATABASE_URL"]) as conn:
        return conn.execute("SELECT count(*) FROM assess_response").fetchone()[0]


def _request_lines(log: Path) -> int:
    """JSON request lines the server wrote (one per request when observability is on)."""
    with log.open("rb") as f:
        return sum(1 for line in f if line.startswith(b"{") and b'"event": "request"' in line)


def _report(results, args, stored: int, counts, first_tries: int, logged: int) -> None:
    sent_2xx, created, sent = counts
    floor = statistics.median(r["rps"] for r in results["floor (no auth)"])
    token_floor = statistics.median(r["rps"] for r in results["floor (token)"])
    print(
        f"\n{args.rounds} rounds x {args.seconds} s, wrk -t{args.threads} "
        f"-c{args.connections}, gunicorn {args.workers} sync workers, DEBUG=0, PostgreSQL, "
        f"metrics and request logs {args.observability} ({logged:,} JSON request lines)\n"
    )
    print(
        "| endpoint | req/s (median) | x floor | x token floor | p50 ms | p99 ms | non-2xx "
        "| socket errors "
        "| gunicorn CPU ms/req | PostgreSQL CPU ms/req |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, rows in results.items():
        rps = statistics.median(r["rps"] for r in rows)
        p50 = statistics.median(r["p50_us"] for r in rows) / 1000
        p99 = statistics.median(r["p99_us"] for r in rows) / 1000
        bad = sum(r["non2xx"] for r in rows)
        errors = sum(r["socket_errors"] for r in rows)
        cpu = {k: statistics.median(r["cpu_ms"][k] for r in rows) for k in rows[0]["cpu_ms"]}
        print(
            f"| {label} | {rps:,.0f} | {rps / floor:.2f} | {rps / token_floor:.2f} | "
            f"{p50:.1f} | {p99:.1f} | "
            f"{bad} | {errors} | {cpu['gunicorn']:.2f} | {cpu['postgres']:.2f} |"
        )
    print(
        f"\nSubmissions: {sent:,} sent, {sent_2xx:,} answered 2xx ({created:,} of them "
        f"201 Created), {stored:,} stored "
        f"({first_tries:,} distinct first tries available; beyond that a request is a "
        "later try, with no mastery write). Stored may exceed the 2xx count by the requests "
        "in flight when wrk stopped (it counts only the responses it read)."
    )


if __name__ == "__main__":
    main()
