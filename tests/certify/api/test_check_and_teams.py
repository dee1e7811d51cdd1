"""The on-call check and the team readiness: who may ask about whom (others 404), the
answer for certified, expired, revoked and failed people, and a readiness matrix whose
query count does not grow with the team."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from certify.models import Certificate
from certify.services.certificates import certificate_revoke
from orgs.services import team_member_add
from tests.certify.api.conftest import FLEET, certify, exam_taken, master
from tests.factories import UserFactory
from tests.openapi import assert_documented

pytestmark = pytest.mark.django_db

CHECK = "/api/certifications/check/"


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def check(asker, query: str):
    response = client_for(asker).get(f"{CHECK}?{query}")
    return response.status_code, assert_documented(response, "get", CHECK)


# ------------------------------------------------------------------------------ check


def test_check_a_certified_person_gives_until(fleet, alice, manager):
    certificate = certify(alice, fleet)
    for asker in (alice, manager):
        status, body = check(asker, f"user=alice&track={FLEET}")
        assert status == 200
        assert body["certified"] is True and body["status"] == "certified"
        assert body["track"] == FLEET
        assert body["until"] is not None
        assert body["until"].startswith(certificate.expires_at.date().isoformat())
        assert body["reason"].startswith("Certified until")


def test_check_not_certified_says_why(fleet, alice):
    status, body = check(alice, f"user=alice&track={FLEET}")
    assert status == 200
    assert (body["certified"], body["until"], body["status"]) == (False, None, "in_progress")
    assert "Not certified" in body["reason"] and "Missing" in body["reason"]


def test_check_after_a_failed_exam_names_it(fleet, alice):
    master(alice, fleet)
    exam_taken(alice, fleet, 0.4)
    _, body = check(alice, f"user=alice&track={FLEET}")
    assert body["certified"] is False and body["until"] is None
    assert "not passed" in body["reason"] and "40%" in body["reason"]


def test_check_expired(fleet, alice, manager):
    certificate = certify(alice, fleet)
    Certificate.objects.filter(pk=certificate.pk).update(
        issued_at=timezone.now() - timezone.timedelta(days=400),
        expires_at=timezone.now() - timezone.timedelta(days=35),
    )
    _, body = check(manager, f"user=alice&track={FLEET}")
    assert (body["certified"], body["status"], body["until"]) == (False, "expired", None)
    assert "expired on" in body["reason"]


def test_check_revoked_gives_the_reason(fleet, alice, manager):
    certificate = certify(alice, fleet)
    certificate_revoke(actor=manager, certificate=certificate, reason="Pager ignored twice")
    _, body = check(manager, f"user=alice&track={FLEET}")
    assert (body["certified"], body["status"], body["until"]) == (False, "revoked", None)
    assert "revoked" in body["reason"] and "Pager ignored twice" in body["reason"]


def test_check_about_a_stranger_or_unknown_is_404(fleet, alice, stranger, other_team):
    assert check(stranger, f"user=alice&track={FLEET}")[0] == 404
    assert check(alice, f"user=manager&track={FLEET}")[0] == 404  # a member is no manager
    assert check(alice, f"user=nobody&track={FLEET}")[0] == 404
    assert check(alice, "user=alice&track=no-such-track")[0] == 404
    boss = other_team.organization.memberships.get(role="manager").user
    assert check(boss, f"user=alice&track={FLEET}")[0] == 404  # another organisation


def _check_queries(asker, username: str) -> tuple[int, list[str]]:
    """(status, the SQL the check ran) with the asked-about name replaced by a mark, so
    the paths of two names compare as text."""
    with CaptureQueriesContext(connection) as ctx:
        status, _ = check(asker, f"user={username}&track={FLEET}")
    named = f"\"username\" = '{username}'"
    return status, [q["sql"].replace(named, '"username" = <name>') for q in ctx.captured_queries]


def test_check_an_unseen_person_and_an_unknown_name_take_one_same_query(
    fleet, alice, stranger, other_team, manager
):
    """Issue 33 item 7: the answer was the same 404, but a person who exists cost a
    second query (do they belong to the asker's organisations?), 6.7 ms against 5.5 ms
    for a name nobody has: the time told which usernames exist. Now one query finds the
    person only if the asker is them, staff or their manager; an unseen person and an
    unknown name run the same one statement, and neither reads the track."""
    boss = other_team.organization.memberships.get(role="manager").user
    for asker, unseen in ((stranger, "alice"), (alice, "manager"), (boss, "alice")):
        status, seen_path = _check_queries(asker, unseen)
        unknown_status, unknown_path = _check_queries(asker, "nobody-at-all")
        assert (status, unknown_status) == (404, 404)
        assert seen_path == unknown_path, asker.username
        assert len(seen_path) == 1, seen_path
    # The person is still found by one query when they may be asked about.
    for asker in (alice, manager):
        status, path = _check_queries(asker, "alice")
        assert status == 200
        assert sum('"auth_user"' in sql for sql in path) == 1, path


def test_check_queries_do_not_grow_with_the_persons_history(fleet, alice, manager):
    from datetime import timedelta

    from orgs.services import member_add, organization_create

    def asked() -> tuple[list[int], list[dict]]:
        counts, bodies = [], []
        for asker in (alice, manager):  # the person and their manager (another path)
            client = client_for(asker)
            with CaptureQueriesContext(connection) as ctx:
                response = client.get(f"{CHECK}?user=alice&track={FLEET}")
            assert response.status_code == 200
            counts.append(len(ctx.captured_queries))
            bodies.append(response.json())
        return counts, bodies

    first = certify(alice, fleet)  # one certificate, one exam
    small, bodies = asked()
    assert [b["certified"] for b in bodies] == [True, True]
    now = timezone.now()
    # History: the first certificate ended, four older ones (expired, one revoked), a
    # newer valid one, twenty more exams and three more organisations in common.
    Certificate.objects.filter(pk=first.pk).update(status=Certificate.Status.EXPIRED)
    for i in range(4):
        issued = now - timedelta(days=800 + 400 * i)
        Certificate.objects.create(
            holder=alice, track=fleet, evidence={}, issued_at=issued,
            expires_at=issued + timedelta(days=365),
            status=Certificate.Status.REVOKED if i == 0 else Certificate.Status.EXPIRED,
            revoked_at=issued + timedelta(days=30) if i == 0 else None,
            revoke_reason="Pager ignored" if i == 0 else "",
        )  # fmt: skip
    newest = Certificate.objects.create(
        holder=alice, track=fleet, evidence={}, expires_at=now + timedelta(days=500)
    )
    for i in range(20):
        exam_taken(alice, fleet, 0.3 + i / 40, when=now - timedelta(days=i + 1))
    for i in range(3):
        organization = organization_create(slug=f"acme-{i}", name=f"Acme {i}")
        member_add(organization=organization, user=alice)
        member_add(organization=organization, user=manager, role="manager")
    assert alice.certificates.count() == 6
    large, bodies = asked()
    assert large == small
    until = newest.expires_at.date().isoformat()
    assert [(b["certified"], b["until"][:10]) for b in bodies] == [(True, until)] * 2


@pytest.mark.parametrize(
    ("query", "attr", "code"),
    [
        (f"track={FLEET}", "user", "required"),
        ("user=alice", "track", "required"),
        (f"user=&track={FLEET}", "user", "blank"),
        ("user=alice&track=", "track", "blank"),
    ],
)
def test_check_without_a_parameter_is_400_naming_it(fleet, alice, query, attr, code):
    status, body = check(alice, query)
    assert status == 400
    assert [(e["attr"], e["code"]) for e in body["errors"]] == [(attr, code)]


# ------------------------------------------------------------------------------ teams


def test_teams_lists_the_managers_teams_only(team, manager, alice, other_team):
    response = client_for(manager).get("/api/teams/")
    body = assert_documented(response, "get", "/api/teams/")
    assert [t["id"] for t in body["results"]] == [team.pk]
    assert body["results"][0]["organization"] == {"slug": "acme", "name": "Acme"}
    assert body["results"][0]["tracks"] == [{"slug": FLEET, "title": team.tracks.get().title}]
    response = client_for(alice).get("/api/teams/")
    assert assert_documented(response, "get", "/api/teams/")["results"] == []


def readiness(user, team_id: int):
    response = client_for(user).get(f"/api/teams/{team_id}/readiness/")
    return response.status_code, assert_documented(response, "get", "/api/teams/{id}/readiness/")


def test_readiness_of_a_team(team, fleet, manager, alice):
    bob = UserFactory(username="bob")
    team_member_add(team=team, user=bob)
    certificate = certify(alice, fleet)
    status, body = readiness(manager, team.pk)
    assert status == 200
    assert body["team"] == {
        "id": team.pk,
        "name": "SRE",
        "organization": {"slug": "acme", "name": "Acme"},
    }
    assert body["tracks"] == [{"slug": FLEET, "title": fleet.title}]
    rows = {row["user"]["username"]: row for row in body["rows"]}
    assert list(rows) == ["alice", "bob"]
    assert rows["alice"]["user"]["name"] == "Alice Liddell"
    assert rows["bob"]["user"]["name"] == "bob"
    [a] = rows["alice"]["cells"]
    # The pass was spent on the certificate: a renewal needs a new one.
    assert (a["certified"], a["certificate_id"], a["missing"]) == (True, certificate.pk, [])
    assert a["until"] is not None
    [b] = rows["bob"]["cells"]
    assert (b["certified"], b["certificate_id"], b["until"]) == (False, None, None)
    assert b["missing"] == ["mastery", "exam"]


def test_readiness_without_team_tracks_has_every_track(team, loaded_tracks, manager):
    team.tracks.clear()
    _, body = readiness(manager, team.pk)
    assert len(body["tracks"]) == len(loaded_tracks) == 3
    assert len(body["rows"][0]["cells"]) == 3


def test_readiness_of_another_org_or_by_a_non_manager_is_404(team, other_team, manager, alice):
    assert readiness(manager, other_team.pk)[0] == 404
    assert readiness(alice, team.pk)[0] == 404
    assert readiness(manager, 999999)[0] == 404


def test_readiness_queries_do_not_grow_with_members(team, fleet, manager):
    def count() -> int:
        client = client_for(manager)
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(f"/api/teams/{team.pk}/readiness/").status_code == 200
        return len(ctx.captured_queries)

    team_member_add(team=team, user=UserFactory(username="m2"))  # alice + 1: two
    small = count()
    for i in range(4):
        member = UserFactory(username=f"m{i + 3}")
        team_member_add(team=team, user=member)
        if i == 0:
            certify(member, fleet)
    assert team.members.count() == 6
    assert count() == small


def test_the_readiness_payload_is_drfs_own_output(team, fleet, manager, alice, monkeypatch):
    """The readiness serializers write through PlainRepresentation's plan (nested rows
    and cells included): each call also runs DRF's path, and the two must agree."""
    from rest_framework import serializers

    from api_common.representation import PlainRepresentation

    seen: dict[str, int] = {}
    plain = PlainRepresentation.to_representation

    def both(self, instance):
        ours = plain(self, instance)
        assert ours == serializers.Serializer.to_representation(self, instance)
        seen[type(self).__name__] = seen.get(type(self).__name__, 0) + 1
        return ours

    monkeypatch.setattr(PlainRepresentation, "to_representation", both)
    team_member_add(team=team, user=UserFactory(username="bob"))
    certify(alice, fleet)
    status, body = readiness(manager, team.pk)
    assert status == 200 and len(body["rows"]) == 2
    assert {"ReadinessSerializer", "ReadinessRowSerializer", "PersonSerializer",
            "TeamRefSerializer", "TrackRefSerializer"} <= set(seen)  # fmt: skip
    # The cells are written by hand (test_readiness_writer.py holds them to DRF's output).


def test_a_readiness_request_leaves_no_standings_for_the_collector(team, fleet, manager, alice):
    """What the payload was written from (every member's standings) is freed with the
    response by reference counting (api_common/renderers.py): a worker's collector used
    to walk nine requests' worth of them in its oldest generation."""
    import gc

    from certify.selectors import Cell

    def cells_alive() -> int:
        return sum(type(o) is Cell for o in gc.get_objects())

    team_member_add(team=team, user=UserFactory(username="bob"))
    client = client_for(manager)
    gc.collect()
    gc.disable()
    try:
        before = cells_alive()
        response = client.get(f"/api/teams/{team.pk}/readiness/")
        assert response.status_code == 200 and len(response.json()["rows"]) == 2
        del response
        assert cells_alive() == before
    finally:
        gc.enable()
