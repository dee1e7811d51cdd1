"""certify.requirements, pure: what a learner still lacks for a track, and whether
they may join its rotation now."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from certify.requirements import (
    CertificateState,
    Evidence,
    ExamResult,
    LessonSkills,
    MemoApproval,
    Status,
    TrackRules,
    evaluate,
    lessons_below,
    standing,
)

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
P_INIT = 0.1

RULES = TrackRules(
    slug="serving",
    title="Serving on-call",
    lessons=(
        LessonSkills("kv", "KV cache", ("kv-size", "kv-blocks")),
        LessonSkills("batching", "Batching", ("batch-cap", "kv-size", "ttft", "tpot")),
        LessonSkills("gpus", "GPUs", ("xid",)),
    ),
    threshold=0.95,
    pass_mark=0.8,
    cooldown=timedelta(days=7),
    requires_memo=True,
)
SKILLS = ("kv-size", "kv-blocks", "batch-cap", "ttft", "tpot", "xid")
ALL = dict.fromkeys(SKILLS, 0.99)
PASS = ExamResult(attempt_id=1, score=0.9, finished_at=NOW - timedelta(days=1))
MEMO = MemoApproval(
    memo_id=3, version=2, score=8, max_score=10, approved_at=NOW - timedelta(days=2)
)


def ev(**kw) -> Evidence:
    kw.setdefault("mastery", ALL)
    kw.setdefault("exams", (PASS,))
    kw.setdefault("memo", MEMO)
    return Evidence(**kw)


def check(evidence: Evidence, rules: TrackRules = RULES):
    return evaluate(rules, evidence, now=NOW, p_init=P_INIT)


def req(readiness, key):
    return next(r for r in readiness.requirements if r.key == key)


def test_skills_are_the_lessons_skills_once_in_order():
    assert RULES.skills == SKILLS


def test_everything_met():
    r = check(ev())
    assert r.met and r.missing == ()
    assert [x.key for x in r.requirements] == ["mastery", "exam", "memo"]
    assert r.passed_exam == PASS and r.memo == MEMO
    assert "6 of 6" in req(r, "mastery").detail
    assert req(r, "exam").detail == "passed with 90% on 2026-05-31"
    assert r.next_step.startswith("Every requirement is met")


def test_mastery_below_lists_skills_and_names_the_lesson_with_most_below():
    mastery = {**ALL, "batch-cap": 0.5, "ttft": 0.94, "kv-blocks": 0.2}
    r = check(ev(mastery=mastery))
    m = req(r, "mastery")
    assert not m.met and not r.met
    assert "3 of 6 skills mastered" in m.detail
    for skill in ("kv-blocks", "batch-cap", "ttft"):
        assert skill in m.detail
    assert "xid" not in m.detail and "tpot" not in m.detail
    # Batching holds two of the three below (KV cache one): practise Batching.
    assert r.next_step == "Practise “Batching”: 2 of its skills are below the threshold."
    assert [s for s, _, ok in r.skills if not ok] == ["kv-blocks", "batch-cap", "ttft"]


def test_a_skill_without_an_estimate_counts_at_the_prior():
    mastery = {k: v for k, v in ALL.items() if k != "xid"}
    r = check(ev(mastery=mastery))
    assert ("xid", P_INIT, False) in r.skills
    assert r.next_step.startswith("Practise “GPUs”: 1 of")


def test_of_lessons_with_as_many_skills_below_the_first_is_named():
    # kv-size is in KV cache and Batching: one below each, KV cache comes first.
    r = check(ev(mastery={**ALL, "kv-size": 0.5}))
    assert r.next_step == "Practise “KV cache”: 1 of its skills are below the threshold."
    # A later lesson with more below wins over an earlier one.
    r = check(ev(mastery={**ALL, "kv-size": 0.5, "xid": 0.5, "tpot": 0.5}))
    assert r.next_step.startswith("Practise “Batching”: 2 of")


def test_the_threshold_itself_is_enough():
    r = check(ev(mastery=dict.fromkeys(SKILLS, 0.95)))
    assert req(r, "mastery").met


@given(st.dictionaries(st.sampled_from(SKILLS), st.floats(0, 1), min_size=0))
def test_mastery_met_iff_every_skill_reaches_the_threshold(mastery):
    r = check(ev(mastery=mastery))
    expected = all(mastery.get(s, P_INIT) >= RULES.threshold for s in SKILLS)
    assert req(r, "mastery").met is expected
    below = {s for s in SKILLS if mastery.get(s, P_INIT) < RULES.threshold}
    assert {s for s, _, ok in r.skills if not ok} == below
    if below:
        assert r.next_step.startswith("Practise")


def test_exam_not_taken():
    r = check(ev(exams=()))
    e = req(r, "exam")
    assert not e.met and e.detail == "certification exam not taken"
    assert r.next_step == "Take the certification exam."


def test_exam_in_progress():
    r = check(ev(exams=(), exam_open=True))
    assert not req(r, "exam").met
    assert req(r, "exam").detail == "certification exam in progress"
    assert r.next_step == "Finish the certification exam you started."


def test_failed_exam_names_score_pass_mark_and_retake_date():
    failed = ExamResult(2, 0.55, NOW - timedelta(days=2))
    r = check(ev(exams=(failed,)))
    e = req(r, "exam")
    assert not e.met and r.passed_exam is None
    assert "55%" in e.detail and "pass mark 80%" in e.detail and "2026-05-30" in e.detail
    # In words, never an ISO timestamp (issue 36): the pages show these reasons.
    retake = (failed.finished_at + timedelta(days=7)).strftime("%a %-d %b %Y, %H:%M UTC")
    assert f"next attempt from {retake}" in e.detail
    assert not re.search(r"\d{4}-\d\d-\d\dT\d", e.detail + r.next_step)
    assert r.next_step == f"Retake the certification exam from {retake}."


def test_failed_exam_after_the_cooldown_names_no_retake_date():
    failed = ExamResult(2, 0.55, NOW - timedelta(days=8))
    r = check(ev(exams=(failed,)))
    assert "next attempt" not in req(r, "exam").detail
    assert r.next_step == "Take the certification exam."


def test_the_latest_failure_is_reported_and_sets_the_cooldown():
    older = ExamResult(2, 0.7, NOW - timedelta(days=20))
    latest = ExamResult(3, 0.4, NOW - timedelta(days=1))
    r = check(ev(exams=(latest, older)))
    detail = req(r, "exam").detail
    assert "40%" in detail and "70%" not in detail
    assert "next attempt from Sun 7 Jun 2026, 12:00 UTC" in detail


def test_no_cooldown_no_retake_date():
    rules = dataclasses.replace(RULES, cooldown=None)
    r = check(ev(exams=(ExamResult(2, 0.1, NOW - timedelta(minutes=5)),)), rules)
    assert "next attempt" not in req(r, "exam").detail


def test_a_pass_among_failures_counts_and_the_best_is_kept():
    failed = ExamResult(2, 0.3, NOW)
    better = ExamResult(4, 0.95, NOW - timedelta(days=3))
    r = check(ev(exams=(failed, PASS, better)))
    assert req(r, "exam").met and r.passed_exam == better


def test_exactly_the_pass_mark_passes():
    r = check(ev(exams=(ExamResult(5, 0.8, NOW),)))
    assert req(r, "exam").met


def test_memo_required_and_missing():
    r = check(ev(memo=None))
    m = req(r, "memo")
    assert not m.met and not r.met and m.detail == "capstone memo not approved yet"
    assert r.next_step == "Write the capstone capacity memo and have it approved."


def test_memo_not_required():
    rules = dataclasses.replace(RULES, requires_memo=False)
    r = check(ev(memo=None), rules)
    assert r.met and [x.key for x in r.requirements] == ["mastery", "exam"]
    # An approval the track does not ask for is no part of its evidence.
    assert check(ev(), rules).memo is None


def cert(state: str, **kw) -> CertificateState:
    values = {
        "id": "abc",
        "state": state,
        "issued_at": NOW - timedelta(days=300),
        "expires_at": NOW + timedelta(days=65),
        "revoked_at": None,
        "revoke_reason": "",
    }
    return CertificateState(**{**values, **kw})


def test_a_valid_certificate_certifies_until_its_expiry():
    s = standing(check(ev(exams=())), cert("valid"))
    assert s.certified and s.status == Status.CERTIFIED
    assert s.until == NOW + timedelta(days=65)
    assert s.reason == "Certified until 2026-08-05."


def test_an_expired_certificate_does_not_certify_and_says_when():
    expired_on = NOW - timedelta(days=3)
    s = standing(check(ev(exams=())), cert("expired", expires_at=expired_on))
    assert not s.certified and s.status == Status.EXPIRED and s.until is None
    assert s.reason.startswith("Certificate expired on 2026-05-29.")
    assert "certification exam not taken" in s.reason


def test_a_revoked_certificate_gives_the_reason():
    revoked = cert("revoked", revoked_at=NOW - timedelta(days=1), revoke_reason="Sleeping on call")
    s = standing(check(ev()), revoked)
    assert not s.certified and s.status == Status.REVOKED
    assert "revoked on 2026-05-31" in s.reason and "Sleeping on call" in s.reason


def test_no_certificate_is_in_progress_with_what_is_missing():
    s = standing(check(ev(memo=None, exams=())), None)
    assert not s.certified and s.status == Status.IN_PROGRESS and s.until is None
    assert "certification exam not taken" in s.reason
    assert "capstone memo not approved yet" in s.reason


@given(st.sampled_from(["valid", "expired", "revoked"]), st.booleans())
def test_only_a_valid_certificate_certifies(state, met):
    readiness = check(ev() if met else ev(exams=()))
    s = standing(readiness, cert(state, revoked_at=NOW, revoke_reason="r"))
    assert s.certified is (state == "valid")
    assert (s.until is not None) is (state == "valid")


def test_a_long_list_of_skills_below_is_cut_to_five_and_a_count():
    skills = tuple(f"skill-{i}" for i in range(12))
    rules = TrackRules(
        slug="t",
        title="T",
        lessons=(LessonSkills("l", "L", skills),),
        threshold=0.95,
        pass_mark=0.8,
        cooldown=None,
        requires_memo=False,
    )
    detail = evaluate(rules, Evidence(mastery={}), now=NOW, p_init=0.1).requirements[0].detail
    assert detail == (
        "0 of 12 skills mastered; below the threshold: "
        "skill-0, skill-1, skill-2, skill-3, skill-4 and 7 more"
    )


def test_the_exam_gate_names_every_lesson_a_weak_skill_belongs_to_in_track_order():
    """The certification exam's gate (issue 36): a skill shared by two lessons holds
    both back; an unseen skill counts at the prior; a mastered track has none."""
    assert lessons_below(RULES, ALL, p_init=P_INIT) == ()
    weak = ALL | {"kv-size": 0.5}
    assert [lesson.slug for lesson in lessons_below(RULES, weak, p_init=P_INIT)] == [
        "kv",
        "batching",
    ]
    unseen = {k: v for k, v in ALL.items() if k != "xid"}
    assert [lesson.slug for lesson in lessons_below(RULES, unseen, p_init=P_INIT)] == ["gpus"]
    at_threshold = ALL | {"xid": RULES.threshold}
    assert lessons_below(RULES, at_threshold, p_init=P_INIT) == ()
