"""The chaos run's LMS learner without the faults: the test LMS (bench/_chaos_lms.py)
and the learner's client (bench/_chaos_learners.py) against a live server. An exam
begins with a real OIDC launch signed by the LMS, goes on through the API with the
session the launch signed in, and its grade reaches the LMS's gradebook under the
learner's sub. Runs in both passes (no private servers needed)."""

from __future__ import annotations

import random
import time

import httpx
import pytest
from lti_tool.models import LtiContext, LtiUser

from assess.models import Attempt
from bench._chaos_learners import Learner, Ledger
from bench._chaos_lms import CLIENT_ID, DEPLOYMENT_ID, TestLms
from bench._chaos_seed import _lms
from tests.factories import CourseFactory, QuizFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def exam():
    return QuizFactory(
        course=CourseFactory(slug="chaos"),
        title="Chaos exam",
        mode="exam",
        slots=[["gb-gib"], ["weights-memory"]],
    )


@pytest.fixture
def lms(live_server, exam):
    lms = TestLms()
    subs = _lms(exam.course, lms.base, 2)
    lms.start(live_server.url, exam_id=exam.pk, users=subs)
    yield lms
    lms.stop()


def _learner(live_server, lms, exam, sub: str) -> tuple[Learner, Ledger]:
    fixture = {
        "exam": exam.pk,
        "lms": {"issuer": lms.base, "client_id": CLIENT_ID, "deployment_id": DEPLOYMENT_ID},
    }
    row = {"token": None, "memo": None, "lms_sub": sub}
    ledger = Ledger()
    learner = Learner(
        live_server.url, row, fixture, ledger, random.Random(7), time.time() + 600, (0, 0)
    )
    return learner, ledger


def test_an_lms_learner_s_exam_starts_with_a_launch_and_its_grade_goes_back(live_server, lms, exam):
    learner, ledger = _learner(live_server, lms, exam, "lms-learner-0")
    learner.exam()

    assert ledger.lms_launches == 1 and lms.book.launches == 1
    assert ledger.exams_finished == ledger.lms_exams_finished == 1
    # The launch wrote what a launch writes: the LMS user linked to a new account, the
    # course context with the score service, the attempt of that account.
    lti_user = LtiUser.objects.get(sub="lms-learner-0")
    attempt = Attempt.objects.get()
    assert attempt.learner_id == lti_user.auth_user_id and attempt.finished_at is not None
    assert LtiContext.objects.get().can_publish_scores
    # Every part was answered through the API on the launch's session, every answer kept.
    statuses = {(s.endpoint, s.status) for s in ledger.samples}
    assert ("answer", 201) in statuses and ledger.refusals == {}
    assert len(ledger.answer_keys) == ledger.answers_sent == attempt.responses.count() > 0
    assert lms.received() == {"lms-learner-0": 1}
    assert not any(name.startswith("lti1p3-") for name in learner.cookies)


def test_each_exam_of_an_lms_learner_is_a_new_launch(live_server, lms, exam):
    learner, ledger = _learner(live_server, lms, exam, "lms-learner-1")
    learner.exam()
    learner.exam()
    assert ledger.lms_launches == lms.book.launches == 2
    assert Attempt.objects.filter(finished_at__isnull=False).count() == 2
    assert LtiUser.objects.count() == 1


def test_the_lms_answers_only_the_tool_s_login_for_its_own_learners(live_server, lms, exam):
    learner, _ = _learner(live_server, lms, exam, "lms-stranger")
    assert learner._launch() is None  # the LMS does not know this learner
    assert lms.book.launches == 0 and not Attempt.objects.exists()
    login = httpx.get(
        f"{lms.base}/auth",
        params={
            "response_type": "id_token",
            "response_mode": "form_post",
            "scope": "openid",
            "client_id": CLIENT_ID,
            "redirect_uri": "https://elsewhere.example/launch",
            "login_hint": "lms-learner-0",
            "state": "s",
            "nonce": "n",
        },
    )
    assert login.status_code == 400 and login.json()["wrong"] == ["redirect_uri"]
