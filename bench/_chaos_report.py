"""The chaos run's end: what must hold, counted from the database, the test LMS's
gradebook and the clients' ledger, and the Markdown report (bench/README.md keeps the
10-minute run's). Counts decide; the percentiles are reported, never checked.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict

SETTLE = 10.0  # seconds after a fault's end still counted as the fault's, for the p99s


def checks(cluster, ledger, lms, fixture, readyz) -> tuple[dict[str, int], dict[str, int]]:
    """(violations by name, counts by name); a run passes when every violation is 0."""
    keys = sorted(ledger.answer_keys)
    stored = dict(
        cluster.admin(
            "SELECT idempotency_key, count(*) FROM assess_response"
            " WHERE idempotency_key = ANY(%s) GROUP BY 1",
            (keys,),
        )
    )
    [(answers_total,)] = cluster.admin("SELECT count(*) FROM assess_response")
    [(versions, reviewed, failed, redelivered)] = cluster.admin(
        "SELECT count(*),"
        " count(*) FILTER (WHERE review_status = 'done' AND review IS NOT NULL),"
        " count(*) FILTER (WHERE review_status = 'failed'),"
        " count(*) FILTER (WHERE deliveries > 1)"
        " FROM capstone_memoversion"
    )
    [(attempts_released,)] = cluster.admin(
        "SELECT count(*) FROM assess_attempt a"
        " JOIN lti_tool_ltiuser u ON u.auth_user_id = a.learner_id"
        " WHERE a.mastery_applied_at IS NOT NULL AND a.quiz_id = %s",
        (fixture["exam"],),
    )
    # Every LMS learner whose exam grade was released, and their passback row (one per
    # learner and quiz: only a changed counted score is sent again).
    released = cluster.admin(
        "SELECT DISTINCT u.sub, s.state, coalesce(s.reason, ''), s.sent_score_given,"
        "       s.score_given"
        " FROM assess_attempt a"
        " JOIN lti_tool_ltiuser u ON u.auth_user_id = a.learner_id"
        " LEFT JOIN lti_scoresync s ON s.learner_id = a.learner_id AND s.quiz_id = a.quiz_id"
        " WHERE a.mastery_applied_at IS NOT NULL AND a.quiz_id = %s",
        (fixture["exam"],),
    )
    gradebook = lms.book
    with gradebook.lock:
        last = {user: body.get("scoreGiven") for (_, user), body in gradebook.last.items()}
    states = Counter()
    for sub, state, reason, sent_given, given in released:
        if state is None:
            states["missing"] += 1
        elif state == "sent":
            ok = sent_given == given and last.get(sub) == sent_given
            states["sent" if ok else "sent, LMS holds another score"] += 1
        elif state == "pending":
            states["pending with a reason" if reason else "pending, no reason"] += 1
        else:
            states[f"{state}"] += 1
    statuses = Counter(s.status for s in ledger.samples)
    bad_503 = sum(1 for s in ledger.samples if s.status == 503 and not s.retry_after)
    server_errors = sum(
        n for status, n in statuses.items() if isinstance(status, int) and status >= 500
    ) - statuses.get(503, 0)
    violations = {
        "answers 2xx not stored": sum(1 for k in keys if k not in stored),
        "answers 2xx stored more than once": sum(1 for k in keys if stored.get(k, 0) > 1),
        "memo versions without exactly one review": versions - reviewed,
        "memo versions acknowledged but not stored": max(0, ledger.memo_versions_acked - versions),
        "LMS grades released but neither sent nor pending with a reason": sum(
            n for k, n in states.items() if k not in ("sent", "pending with a reason")
        ),
        "5xx other than 503": server_errors,
        "503 without Retry-After": bad_503,
        "readyz not 200 after the last fault": int(readyz is None),
    }
    counts = {
        "requests": len(ledger.samples),
        "answers sent (distinct keys)": ledger.answers_sent,
        "answers 2xx": len(keys),
        "answers stored (all)": answers_total,
        "exams finished (200)": ledger.exams_finished,
        "LMS launches that reached the exam (303)": ledger.lms_launches,
        "LMS learners' exams finished": ledger.lms_exams_finished,
        "memo versions acknowledged (201)": ledger.memo_versions_acked,
        "memo versions stored": versions,
        "memo versions reviewed": reviewed,
        "memo reviews failed": failed,
        "memo reviews delivered more than once (written once)": redelivered,
        "LMS learners' exam attempts released": attempts_released,
        "LMS learners with a released grade": len(released),
        **{f"LMS grades {k}": n for k, n in sorted(states.items())},
        "LMS score posts received": sum(lms.received().values()),
        **{f"HTTP {k}": n for k, n in sorted(statuses.items(), key=lambda kv: str(kv[0]))},
        **{
            f"HTTP {status} on {endpoint}": n
            for (endpoint, status), n in sorted(
                Counter((s.endpoint, s.status) for s in ledger.samples).items(),
                key=lambda kv: (str(kv[0][1]), kv[0][0]),
            )
            if not (isinstance(status, int) and status < 300)
        },
    }
    return violations, counts


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def between_faults(ledger, faults) -> dict[str, list[float]]:
    """Milliseconds of the 2xx-4xx responses that neither overlapped a fault nor came
    within SETTLE seconds after one, by endpoint."""
    windows = [(f.start, f.end + SETTLE) for f in faults if f.start]
    out = defaultdict(list)
    for s in ledger.samples:
        if not isinstance(s.status, int) or s.status >= 500:
            continue
        end = s.start + s.seconds
        if any(s.start < w_end and end > w_start for w_start, w_end in windows):
            continue
        out[s.endpoint].append(s.seconds * 1000)
    return out


def report(*, minutes, seed, learners, t0, faults, ledger, counts, violations, readyz, drained):
    lines = [
        f"Chaos run: {minutes:g} min, CHAOS_SEED={seed}, {learners} learners "
        "(think time 2-8 s), gunicorn 3 sync workers, 2 Celery workers (celery, reviews; "
        "prefork, concurrency 1), private PostgreSQL and Redis on loopback; the "
        "machine's load average at the end %.1f (1 min), %.1f (5 min), %.1f (15 min)."
        % os.getloadavg(),
        "",
        "| fault | at (s) | took (s) | /readyz 200 after (s) | detail |",
        "|---|---:|---:|---:|---|",
    ]
    for f in faults:
        took = f.end - f.start if f.start else 0.0
        ready = f"{f.ready_after:.2f}" if f.ready_after is not None else "not within 60"
        lines.append(f"| {f.kind} | {f.start - t0:.1f} | {took:.1f} | {ready} | {f.detail} |")
    ready = f"{readyz:.2f} s" if readyz is not None else "not within 120 s"
    lines += ["", f"/readyz answered 200 {ready} after the last fault ended.", ""]
    lines += [f"Queues drained {drained:.0f} s after the learners stopped.", ""]
    lines += ["| endpoint | responses between faults | p50 ms | p99 ms |", "|---|---:|---:|---:|"]
    for endpoint, ms in sorted(between_faults(ledger, faults).items()):
        lines.append(f"| {endpoint} | {len(ms)} | {_pct(ms, 50):.0f} | {_pct(ms, 99):.0f} |")
    lines += ["", "| count | n |", "|---|---:|"]
    lines += [f"| {k} | {v} |" for k, v in counts.items()]
    lines += ["", "| refused (4xx) | status | why (the API's detail) | n |", "|---|---:|---|---:|"]
    for (endpoint, status, detail), n in ledger.refusals.most_common(10):
        lines.append(f"| {endpoint} | {status} | {detail.replace('|', '/')} | {n} |")
    lines += ["", "| must be 0 | n |", "|---|---:|"]
    lines += [f"| {k} | {v} |" for k, v in violations.items()]
    return "\n".join(lines)
