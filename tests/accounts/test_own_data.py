"""A learner's own data (issue 35 item 5): "Download my data" holds what the site keeps
about them and nothing the pages withhold; "Delete my account" asks for the password (or
a fresh single sign-on) and anonymises in place: the answers stay for the item
statistics, the certificates become revoked history naming no one, the memo text and
every way in are gone. Staff do both in the admin."""

from __future__ import annotations

import io
import json
import zipfile
from datetime import timedelta

import pytest
from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.models import Erasure
from assess.models import Attempt, Quiz, Response
from assess.services.attempts import attempt_start
from assess.services.responses import response_submit
from audit.models import AuditEvent
from capstone.models import MemoVersion
from capstone.services import CAPSTONE_COURSE, memo_submit
from certify.models import Certificate
from orgs.models import Membership, TeamMember
from privacy.erasure import account_anonymise
from tests.accounts.people import api_as, make_org
from tests.accounts.sso import register, sign_on
from tests.factories import PASSWORD, CourseFactory, QuizFactory, UserFactory
from tests.frontend.helpers import right_text

pytestmark = pytest.mark.django_db
User = get_user_model()

MEMO = "# Capacity plan\n\nEight H100s hold the 70B model with room for the KV cache."


def practise(user, quiz=None, *, right: bool = True) -> Attempt:
    quiz = quiz or QuizFactory(slots=[["weights-memory"]])
    attempt, _ = attempt_start(quiz=quiz, learner=user)
    attempt = Attempt.objects.select_related("quiz").get(pk=attempt.pk)
    question = attempt.questions.get()
    part = question.answers[0]
    text = right_text(part) if right else "1 GB"
    response_submit(
        attempt=attempt, question=question, part=part["name"], text=text, idempotency_key="k1"
    )
    return attempt


@pytest.fixture
def eve():
    """The engineer of make_org, who practised, wrote a memo and holds a certificate."""
    CourseFactory(slug=CAPSTONE_COURSE, title="Foundations")
    org = make_org()
    org.engineer.email = "eve@acme.example"
    org.engineer.save()  # the address becomes allauth's, verified (staff-made account)
    practise(org.engineer)
    memo_submit(learner=org.engineer, markdown=MEMO)
    return org


# ------------------------------------------------------------------------ download


def test_download_my_data_holds_attempts_answers_mastery_memos_and_certificates(client, eve):
    client.force_login(eve.engineer)
    page = client.get("/accounts/data/")
    assert page.status_code == 200 and "Download my data" in page.content.decode()
    got = client.get("/accounts/data/download/")
    assert got.status_code == 200 and got["Content-Type"].startswith("application/json")
    assert got["Content-Disposition"].startswith('attachment; filename="burn-in-data-eve-')
    data = json.loads(got.content)
    assert data["format"] == "burn-in-personal-data/1"
    assert data["account"]["email"] == "eve@acme.example"
    assert data["account"]["email_addresses"][0]["verified"] is True
    assert data["organisations"] == [
        {
            "organisation": "Acme Corp",
            "role": "member",
            "since": data["organisations"][0]["since"],
            "teams": ["SRE"],
        }
    ]
    [attempt] = data["attempts"]
    [question] = attempt["questions"]
    [answer] = question["answers"]
    assert answer["correct"] is True and answer["score"] == 1.0 and answer["answer"]
    assert "params" not in question and "seed" not in question  # no answer key
    assert {s["skill"] for s in data["mastery"]["skills"]}
    assert data["mastery"]["events"]
    assert data["memos"][0]["versions"][0]["markdown"] == MEMO
    [cert] = data["certificates"]
    assert cert["id"] == eve.certificate.pk and cert["status"] == "valid"
    assert "no-store" in got["Cache-Control"]


def test_the_download_withholds_grades_the_pages_withhold(client, eve):
    """An exam whose results wait for its close: the answer is in the file, whether it
    was right is not, as on the attempt's page."""
    exam = QuizFactory(
        mode=Quiz.Mode.EXAM,
        feedback=Quiz.Feedback.AFTER_CLOSE,
        closes_at=timezone.now() + timedelta(days=3),
        slots=[["weights-memory"]],
    )
    practise(eve.engineer, exam)
    client.force_login(eve.engineer)
    data = json.loads(client.get("/accounts/data/download/").content)
    held = next(a for a in data["attempts"] if a["mode"] == "exam")
    assert held["grades_shown"] is False and held["score"] is None
    [answer] = held["questions"][0]["answers"]
    assert answer["answer"] and not {"correct", "score", "feedback"} & set(answer)


def test_the_download_costs_the_same_queries_for_one_attempt_or_five(client, eve):
    client.force_login(eve.engineer)

    def queries() -> int:
        with CaptureQueriesContext(connection) as ctx:
            assert client.get("/accounts/data/download/").status_code == 200
        return len(ctx)

    one = queries()
    for _ in range(4):
        practise(eve.engineer)
    assert queries() == one


def test_each_question_lists_its_own_answers_in_order_in_its_own_attempt(client, eve):
    """The answers come as rows grouped in Python (privacy.export): each lands under its
    question and attempt, in the order given, with the questions in the attempt's order."""
    quiz = QuizFactory(slots=[["weights-memory"], ["gb-gib"]])
    attempt, _ = attempt_start(quiz=quiz, learner=eve.engineer)
    attempt = Attempt.objects.select_related("quiz").get(pk=attempt.pk)
    first, second = attempt.questions.order_by("order")
    sent = [(second, "1 GB"), (first, "2 GB"), (second, "3 GB")]
    for n, (question, text) in enumerate(sent):
        response_submit(
            attempt=attempt, question=question, part=question.answers[0]["name"],
            text=text, idempotency_key=f"k{n}",
        )  # fmt: skip
    client.force_login(eve.engineer)
    data = json.loads(client.get("/accounts/data/download/").content)
    [mine] = [a for a in data["attempts"] if len(a["questions"]) == 2]
    assert [q["template"] for q in mine["questions"]] == ["weights-memory", "gb-gib"]
    assert [a["answer"] for a in mine["questions"][0]["answers"]] == ["2 GB"]
    assert [a["answer"] for a in mine["questions"][1]["answers"]] == ["1 GB", "3 GB"]
    [other] = [a for a in data["attempts"] if len(a["questions"]) == 1]  # eve's fixture's
    assert len(other["questions"][0]["answers"]) == 1


# -------------------------------------------------------------------------- delete


def test_a_wrong_password_deletes_nothing(client, eve):
    client.force_login(eve.engineer)
    refused = client.post("/accounts/delete/", {"password": "not it"})
    assert refused.status_code == 200 and "That is not your password" in refused.content.decode()
    eve.engineer.refresh_from_db()
    assert eve.engineer.username == "eve" and eve.engineer.is_active
    assert not Erasure.objects.exists()


def test_deleting_my_account_anonymises_it_in_place(client, eve):
    engineer = eve.engineer
    api = api_as(engineer)
    answers = Response.objects.filter(attempt__learner=engineer).count()
    assert answers == 1
    client.force_login(engineer)
    done = client.post("/accounts/delete/", {"password": PASSWORD})
    assert done.status_code == 302 and done["Location"] == "/"
    assert "_auth_user_id" not in client.session  # signed out

    user = User.objects.get(pk=engineer.pk)  # the same row
    assert user.username.startswith("deleted-") and user.username != "eve"
    assert (user.first_name, user.last_name, user.email) == ("", "", "")
    assert not user.has_usable_password() and not user.is_active
    assert not EmailAddress.objects.filter(user=user).exists()
    assert not Token.objects.filter(user=user).exists()
    assert api.get("/api/me/mastery/").status_code == 401
    assert not Membership.objects.filter(user=user).exists()
    assert not TeamMember.objects.filter(user=user).exists()
    # The answers stay, under the anonymous person, for the item statistics.
    assert Response.objects.filter(attempt__learner=user).count() == answers
    # The memo's text is gone; the certificate is revoked history naming no one.
    version = MemoVersion.objects.get(memo__capstone__learner=user)
    assert (version.markdown, version.html, version.review) == ("", "", None)
    cert = Certificate.objects.get(pk=eve.certificate.pk)
    assert cert.status == "revoked" and cert.revoke_reason == "The holder deleted their account."
    assert cert.evidence == {}
    public = APIClient().get(f"/api/certificates/{cert.pk}/verify/").json()
    assert public["status"] == "revoked" and public["holder"] == "a deleted account"
    page = client.get(f"/certificates/{cert.pk}/").content.decode()
    assert "a deleted account" in page and "Eve" not in page and user.username not in page
    # No way back in by the old name.
    signed_in = client.post("/accounts/login/", {"login": "eve", "password": PASSWORD})
    assert signed_in.status_code == 200 and "_auth_user_id" not in client.session
    event = AuditEvent.objects.get(action=AuditEvent.Action.ACCOUNT_ANONYMISE)
    assert event.actor_label == user.username and event.detail["by"] == "self"
    assert event.detail["certificates_revoked"] == 1 and event.detail["tokens_revoked"] == 1
    assert Erasure.objects.get(user=user).by_staff is False


def test_erasing_twice_changes_nothing_more(eve):
    first = account_anonymise(actor=eve.engineer, user=eve.engineer)
    name = User.objects.get(pk=eve.engineer.pk).username
    assert account_anonymise(actor=eve.engineer, user=eve.engineer) == first
    assert User.objects.get(pk=eve.engineer.pk).username == name
    assert AuditEvent.objects.filter(action="account.anonymise").count() == 1


def test_a_single_sign_on_account_confirms_by_signing_in_again(client, provider):
    register(provider)
    assert sign_on(client, provider, "alice").finish.status_code == 302
    alice = User.objects.get(email="alice@acme.example")
    # Signed in by the provider just now: the page offers the button.
    page = client.get("/accounts/delete/").content.decode()
    assert "Your password" not in page and "Delete my account</button>" in page
    # Later in the same session (the sign-on's record past the window), a POST is refused.
    session = client.session
    records = session["account_authentication_methods"]
    for record in records:
        record["at"] -= 3600
    session["account_authentication_methods"] = records
    session.save()
    refused = client.post("/accounts/delete/")
    assert refused.status_code == 302 and refused["Location"] == "/accounts/delete/"
    assert "Sign in with Acme Corp" in client.get("/accounts/delete/").content.decode()
    assert User.objects.get(pk=alice.pk).username == "alice"
    # Signing in through the provider again confirms it.
    sign_on(client, provider, "alice", next_url="/accounts/delete/")
    assert client.post("/accounts/delete/").status_code == 302
    alice = User.objects.get(pk=alice.pk)
    assert alice.username.startswith("deleted-") and alice.email == ""
    assert not SocialAccount.objects.filter(user=alice).exists()
    # A new sign-on with the same address makes a fresh account, not the old one back.
    sign_on(client, provider, "alice")
    fresh = User.objects.get(email="alice@acme.example")
    assert fresh.pk != alice.pk


def test_staff_export_and_delete_in_the_admin(client, eve):
    staff = UserFactory(username="root", is_staff=True, is_superuser=True)
    client.force_login(staff)
    url = "/admin/auth/user/"
    picked = {"_selected_action": [eve.engineer.pk]}
    exported = client.post(url, {"action": "export_data", **picked})
    assert exported["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(exported.content))
    assert archive.namelist() == ["eve.json"]
    assert json.loads(archive.read("eve.json"))["memos"][0]["versions"][0]["markdown"] == MEMO
    assert AuditEvent.objects.filter(action="account.export", actor=staff).count() == 1

    asked = client.post(url, {"action": "anonymise", **picked})
    assert asked.status_code == 200 and "Yes, delete these accounts" in asked.content.decode()
    assert User.objects.get(pk=eve.engineer.pk).username == "eve"  # only asked
    done = client.post(url, {"action": "anonymise", "confirmed": "yes", **picked})
    assert done.status_code == 302
    gone = User.objects.get(pk=eve.engineer.pk)
    assert gone.username.startswith("deleted-")
    event = AuditEvent.objects.get(action="account.anonymise")
    assert event.actor == staff and event.detail["by"] == "staff"
    assert Erasure.objects.get(user=gone).by_staff is True


def test_a_review_still_queued_is_marked_failed_with_the_text_gone(eve):
    version = MemoVersion.objects.get(memo__capstone__learner=eve.engineer)
    MemoVersion.objects.filter(pk=version.pk).update(
        review_status=MemoVersion.ReviewStatus.QUEUED, review=None
    )
    account_anonymise(actor=eve.engineer, user=eve.engineer)
    version.refresh_from_db()
    assert version.review_status == MemoVersion.ReviewStatus.FAILED and version.markdown == ""


def test_the_admin_lists_deleted_accounts_apart(client, eve):
    staff = UserFactory(username="root", is_staff=True, is_superuser=True)
    account_anonymise(actor=staff, user=eve.engineer)
    client.force_login(staff)
    deleted = client.get("/admin/auth/user/?erasure__isempty=0")
    assert deleted.status_code == 200
    assert list(deleted.context["cl"].result_list) == [User.objects.get(pk=eve.engineer.pk)]
    assert client.get("/admin/accounts/erasure/").status_code == 200


def test_an_lms_learner_s_platform_record_loses_their_name_and_is_unlinked(lms_context, eve):
    from lti_tool.models import LtiUser

    record = LtiUser.objects.create(
        registration=lms_context.deployment.registration,
        sub="lms-eve",
        name="Eve Engineer",
        given_name="Eve",
        family_name="Engineer",
        email="eve@lms.example",
        auth_user=eve.engineer,
    )
    account_anonymise(actor=eve.engineer, user=eve.engineer)
    record.refresh_from_db()
    assert (record.name, record.given_name, record.family_name, record.email) == ("", "", "", "")
    assert record.auth_user_id is None and record.sub == "lms-eve"


def test_the_download_holds_invitations_to_the_person_not_those_to_others(client, eve):
    from invitations.models import Invitation

    now = timezone.now()

    def invite(email, **extra):
        return Invitation.objects.create(
            email=email, organization=eve.organization, target_key=f"org:{email}",
            token_hash=email.ljust(64, "0")[:64], expires_at=now + timedelta(days=7),
            invited_by=eve.manager, **extra,
        )  # fmt: skip

    invite("eve@acme.example", status="accepted", accepted_by=eve.engineer, closed_at=now)
    invite("someone@else.example")
    client.force_login(eve.engineer)
    data = json.loads(client.get("/accounts/data/download/").content)
    [row] = data["invitations"]
    assert row["email"] == "eve@acme.example" and row["accepted"] is True
    assert row["to"] == "the organisation Acme Corp" and row["invited_by"] == "mona"
    assert row["state"] == "accepted"
