"""Hostile values in the invitation forms and links: never a 5xx, never a row or a
mail. The values are the bad-input suite's (tests/badinput/test_forms.py)."""

from __future__ import annotations

import pytest
from django.core import mail
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from invitations.models import Invitation
from tests.badinput.test_forms import RAW, TEXTS, encoded

pytestmark = pytest.mark.django_db
FORM = "application/x-www-form-urlencoded"


def test_hostile_addresses_are_refused_as_bad_rows(manager, team):
    client = Client()
    client.force_login(manager)
    url = f"/teams/{team.pk}/invitations/"
    wrong = []
    for name, value in [*TEXTS.items(), *RAW.items()]:
        response = client.generic("POST", url, encoded({}, "addresses", value), content_type=FORM)
        if response.status_code != 400:
            wrong.append(f"{name}: {response.status_code}")
    assert wrong == []
    assert not Invitation.objects.exists() and mail.outbox == []


def test_hostile_csv_files_are_refused(manager, team):
    client = Client()
    client.force_login(manager)
    url = f"/teams/{team.pk}/invitations/"
    files = {
        "formula": b'email\n=HYPERLINK("http://x")\n',
        "a quote left open": b'email\n"ada@example.com\n',
        "300 KB": b"a@x.org\n" * 40_000,
        "NUL": b"a@x.org\x00\n",
        "empty": b"",
        "only a header": b"email\n",
    }
    for name, data in files.items():
        upload = SimpleUploadedFile("x.csv", data, content_type="text/csv")
        response = client.post(url, {"csv_file": upload})
        assert response.status_code == 400, name
    assert not Invitation.objects.exists() and mail.outbox == []


def test_hostile_tokens_are_404s(db):
    client = Client()
    for token in ("x" * 5000, "%ff%fe", "..%2F..", "a%20b", "'; DROP TABLE x; --"):
        for method in ("get", "post"):
            response = getattr(client, method)(f"/invitations/accept/{token}/")
            assert response.status_code in (400, 404), (token, method, response.status_code)
