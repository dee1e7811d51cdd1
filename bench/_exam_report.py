"""The table `bench/exam_load.py` prints for its runs (through the API, or the pages)."""

from __future__ import annotations

import sys

from bench.exam_pages import PAGE_ENDPOINTS

ENDPOINTS = ["start", "read attempt", "answer", "finish"]


def report(results, args, signin_line: str) -> None:
    """The run's table: per endpoint p50/p95/p99 (locust's), failures, the answers stored
    (read from the database) against those sent with a 2xx, and the exams finished."""
    endpoints = PAGE_ENDPOINTS if args.pages else ENDPOINTS
    answers = "autosave" if args.pages else "answer"
    arrivals = f"in bursts of {args.rate} each second" if args.burst else "spread over each second"
    arrivals += (
        "; every start draws its own variants" if args.live_draw else ("; variants drawn ahead")
    )
    if args.async_commit:
        arrivals += "; DIAGNOSTIC: synchronous_commit=off, not the service's setting"
    kind = f"gthread workers x {args.threads} threads" if args.threads > 1 else "sync workers"
    print(
        f"\ngunicorn {args.workers} {kind} ({'cold' if args.cold else 'warmed up'}), "
        "DEBUG=0, PostgreSQL; locust headless, "
        f"{args.rate} new learners/s ({arrivals}), "
        "think time 2-8 s, one 5-question exam (an hour's time limit) per learner"
        f"{' through the web pages (htmx)' if args.pages else ' through the API'}\n"
    )
    print(f"{signin_line}\n")
    head = " | ".join(f"{e} p50/p95/p99 ms" for e in endpoints)
    print(f"| N | req/s | {head} | failures | answers stored / sent (2xx) | exams finished |")
    print("|---:|---:|" + "---:|" * len(endpoints) + "---:|---:|---:|")
    best = None
    for n, rows, wall, samples, stored, finished in results:
        total = rows.get("Aggregated", {})
        cells, ok = [], True
        for e in endpoints:
            r = rows.get(e)
            if r is None or int(r["Request Count"]) == 0:
                cells.append("-")
                ok = False
                continue
            p99 = float(r["99%"])
            ok = ok and p99 < 150
            cells.append(f"{float(r['50%']):.0f} / {float(r['95%']):.0f} / {p99:.0f}")
        failures = int(total.get("Failure Count", 0) or 0)
        answer = rows.get(answers, {})
        sent_2xx = int(answer.get("Request Count", 0) or 0) - int(
            answer.get("Failure Count", 0) or 0
        )
        requests = int(total.get("Request Count", 0) or 0)
        print(
            f"| {n} | {requests / wall:.1f} | {' | '.join(cells)} | {failures} | "
            f"{stored} / {sent_2xx} | {finished} / {n} |"
        )
        if ok and failures == 0 and stored == sent_2xx and finished == n:
            best = n if best is None else max(best, n)
        for line in samples[:5]:
            print(f"    N={n} failure: {line}", file=sys.stderr)
    print(
        "\nreq/s: every request of the run over its wall time (spawn, think time, and the "
        "last learner's finish included)."
    )
    held = f"{best} learners" if best is not None else "none of the N run"
    print(f"Largest N that holds p99 < 150 ms on every endpoint with no errors: {held}.")
