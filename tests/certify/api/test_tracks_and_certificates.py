"""Tracks, your progress on one, your certificates, the public verification and the
revocation. Every response is checked against the project's schema (assert_documented)."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from certify.models import Certificate
from tests.certify.api.conftest import FLEET, certify, exam_taken, master
from tests.openapi import assert_documented

pytestmark = pytest.mark.django_db


def client_for(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def get(client, path: str, template: str | None = None):
    response = client.get(path)
    body = assert_documented(response, "get", template or path)
    return response.status_code, body


def post(client, path: str, data, template: str):
    response = client.post(path, data, format="json")
    return response.status_code, assert_documented(response, "post", template)


# ---------------------------------------------------------------------------- tracks


def test_tracks_list_every_track_with_lessons_and_exam(loaded_tracks, alice):
    status, body = get(client_for(alice), "/api/tracks/")
    assert status == 200
    assert body["count"] == len(loaded_tracks) == 3
    fleet = next(t for t in body["results"] if t["slug"] == FLEET)
    track = loaded_tracks[FLEET]
    assert fleet["rotation"] == track.rotation
    assert fleet["requires_memo"] is False and fleet["validity_days"] == 365
    assert {lesson["slug"] for lesson in fleet["lessons"]} == set(
        track.lessons.values_list("slug", flat=True)
    )
    assert fleet["exam"] == {
        "quiz": track.exam_id,
        "time_limit_minutes": 90,
        "pass_mark": 0.8,
        "cooldown_days": 7,
        "questions": track.exam.slots.count(),
    }


@pytest.mark.parametrize(
    "path",
    [
        "/api/tracks/",
        f"/api/tracks/{FLEET}/progress/",
        "/api/certificates/",
        "/api/certificates/abc/revoke/",
        "/api/teams/",
        "/api/teams/1/readiness/",
        f"/api/certifications/check/?user=alice&track={FLEET}",
    ],
)
def test_signed_in_operations_answer_401_without_a_token(loaded_tracks, path):
    client = APIClient()
    response = client.post(path, {}) if "revoke" in path else client.get(path)
    assert response.status_code == 401
    assert "WWW-Authenticate" in response


def test_progress_says_what_is_missing_then_certified(fleet, alice):
    client = client_for(alice)
    path = f"/api/tracks/{FLEET}/progress/"
    status, body = get(client, path)
    assert status == 200
    assert (body["certified"], body["status"], body["until"]) == (False, "in_progress", None)
    assert body["certificate"] is None
    assert {r["key"]: r["met"] for r in body["requirements"]} == {
        "mastery": False,
        "exam": False,
    }
    assert body["skills"] and not any(s["mastered"] for s in body["skills"])
    assert body["next_step"].startswith("Practise")

    certificate = certify(alice, fleet)
    _, body = get(client, path)
    assert body["certified"] is True and body["status"] == "certified"
    assert body["certificate"]["id"] == certificate.pk
    assert body["certificate"]["status"] == "valid"
    assert body["until"] == body["certificate"]["expires_at"]
    met = {r["key"]: r["met"] for r in body["requirements"]}
    assert met == {"mastery": True, "exam": True}  # its own pass, while it is valid


def test_progress_of_an_unknown_track_is_404(loaded_tracks, alice):
    status, _ = get(client_for(alice), "/api/tracks/no-such-track/progress/")
    assert status == 404


# ----------------------------------------------------------------------- certificates


def test_certificates_are_the_holders_own_with_evidence(fleet, alice, manager):
    certificate = certify(alice, fleet)
    status, body = get(client_for(alice), "/api/certificates/")
    assert status == 200
    [mine] = body["results"]
    assert mine["id"] == certificate.pk and mine["status"] == "valid"
    assert mine["holder"] == {"username": "alice", "name": "Alice Liddell"}
    assert mine["evidence"]["exam"]["score"] == 0.9
    assert mine["revoked_at"] is None and mine["revoked_by"] is None
    _, body = get(client_for(manager), "/api/certificates/")
    assert body["results"] == []


def test_verify_works_anonymously_and_shows_nothing_private(fleet, alice, manager):
    alice.email = "alice-private@example.com"
    alice.save()
    certificate = certify(alice, fleet)
    path = f"/api/certificates/{certificate.pk}/verify/"
    template = "/api/certificates/{id}/verify/"
    status, body = get(APIClient(), path, template)
    assert status == 200
    assert body == {
        "id": certificate.pk,
        "status": "valid",
        "track": {"slug": FLEET, "title": fleet.title},
        "holder": "Alice Liddell",
        "issued_at": body["issued_at"],
        "expires_at": body["expires_at"],
        "revoked_at": None,
    }
    post(
        client_for(manager),
        f"/api/certificates/{certificate.pk}/revoke/",
        {"reason": "Secret-incident-4711"},
        "/api/certificates/{id}/revoke/",
    )
    response = APIClient().get(path, HTTP_AUTHORIZATION="Token stale-or-wrong")
    body = assert_documented(response, "get", template)
    assert response.status_code == 200 and body["status"] == "revoked" and body["revoked_at"]
    text = response.content.decode()
    for private in ("evidence", "score", "alice-private", "email", "Secret-incident", "reason"):
        assert private not in text, private


def test_verify_of_an_unknown_id_is_404(loaded_tracks):
    for cid in ("A" * 22, "nope"):
        status, _ = get(APIClient(), f"/api/certificates/{cid}/verify/")
        assert status == 404


def test_verify_reads_expired_past_the_date_before_the_beat(fleet, alice):
    certificate = certify(alice, fleet)
    Certificate.objects.filter(pk=certificate.pk).update(
        issued_at=timezone.now() - timezone.timedelta(days=400),
        expires_at=timezone.now() - timezone.timedelta(days=35),
    )
    _, body = get(APIClient(), f"/api/certificates/{certificate.pk}/verify/")
    assert body["status"] == "expired"


# -------------------------------------------------------------------------- revocation

REVOKE = "/api/certificates/{id}/revoke/"


def revoke(user, certificate, reason="Failed the game day."):
    return post(
        client_for(user), f"/api/certificates/{certificate.pk}/revoke/", {"reason": reason}, REVOKE
    )


def test_a_manager_revokes_with_a_reason(fleet, alice, manager):
    certificate = certify(alice, fleet)
    status, body = revoke(manager, certificate)
    assert status == 200
    assert body["status"] == "revoked" and body["revoked_by"] == "manager"
    assert body["revoke_reason"] == "Failed the game day." and body["revoked_at"]
    certificate.refresh_from_db()
    assert certificate.status == Certificate.Status.REVOKED


def test_revoking_twice_is_409(fleet, alice, manager):
    certificate = certify(alice, fleet)
    assert revoke(manager, certificate)[0] == 200
    status, body = revoke(manager, certificate, "again")
    assert status == 409 and body["errors"][0]["code"] == "conflict"
    certificate.refresh_from_db()
    assert certificate.revoke_reason == "Failed the game day."


def test_the_holder_may_not_revoke_403_a_stranger_gets_404(fleet, alice, stranger):
    certificate = certify(alice, fleet)
    assert revoke(alice, certificate)[0] == 403
    assert revoke(alice, certificate, "")[0] == 403  # the rule before the body
    assert revoke(stranger, certificate)[0] == 404
    certificate.refresh_from_db()
    assert certificate.status == Certificate.Status.VALID


def test_an_empty_reason_is_400_naming_it(fleet, alice, manager):
    certificate = certify(alice, fleet)
    for reason in ("", "   "):
        status, body = revoke(manager, certificate, reason)
        assert status == 400 and body["errors"][0]["attr"] == "reason"
    status, body = post(
        client_for(manager), f"/api/certificates/{certificate.pk}/revoke/", {}, REVOKE
    )
    assert status == 400 and body["errors"][0]["attr"] == "reason"
    certificate.refresh_from_db()
    assert certificate.status == Certificate.Status.VALID


def test_progress_after_a_failed_exam_names_the_score(fleet, alice):
    master(alice, fleet)
    exam_taken(alice, fleet, 0.5)
    _, body = get(client_for(alice), f"/api/tracks/{FLEET}/progress/")
    exam = next(r for r in body["requirements"] if r["key"] == "exam")
    assert not exam["met"] and "50%" in exam["detail"]
    assert json.dumps(body)  # plain JSON
