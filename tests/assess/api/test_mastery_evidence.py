"""Honest mastery evidence, seen through /api/me/mastery/.

Immediate feedback: only the first graded try of each part of each question updates BKT.
Deferred feedback: the counted (last) answer of each part is held back and applied when
the grades become visible: at the finish or the expiry (after_attempt), when
release_mastery runs after the close (after_close). Replays, later tries and reveals
change nothing; the answers that did update mastery are marked evidence, and those are
all fit_mastery reads.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from assess.mastery import bkt
from assess.models import Attempt, MasteryEvent, Quiz, Response, SkillMastery
from assess.selectors import evidence_sequences
from assess.services.mastery import mastery_release_attempt
from assess.tasks import expire_attempts, release_mastery
from tests.assess.helpers import correct_text, parts_of, reveal, send, wrong_text
from tests.factories import CourseFactory, EnrolmentFactory, LessonFactory, QuizFactory

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.assess.urls")]

P0 = bkt.DEFAULT_PARAMS.p_init
NOTHING = {"skills": [], "lessons": []}


def mastery(api) -> dict:
    r = api.get("/api/me/mastery/")
    assert r.status_code == 200
    return r.json()


def skills(api) -> dict[str, tuple[float, int]]:
    return {s["skill"]: (s["p_mastery"], s["evidence"]) for s in mastery(api)["skills"]}


def start(api, quiz) -> tuple[int, list[int]]:
    r = api.post(f"/api/quizzes/{quiz.pk}/attempts/")
    assert r.status_code == 201, r.content
    body = r.json()
    return body["id"], [q["id"] for q in body["questions"]]


def ok(r, code=201):
    assert r.status_code == code, r.content
    return r.json()


def exam(**kw) -> Quiz:
    return QuizFactory(mode=Quiz.Mode.EXAM, slots=[["gb-gib"], ["weights-memory"]], **kw)


def answer_exam(api, aid, gb, weights) -> tuple[int, int, int]:
    """gb-gib wrong then right (the last counts), weights-memory right: three stored
    answers, two of them counted. Returns their ids."""
    gb_part, w_part = parts_of(gb)[0], parts_of(weights)[0]
    first = ok(send(api, aid, gb, "converted", wrong_text(gb_part), "gb-1"))["id"]
    last = ok(send(api, aid, gb, "converted", correct_text(gb_part), "gb-2"))["id"]
    w = ok(send(api, aid, weights, "weights", correct_text(w_part), "w"))["id"]
    return first, last, w


def expected_after_exam() -> dict[str, tuple[float, int]]:
    """gb-gib right (units-gb-gib), then weights-memory right (weights-bytes and
    units-gb-gib), in the order they were saved."""
    units = bkt.update(bkt.update(P0, True), True)
    return {"units-gb-gib": (units, 2), "weights-bytes": (bkt.update(P0, True), 1)}


def assert_counted(responses: tuple[int, int, int]) -> None:
    first, last, w = responses
    assert set(Response.objects.filter(evidence=True).values_list("pk", flat=True)) == {last, w}
    events = MasteryEvent.objects.order_by("id")
    assert sorted((e.response_id, e.skill) for e in events) == sorted(
        [(last, "units-gb-gib"), (w, "weights-bytes"), (w, "units-gb-gib")]
    )


def test_exam_answers_reach_mastery_at_the_finish(api, learner):
    course = CourseFactory()
    lesson = LessonFactory(module__course=course, templates=["gb-gib"])
    EnrolmentFactory(user=learner, course=course)
    aid, (gb, weights) = start(api, exam(course=course))
    before = mastery(api)
    assert before["skills"] == []
    [row] = before["lessons"]
    assert row["lesson"] == lesson.slug and row["evidence"] == 0

    stored = answer_exam(api, aid, gb, weights)
    assert mastery(api) == before  # held back while the exam runs
    assert not MasteryEvent.objects.exists()
    assert not Response.objects.filter(evidence=True).exists()

    ok(api.post(f"/api/attempts/{aid}/finish/"), 200)
    got = skills(api)
    want = expected_after_exam()
    assert got.keys() == want.keys()
    for skill, (p, evidence) in want.items():
        assert got[skill] == (pytest.approx(p), evidence)
    [row] = mastery(api)["lessons"]
    assert row["evidence"] == 2 and row["weakest_p_mastery"] == pytest.approx(
        want["units-gb-gib"][0]
    )
    assert_counted(stored)

    # Released once: a second release (or finish) changes nothing.
    assert mastery_release_attempt(attempt=Attempt.objects.get(pk=aid)) == 0
    assert api.post(f"/api/attempts/{aid}/finish/").status_code == 409
    assert release_mastery.apply().get() == 0
    assert skills(api) == got
    assert MasteryEvent.objects.count() == 3


def test_an_expired_exam_releases_its_answers(api):
    aid, (gb, weights) = start(api, exam(time_limit=timedelta(minutes=30)))
    stored = answer_exam(api, aid, gb, weights)
    assert skills(api) == {}
    Attempt.objects.filter(pk=aid).update(deadline=timezone.now() - timedelta(seconds=1))
    assert skills(api) == {}  # past the deadline, but not closed yet
    assert expire_attempts.apply().get() == 1
    got = skills(api)
    for skill, (p, evidence) in expected_after_exam().items():
        assert got[skill] == (pytest.approx(p), evidence)
    assert_counted(stored)


def test_after_close_exam_waits_for_release_after_the_close(api):
    quiz = exam(feedback=Quiz.Feedback.AFTER_CLOSE, closes_at=timezone.now() + timedelta(hours=1))
    aid, (gb, weights) = start(api, quiz)
    stored = answer_exam(api, aid, gb, weights)
    ok(api.post(f"/api/attempts/{aid}/finish/"), 200)
    assert skills(api) == {}  # finished, not released: others may still be answering
    assert release_mastery.apply().get() == 0
    assert skills(api) == {}
    assert Attempt.objects.get(pk=aid).mastery_applied_at is None

    Quiz.objects.filter(pk=quiz.pk).update(closes_at=timezone.now() - timedelta(seconds=1))
    assert skills(api) == {}  # the close alone does not write: the beat task does
    assert release_mastery.apply().get() == 2
    got = skills(api)
    for skill, (p, evidence) in expected_after_exam().items():
        assert got[skill] == (pytest.approx(p), evidence)
    assert_counted(stored)
    assert Attempt.objects.get(pk=aid).mastery_applied_at is not None
    assert release_mastery.apply().get() == 0  # idempotent
    assert skills(api) == got


def test_after_close_exam_left_open_is_released_by_the_expiry(api):
    closes = timezone.now() + timedelta(hours=1)
    quiz = exam(feedback=Quiz.Feedback.AFTER_CLOSE, closes_at=closes)
    aid, (gb, weights) = start(api, quiz)
    assert Attempt.objects.get(pk=aid).deadline == closes
    stored = answer_exam(api, aid, gb, weights)
    past = timezone.now() - timedelta(seconds=1)
    Quiz.objects.filter(pk=quiz.pk).update(closes_at=past)
    Attempt.objects.filter(pk=aid).update(deadline=past)
    assert expire_attempts.apply().get() == 1
    assert set(skills(api)) == {"units-gb-gib", "weights-bytes"}
    assert_counted(stored)
    assert release_mastery.apply().get() == 0


def test_an_exam_finished_with_no_answers_changes_nothing(api):
    aid, _ = start(api, exam())
    ok(api.post(f"/api/attempts/{aid}/finish/"), 200)
    assert mastery(api) == NOTHING
    assert Attempt.objects.get(pk=aid).mastery_applied_at is not None


# -------------------------------------------------------------------- immediate feedback


def test_only_the_first_try_of_a_part_counts(api):
    aid, [qid] = start(api, QuizFactory(mode=Quiz.Mode.PRACTICE, slots=[["gb-gib"]]))
    part = parts_of(qid)[0]
    ok(send(api, aid, qid, "converted", wrong_text(part), "1"))
    after_first = skills(api)
    assert after_first == {"units-gb-gib": (pytest.approx(bkt.update(P0, False)), 1)}
    ok(send(api, aid, qid, "converted", f"{part['value'] * 41!r} {part['unit']}", "2"))
    ok(send(api, aid, qid, "converted", correct_text(part), "3"))
    assert skills(api) == after_first
    assert Response.objects.filter(evidence=True).count() == 1
    assert MasteryEvent.objects.count() == 1


def test_replays_change_nothing(api):
    aid, [qid] = start(api, QuizFactory(mode=Quiz.Mode.HOMEWORK, slots=[["gb-gib"]]))
    part = parts_of(qid)[0]
    first = ok(send(api, aid, qid, "converted", correct_text(part), "k"))
    after = skills(api)
    for _ in range(3):
        assert ok(send(api, aid, qid, "converted", correct_text(part), "k"), 200) == first
    assert (
        api.post(
            f"/api/attempts/{aid}/responses/",
            {
                "question": qid,
                "part": "converted",
                "answer": wrong_text(part),
                "idempotency_key": "k",
            },
            format="json",
        ).status_code
        == 422
    )
    assert skills(api) == after
    assert MasteryEvent.objects.count() == 1
    assert SkillMastery.objects.get().responses == 1


def test_eight_correct_answers_with_fresh_keys_update_once(api):
    aid, [qid] = start(api, QuizFactory(mode=Quiz.Mode.PRACTICE, slots=[["gb-gib"]]))
    part = parts_of(qid)[0]
    codes = [
        send(api, aid, qid, "converted", correct_text(part), f"fresh-{i}").status_code
        for i in range(8)
    ]
    assert codes == [201] + [409] * 7
    assert skills(api) == {"units-gb-gib": (pytest.approx(bkt.update(P0, True)), 1)}
    assert Response.objects.count() == 1
    assert MasteryEvent.objects.count() == 1


def test_each_question_and_part_counts_once(api):
    quiz = QuizFactory(mode=Quiz.Mode.PRACTICE, slots=[["roofline-attainable"], ["gb-gib"]])
    aid, (roofline, gb) = start(api, quiz)
    parts = parts_of(roofline)
    for part in parts:
        ok(send(api, aid, roofline, part["name"], wrong_text(part), f"w-{part['name']}"))
        ok(send(api, aid, roofline, part["name"], correct_text(part), f"r-{part['name']}"))
    ok(send(api, aid, gb, "converted", correct_text(parts_of(gb)[0]), "gb"))
    evidence = Response.objects.filter(evidence=True)
    assert evidence.count() == len(parts) + 1
    assert not evidence.filter(correct=True, question_id=roofline).exists()
    assert SkillMastery.objects.get(skill="units-gb-gib").responses == 1


def test_a_reveal_changes_no_mastery(api):
    aid, [qid] = start(api, QuizFactory(mode=Quiz.Mode.PRACTICE, slots=[["gb-gib"]]))
    ok(reveal(api, aid, qid, "converted"), 200)
    assert mastery(api) == NOTHING
    ok(api.post(f"/api/attempts/{aid}/finish/"), 200)
    assert mastery(api) == NOTHING
    assert not MasteryEvent.objects.exists()


def test_fit_mastery_reads_exactly_the_evidence(api, learner):
    """What the online updates saw is what the fit reads: evidence answers in time order,
    per learner and skill, and nothing else."""
    aid, [qid] = start(api, QuizFactory(mode=Quiz.Mode.PRACTICE, slots=[["gb-gib"]]))
    part = parts_of(qid)[0]
    ok(send(api, aid, qid, "converted", wrong_text(part), "1"))
    ok(send(api, aid, qid, "converted", correct_text(part), "2"))  # a retry: not fitted
    eid, (gb, weights) = start(api, exam())
    answer_exam(api, eid, gb, weights)
    # The exam runs: only the practice try is evidence.
    assert evidence_sequences() == {"units-gb-gib": {learner.pk: [False]}}
    ok(api.post(f"/api/attempts/{eid}/finish/"), 200)
    assert evidence_sequences() == {
        "units-gb-gib": {learner.pk: [False, True, True]},
        "weights-bytes": {learner.pk: [True]},
    }
    events = MasteryEvent.objects.order_by("created_at", "id")
    assert [e.skill for e in events if e.skill == "units-gb-gib"] == ["units-gb-gib"] * 3
