"""Races at an attempt's deadline and between two memo versions, on real PostgreSQL.

The deadline: answers sent just before it race the expiry closing the attempt at it.
The attempt row's lock orders them, so an answer is either stored before the close and
counted in its score, or refused (Conflict, a 409 in the API): never stored but left
out of the score. Two versions of one memo sent at once: the capstone's and the memo's
row locks order them, and the one-version-a-minute rule stores one; racing first POSTs
of the API give one 201.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from rest_framework.test import APIClient

from api_common.service_errors import Conflict, TooSoon
from assess.models import Attempt, Quiz, Response
from assess.services.attempts import attempt_start, attempts_expire
from assess.services.responses import response_submit
from capstone.models import Memo, MemoVersion
from capstone.services import CAPSTONE_COURSE, memo_submit, memo_version_add
from tests.assess.helpers import age_memo_versions, correct_text
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
def test_two_memo_versions_at_once_store_one(services_ready, transactional_db, first):
    """Two tabs submit the memo at once, as its first version (both create the memo and
    the capstone) or as resubmissions of a memo with one version already aged past the
    one-a-minute rule. The capstone's and the memo's row locks order them: one version is
    stored and reviewed, the other is refused (TooSoon, a 429: the page keeps its text),
    never two versions a moment apart, never a lost one without a refusal."""
    CourseFactory(slug=CAPSTONE_COURSE)
    learner = UserFactory(username="memo-racer")
    before = 0 if first else 1
    if not first:
        memo_submit(learner=learner, markdown="# v1")
        age_memo_versions()

    def send(i):
        text = f"# tab {i}"
        if first:
            return memo_submit(learner=learner, markdown=text)
        memo = Memo.objects.get(capstone__learner=learner)
        return memo_version_add(learner=learner, memo=memo, markdown=text)

    results = run_together(2, send)
    stored = [r for r in results if not isinstance(r, Exception)]
    refused = [r for r in results if isinstance(r, Exception)]
    assert len(stored) == 1 and [type(r) for r in refused] == [TooSoon], results
    [memo] = Memo.objects.filter(capstone__learner=learner)
    versions = list(MemoVersion.objects.filter(memo=memo).order_by("number"))
    assert [v.number for v in versions] == list(range(1, before + 2))
    assert versions[-1].pk == stored[0].pk
    assert versions[-1].review_status in {
        MemoVersion.ReviewStatus.QUEUED,
        MemoVersion.ReviewStatus.RUNNING,
        MemoVersion.ReviewStatus.DONE,
    }
    assert memo.status == Memo.Status.IN_REVIEW


def test_racing_first_memo_posts_give_one_201(services_ready, transactional_db):
    """The probe's case: 8 parallel first POSTs to /api/memos/ gave three 201s (versions
    1-3) and five 409s. The capstone row is locked before the check: one 201, seven 409s
    naming the memo, one version."""
    CourseFactory(slug=CAPSTONE_COURSE)
    learner = UserFactory(username="memo-poster")

    def post(i):
        client = APIClient()
        client.force_authenticate(learner)
        return client.post("/api/memos/", {"markdown": f"# tab {i}"}, format="json")

    responses = run_together(8, post)
    codes = sorted(r.status_code for r in responses)
    assert codes == [201] + [409] * 7, codes
    [memo] = Memo.objects.filter(capstone__learner=learner)
    assert list(memo.versions.values_list("number", flat=True)) == [1]
    assert all(
        f"id {memo.pk}" in r.json()["errors"][0]["detail"]
        for r in responses
        if r.status_code == 409
    )
