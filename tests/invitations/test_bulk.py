"""Bulk invitations: pasted addresses or a CSV file, each row's result shown, bad rows
named, and nothing done (no row, no mail, no audit event) when any row is bad."""

from __future__ import annotations

import pytest
from django.core import mail
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from api_common.service_errors import NotPermitted
from audit.models import AuditEvent
from invitations.models import Invitation
from invitations.places import Place
from invitations.rows import MAX_ROWS, Unreadable, rows_from_csv, rows_from_text
from invitations.services import invitations_send
from tests.access.writes import row_counts
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _csv(text: str, name: str = "people.csv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode(), content_type="text/csv")


def test_a_csv_with_bad_rows_names_them_and_sends_nothing(manager, team):
    upload = _csv(
        "name,email\nAda,ada@example.com\nBob,bob@\nCy,cy@example.com\nDee,\nEve,eve at example\n"
    )
    client = _client(manager)
    before = row_counts()
    response = client.post(f"/teams/{team.pk}/invitations/", {"csv_file": upload})
    assert response.status_code == 400
    page = response.content.decode()
    assert "Nothing was sent: 3 rows are not an address (CSV line 3, CSV line 5, CSV line 6)" in (
        page
    )
    assert "&#x27;bob@&#x27; is not an email address" in page
    assert "no address" in page and "&#x27;eve at example&#x27; is not an email address" in page
    # Each good row is listed too, as not sent.
    assert page.count("not sent") == 2
    assert row_counts() == before and mail.outbox == []
    assert not AuditEvent.objects.exists()


def test_a_good_csv_invites_every_row_and_shows_each_result(manager, team):
    already = UserFactory(username="ada", email="ada@example.com")
    team.members.create(user=already)
    upload = _csv("email\nada@example.com\nbob@example.com\nBOB@example.com\ncy@example.com\n")
    response = _client(manager).post(f"/teams/{team.pk}/invitations/", {"csv_file": upload})
    assert response.status_code == 200
    page = response.content.decode()
    assert "already there: nothing sent" in page and "listed above" in page
    assert page.count("<td>invited</td>") == 2
    assert sorted(Invitation.objects.values_list("email", flat=True)) == [
        "bob@example.com",
        "cy@example.com",
    ]
    assert sorted(m.to[0] for m in mail.outbox) == ["bob@example.com", "cy@example.com"]
    assert AuditEvent.objects.filter(action="invitation.send").count() == 2


def test_pasted_addresses_and_inviting_again(manager, organization):
    client = _client(manager)
    url = f"/organisations/{organization.slug}/invitations/"
    client.post(url, {"addresses": "a@x.org, b@x.org\nc@x.org"})
    assert Invitation.objects.count() == 3
    page = client.post(url, {"addresses": "a@x.org"}).content.decode()
    assert "invited again: the earlier link no longer works" in page
    assert Invitation.objects.count() == 3 and Invitation.objects.get(email="a@x.org").sends == 2


def test_an_empty_form_and_an_unreadable_file_are_400s(manager, team):
    client = _client(manager)
    url = f"/teams/{team.pk}/invitations/"
    assert client.post(url, {"addresses": "  "}).status_code == 400
    binary = SimpleUploadedFile("x.csv", b"\xff\xfe\x00bad", content_type="text/csv")
    response = client.post(url, {"csv_file": binary})
    assert response.status_code == 400 and b"not UTF-8" in response.content
    many = " ".join(f"u{i}@x.org" for i in range(201))
    response = client.post(url, {"addresses": many})
    assert response.status_code == 400 and b"At most 200 addresses" in response.content
    assert not Invitation.objects.exists()


def test_rows_are_read_and_judged_without_the_database():
    rows = rows_from_text("a@x.org; B@X.org\n\n  not-an-address  a@x.org")
    assert [(r.where, r.email, r.bad, r.repeat) for r in rows] == [
        ("line 1", "a@x.org", False, False),
        ("line 1", "b@x.org", False, False),
        ("line 3", None, True, False),
        ("line 3", "a@x.org", False, True),
    ]
    assert [r.email for r in rows_from_csv(b"\xef\xbb\xbfz@x.org,Zed\n")] == ["z@x.org"]
    with pytest.raises(Unreadable):
        rows_from_text("")
    with pytest.raises(Unreadable):
        rows_from_text("\n".join(f"u{i}@x.org" for i in range(MAX_ROWS + 1)))


def test_the_service_holds_callers_to_the_rule(team, course):
    stranger = UserFactory(username="stranger")
    with pytest.raises(NotPermitted):
        invitations_send(
            actor=stranger,
            place=Place(organization=team.organization, team=team),
            rows=rows_from_text("a@x.org"),
            site_url="http://testserver/",
        )
    assert not Invitation.objects.exists()


def test_a_scoped_lms_instructor_is_told_to_ask_an_administrator(course, lms_context):
    from tests.factories import CourseRoleFactory

    scoped = CourseRoleFactory(user__username="lmsteacher", course=course, lti_context=lms_context)
    response = _client(scoped.user).get(f"/teach/courses/{course.slug}/invitations/")
    assert response.status_code == 403


def test_the_invitations_page_lists_in_a_fixed_number_of_queries(manager, team):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = _client(manager)
    url = f"/teams/{team.pk}/invitations/"
    client.post(url, {"addresses": "a@x.org"})
    with CaptureQueriesContext(connection) as one:
        client.get(url)
    client.post(url, {"addresses": " ".join(f"p{i}@x.org" for i in range(20))})
    with CaptureQueriesContext(connection) as many:
        client.get(url)
    assert len(many) == len(one)


@pytest.mark.django_db
def test_sending_is_throttled_per_user(manager, team, settings):
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "invitation_send": "2/h"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    client = _client(manager)
    url = f"/teams/{team.pk}/invitations/"
    assert client.post(url, {"addresses": "a@x.org"}).status_code == 200
    invitation = Invitation.objects.get()
    assert client.post(f"/invitations/{invitation.pk}/resend/").status_code == 302
    refused = client.post(url, {"addresses": "b@x.org"})
    assert refused.status_code == 429 and refused.has_header("Retry-After")
    assert Invitation.objects.count() == 1 and len(mail.outbox) == 2
    assert client.get(url).status_code == 200  # reading is not counted
