"""Races at an attempt's deadline and between two memo versions, on real PostgreSQL.

The deadline: answers sent just before it race the expiry closing the attempt at it.
The attempt row's lock orders them, so an answer is either stored before the close and
counted in its score, or refused (Conflict, a 409 in the API): never stored but left
out of the score. Two versions of one memo sent at once: the memo row's lock and the
(memo, number) unique constraint give each its own number, and each gets a review.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from assess.errors import Conflict
from assess.models import Attempt, Memo, MemoVersion, Quiz, Response
from assess.services.attempts import attempt_start, attempts_expire
from assess.services.memos import CAPSTONE_COURSE, memo_submit, memo_version_add
from assess.services.responses import response_submit
from tests.assess.helpers import correct_text
from tests.factories import CourseFactory, QuizFactory, UserFactory
from tests.services.test_assess_races import run_together

QUESTIONS = 4


@pytest.mark.parametrize("round_", range(3))
def test_answers_racing_the_expiry_are_counted_or_refused(services_ready, transactional_db, round_):
    quiz = QuizFactory(
        mode=Quiz.Mode.EXAM, time_limit=timedelta(minutes=5), slots=[["gb-gib"]] * QUESTIONS
    )
    attempt, _ = attempt_start(quiz=quiz, learner=UserFactory(username=f"late{round_}"))
    deadline = attempt.deadline
    questions = list(attempt.questions.order_by("order"))
    just_before = deadline - timedelta(milliseconds=1)

    def act(i):
        if i == QUESTIONS + 1:
            return attempts_expire(now=deadline)
        question = questions[i % QUESTIONS]
        part = question.answers[0]
        fresh = Attempt.objects.select_related("quiz").get(pk=attempt.pk)
        # Thread QUESTIONS sends at the deadline itself: always refused.
        now = deadline if i == QUESTIONS else just_before
        return response_submit(
            attempt=fresh,
            question=question,
            part=part["name"],
            text=correct_text(part),
            idempotency_key=f"k{i}",
            now=now,
        )

    results = run_together(QUESTIONS + 2, act)
    *in_time, at_deadline, expired = results
    assert expired == 1, results
    assert isinstance(at_deadline, Conflict), at_deadline
    assert all(isinstance(r, Conflict) or r.response.pk for r in in_time), in_time
    final = Attempt.objects.get(pk=attempt.pk)
    assert final.status == Attempt.Status.EXPIRED and final.finished_at == deadline
    stored = Response.objects.filter(attempt=attempt)
    accepted = [r for r in in_time if not isinstance(r, Exception)]
    assert sorted(stored.values_list("pk", flat=True)) == sorted(r.response.pk for r in accepted)
    assert all(r.created_at < deadline for r in stored)
    # Every stored answer is a right one, and the score counts each of them.
    assert final.score == pytest.approx(len(accepted) / QUESTIONS)


@pytest.mark.parametrize("first", [True, False], ids=["first-versions", "resubmissions"])
def test_two_memo_versions_at_once_get_one_number_each(services_ready, transactional_db, first):
    """Two tabs submit the memo at once, as its first version (both create the memo and
    the capstone) or as resubmissions of a memo with one version already."""
    CourseFactory(slug=CAPSTONE_COURSE)
    learner = UserFactory(username="memo-racer")
    before = 0 if first else 1
    if not first:
        memo_submit(learner=learner, markdown="# v1")

    def send(i):
        text = f"# tab {i}"
        if first:
            return memo_submit(learner=learner, markdown=text)
        memo = Memo.objects.get(capstone__learner=learner)
        return memo_version_add(learner=learner, memo=memo, markdown=text)

    results = run_together(2, send)
    assert not [r for r in results if isinstance(r, Exception)], results
    [memo] = Memo.objects.filter(capstone__learner=learner)
    versions = list(MemoVersion.objects.filter(memo=memo).order_by("number"))
    assert [v.number for v in versions] == list(range(1, before + 3))
    assert sorted(r.pk for r in results) == [v.pk for v in versions[before:]]
    assert {v.markdown for v in versions[before:]} == {"# tab 0", "# tab 1"}
    # Each got its own review queued (the broker is the shared one: queued, not lost).
    assert {v.review_status for v in versions[before:]} <= {
        MemoVersion.ReviewStatus.QUEUED,
        MemoVersion.ReviewStatus.RUNNING,
        MemoVersion.ReviewStatus.DONE,
    }
    assert memo.status == Memo.Status.IN_REVIEW
