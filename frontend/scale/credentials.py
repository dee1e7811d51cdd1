"""The institution's credentials: certificates and capstone memos.

Certificates: each engineer holds some of the tracks (valid, some expired, a few
revoked), the rest go to other learners, one valid certificate per holder and track as
the database insists; evidence is the snapshot's shape (certify.services.certificates)
with the track's skills. Memos: capstones of the capstone course's learners, each memo
with two to six versions; the text, its HTML and its review are real (the worked
example memo with planted mistakes, reviewed by the pure memo review) for a pool of
briefs shared by the capstones; the latest versions of a few memos wait in the queue.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from capstone.memo_review import kept
from capstone.memo_review.example import MISTAKES, example_memo
from capstone.memo_review.memo_markdown import memo_html
from capstone.memo_review.review import review_memo
from capstone.models import Capstone, Memo, MemoDecision, MemoVersion
from capstone.services import CAPSTONE_COURSE
from certify.models import Certificate, Track, new_certificate_id
from certify.selectors import track_rules
from frontend.scale.people import People
from frontend.scale.plan import Plan
from frontend.scale.rows import Table

BRIEFS = 12  # distinct briefs (and memo texts) the capstones share
CERTIFICATE_COLUMNS = [
    "id", "holder_id", "track_id", "status", "issued_at", "expires_at", "evidence",
    "revoked_at", "revoked_by_id", "revoke_reason",
]  # fmt: skip
VERSION_COLUMNS = [
    "id", "memo_id", "number", "markdown", "html", "created_at", "review_status", "review",
    "score", "max_score", "queued_at", "started_at", "reviewed_at", "deliveries",
]  # fmt: skip


def certificates_write(plan: Plan, people: People, rng: random.Random, now: datetime) -> int:
    tracks = list(Track.objects.order_by("order"))
    if not tracks:
        return 0
    rules = track_rules(tracks)
    rows = []
    for user in people.learners:  # the engineers first (people.People.engineers)
        if len(rows) >= plan.certificates:
            break
        for track in tracks:
            if len(rows) >= plan.certificates or rng.random() > 0.6:
                continue
            issued = now - timedelta(days=rng.uniform(1, 700))
            expires = issued + timedelta(days=track.validity_days)
            status = "expired" if expires <= now else "valid"
            if status == "valid" and rng.random() < 0.03:
                status = "revoked"
            skills = {s: round(rng.uniform(track.mastery_threshold, 1.0), 4)
                      for s in rules[track.pk].skills}  # fmt: skip
            evidence = {
                "track": track.slug, "mastery_threshold": track.mastery_threshold,
                "skills": skills, "lessons": [lesson.slug for lesson in rules[track.pk].lessons],
                "exam": None, "memo": None,
            }  # fmt: skip
            revoked = issued + timedelta(days=1) if status == "revoked" else None
            rows.append((new_certificate_id(), user, track.pk, status, issued, expires, evidence,
                         revoked, people.managers[0] if revoked else None,
                         "Scale data: revoked" if revoked else ""))  # fmt: skip
    Table(Certificate, CERTIFICATE_COLUMNS).write(rows)
    return len(rows)


def _memo_pool(rng: random.Random) -> list[dict]:
    pool = []
    for _ in range(BRIEFS):
        seed = rng.getrandbits(62)
        stored, version = kept.draw(seed)
        brief = kept.brief_of(seed, stored, version)
        texts = []
        for mistakes in ((), (MISTAKES[0],), (MISTAKES[1],)):
            text = example_memo(brief, mistakes=mistakes)
            review = review_memo(brief, text)
            texts.append((text, memo_html(text), review.as_dict(), review.score, review.max_score))
        pool.append({"seed": seed, "brief": stored, "version": version, "texts": texts})
    return pool


def memos_write(plan: Plan, people: People, rng: random.Random, now: datetime) -> int:
    """Capstones, memos and plan.memo_versions versions; returns the versions written."""
    course = next((c for c in people.courses if c.slug == CAPSTONE_COURSE), people.courses[0])
    writers = [u for u, courses in people.enrolled.items() if course.pk in courses]
    pool = _memo_pool(rng)
    capstones = Table(Capstone, ["id", "learner_id", "course_id", "seed", "brief",
                                 "brief_version", "created_at"])  # fmt: skip
    memos = Table(Memo, ["id", "capstone_id", "status", "created_at", "updated_at"])
    versions = Table(MemoVersion, VERSION_COLUMNS)
    next_capstone, next_memo, next_version = (
        capstones.next_id(),
        memos.next_id(),
        versions.next_id(),
    )
    cap_rows, memo_rows, version_rows, decisions = [], [], [], []
    instructor = people.instructors[course.pk][0]
    for learner in writers:
        if len(version_rows) >= plan.memo_versions:
            break
        brief = pool[rng.randrange(len(pool))]
        started = now - timedelta(days=rng.uniform(2, 300))
        cap_rows.append((next_capstone, learner, course.pk, brief["seed"], brief["brief"],
                         brief["version"], started))  # fmt: skip
        count = min(plan.memo_versions - len(version_rows), rng.randint(2, 6))
        queued_last = rng.random() < 0.03
        status = "in_review"
        at = started
        for number in range(1, count + 1):
            at += timedelta(hours=rng.uniform(1, 72))
            text, html, review, score, top = brief["texts"][min(count - number, 2)]
            waiting = queued_last and number == count
            version_rows.append((
                next_version, next_memo, number, text, html, at,
                "queued" if waiting else "done", None if waiting else review,
                None if waiting else score, None if waiting else top, at,
                None if waiting else at, None if waiting else at + timedelta(seconds=2),
                0 if waiting else 1,
            ))  # fmt: skip
            if number == count and not waiting and rng.random() < 0.5:
                status = "approved" if rng.random() < 0.7 else "changes_requested"
                decisions.append((next_memo, next_version, instructor,
                                  "approve" if status == "approved" else "request_changes",
                                  "", [], at + timedelta(days=1)))  # fmt: skip
            next_version += 1
        memo_rows.append((next_memo, next_capstone, status, started, at))
        next_capstone += 1
        next_memo += 1
    capstones.write(cap_rows)
    memos.write(memo_rows)
    versions.write(version_rows)
    Table(MemoDecision, ["memo_id", "version_id", "instructor_id", "decision", "comment",
                         "adjustments", "created_at"]).write(decisions)  # fmt: skip
    return len(version_rows)
