"""Certification pages: the learner's tracks and next step, the public verification page
(nothing private on it), the managers' teams, readiness matrix, CSV and revocation, and
the dashboard's certificates."""

import csv
import io
from datetime import timedelta

import pytest
from django.utils import timezone

from assess.models import Attempt, SkillMastery
from certify.models import Certificate, Track
from certify.selectors import track_rules
from certify.services.certificates import certificate_revoke, certificates_issue_due
from certify.services.tracks import tracks_load
from curricula.services import curricula_load
from frontend.views.csv_download import safe_cell as csv_safe
from orgs.models import Membership
from orgs.services import member_add, organization_create, team_create, team_member_add
from tests.factories import UserFactory
from tests.frontend.test_accessibility import audit
from tests.frontend.test_query_budgets import count

pytestmark = pytest.mark.django_db

FLEET = "fleet-bringup-health"  # no memo: mastery and an exam pass certify


@pytest.fixture
def tracks(db):
    curricula_load()
    tracks_load()
    return {t.slug: t for t in Track.objects.select_related("exam")}


@pytest.fixture
def fleet(tracks):
    return tracks[FLEET]


def master(user, track, p=0.99):
    for skill in track_rules([track])[track.pk].skills:
        SkillMastery.objects.update_or_create(
            learner=user, skill=skill, defaults={"p_mastery": p, "responses": 9}
        )


def pass_exam(user, track, score=0.93):
    now = timezone.now()
    Attempt.objects.create(
        quiz=track.exam,
        learner=user,
        number=Attempt.objects.filter(quiz=track.exam, learner=user).count() + 1,
        status=Attempt.Status.FINISHED,
        started_at=now - timedelta(minutes=30),
        finished_at=now - timedelta(minutes=1),
        score=score,
    )


def certify(user, track) -> Certificate:
    master(user, track)
    pass_exam(user, track)
    (certificate,) = certificates_issue_due(user_id=user.pk)
    return certificate


@pytest.fixture
def holder(fleet):
    return UserFactory(username="holder", first_name="Ada", last_name="Byron")


@pytest.fixture
def certificate(holder, fleet):
    return certify(holder, fleet)


@pytest.fixture
def org():
    return organization_create(slug="acme", name="Acme GPU")


@pytest.fixture
def manager(org):
    user = UserFactory(username="boss")
    member_add(organization=org, user=user, role=Membership.Role.MANAGER)
    return user


@pytest.fixture
def team(org, fleet, holder, learner):
    team = team_create(organization=org, slug="fleet", name="Fleet on-call", tracks=[fleet])
    team_member_add(team=team, user=holder)
    team_member_add(team=team, user=learner)
    return team


# ------------------------------------------------------------------------- learner


def test_a_new_learner_sees_each_track_and_the_lesson_to_practise(login, learner, tracks):
    html = login(learner).get("/certify/").content.decode()
    for track in tracks.values():
        assert track.title in html
    assert "In progress" in html and "✗" in html and "Next step" in html
    assert "Practise" in html and "/lessons/" in html
    assert 'action="/quizzes/' not in html  # no exam before the skills


def test_with_the_skills_mastered_the_next_step_starts_the_exam(login, learner, fleet):
    master(learner, fleet)
    html = login(learner).get(f"/certify/{FLEET}/").content.decode()
    assert "✓" in html and "certification exam not taken" in html
    assert f'href="/quizzes/{fleet.exam_id}/"' in html  # its start page, then Start
    assert "Estimate" in html and '<th scope="row">' in html and "99%" in html
    assert "0.99" not in html  # mastery as a percentage on pages


def test_a_certified_learner_sees_until_when_and_their_certificate(login, holder, certificate):
    html = login(holder).get("/certify/").content.decode()
    assert f"Certified until {certificate.expires_at.date().isoformat()}" in html
    assert f"/certificates/{certificate.pk}/" in html


def test_the_certify_pages_need_sign_in_and_an_unknown_track_is_404(client, login, learner):
    assert client.get("/certify/").status_code == 302
    assert login(learner).get("/certify/no-such-track/").status_code == 404


# -------------------------------------------------------------------- verification


def private_strings(certificate) -> list[str]:
    evidence = certificate.evidence
    return [
        *evidence["skills"],  # skill names and their values
        *{f"{p:.2f}" for p in evidence["skills"].values()},
        f"{evidence['exam']['score'] * 100:.0f}%",
        str(evidence["exam"]["score"]),
        certificate.holder.email,
    ]


@pytest.mark.parametrize("state", ["valid", "expired", "revoked"])
def test_the_public_page_says_the_state_and_nothing_private(
    client, certificate, org, manager, holder, state
):
    reason = "Left the serving team; keep-private-7731"
    if state == "expired":
        Certificate.objects.filter(pk=certificate.pk).update(
            issued_at=timezone.now() - timedelta(days=400),
            expires_at=timezone.now() - timedelta(days=35),
        )
    if state == "revoked":
        member_add(organization=org, user=holder)
        certificate_revoke(actor=manager, certificate=certificate, reason=reason)
    certificate.refresh_from_db()
    response = client.get(f"/certificates/{certificate.pk}/")  # anonymous
    html = response.content.decode()
    assert response.status_code == 200
    assert f"This certificate is <strong>{state}</strong>" in html
    assert "Ada Byron" in html and certificate.track.title in html
    assert certificate.issued_at.date().isoformat() in html
    assert certificate.expires_at.date().isoformat() in html
    for secret in [*private_strings(certificate), reason, "keep-private"]:
        assert secret not in html, secret
    assert "See your evidence" not in html


def test_the_holder_gets_a_link_to_their_evidence(login, holder, certificate):
    html = login(holder).get(f"/certificates/{certificate.pk}/").content.decode()
    assert f"/certify/{FLEET}/" in html and "See your evidence" in html


def test_an_unknown_certificate_is_404(client, tracks):
    assert client.get("/certificates/not-a-real-id-000000000/").status_code == 404


# --------------------------------------------------------------------------- teams


def test_a_manager_sees_the_team_matrix(login, manager, team, certificate, learner):
    html = login(manager).get("/teams/").content.decode()
    assert f"/teams/{team.pk}/" in html and "Fleet on-call" in html
    html = login(manager).get(f"/teams/{team.pk}/").content.decode()
    assert f"Certified until {certificate.expires_at.date().isoformat()}" in html
    assert "In progress: 0 of 2 met, missing: skills (0 of" in html and ", exam" in html
    assert f"/certificates/{certificate.pk}/revoke/" in html  # one revoke form
    assert html.count("/revoke/") == 1
    assert '<th scope="col">Fleet bring-up and health</th>' in html
    assert '<a href="/teams/">Teams</a>' in html  # in the menu


def test_another_organisations_manager_and_a_learner_get_404(login, team, learner, holder):
    stranger = UserFactory(username="stranger")
    other = organization_create(slug="other", name="Other Co")
    member_add(organization=other, user=stranger, role=Membership.Role.MANAGER)
    client = login(stranger)
    assert client.get("/teams/").status_code == 200
    assert "Fleet on-call" not in client.get("/teams/").content.decode()
    for path in (f"/teams/{team.pk}/", f"/teams/{team.pk}/readiness.csv"):
        assert client.get(path).status_code == 404
    client = login(learner)
    for path in ("/teams/", f"/teams/{team.pk}/", f"/teams/{team.pk}/readiness.csv"):
        assert client.get(path).status_code == 404
    assert '<a href="/teams/">' not in client.get("/dashboard/").content.decode()


def test_the_csv_lists_every_cell_and_defuses_formulas(login, manager, team, certificate):
    evil = UserFactory(username="evil", first_name='=HYPERLINK("http://x")', last_name="")
    team_member_add(team=team, user=evil)
    response = login(manager).get(f"/teams/{team.pk}/readiness.csv")
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="readiness-acme-fleet.csv"'
    rows = list(csv.reader(io.StringIO(response.getvalue().decode())))
    assert rows[0] == [
        "username", "name", "track", "status", "until", "certificate", "missing requirements"
    ]  # fmt: skip
    by_user = {row[0]: row for row in rows[1:]}
    assert set(by_user) == {"evil", "holder", "learner"}
    until = certificate.expires_at.date().isoformat()
    # A random id may begin with "-" (1 in 64): guarded like any cell.
    cert_id = csv_safe(certificate.pk)
    assert by_user["holder"] == ["holder", "Ada Byron", FLEET, "certified", until, cert_id, ""]
    assert by_user["learner"][3] == "in_progress" and "exam" in by_user["learner"][6]
    assert by_user["evil"][1] == '\'=HYPERLINK("http://x")'


@pytest.mark.parametrize(
    ("value", "safe"),
    [("=1+1", "'=1+1"), ("+1", "'+1"), ("-1", "'-1"), ("@SUM(A1)", "'@SUM(A1)"), ("a=b", "a=b")],
)
def test_csv_safe_prefixes_formula_starts(value, safe):
    assert csv_safe(value) == safe


def test_a_manager_revokes_with_a_reason_and_comes_back(login, manager, team, certificate):
    client = login(manager)
    back = f"/teams/{team.pk}/"
    url = f"/certificates/{certificate.pk}/revoke/"
    response = client.post(url, {"reason": "  ", "next": back}, follow=True)
    assert "Give the reason" in response.content.decode()
    certificate.refresh_from_db()
    assert certificate.status == "valid"
    response = client.post(url, {"reason": "Failed a game day", "next": back})
    assert response.status_code == 302 and response["Location"] == back
    certificate.refresh_from_db()
    assert certificate.status == "revoked" and certificate.revoked_by == manager
    html = client.get(back).content.decode()
    assert "revoked" in html and "Revoked " in html and "/revoke/" not in html


def test_no_one_else_revokes(client, login, learner, team, certificate):
    url = f"/certificates/{certificate.pk}/revoke/"
    assert client.post(url, {"reason": "x"}).status_code == 302  # to sign in
    assert login(learner).post(url, {"reason": "x"}).status_code == 403
    assert login(certificate.holder).post(url, {"reason": "x"}).status_code == 403
    certificate.refresh_from_db()
    assert certificate.status == "valid"


def test_an_unsafe_next_is_not_followed(login, manager, team, certificate):
    response = login(manager).post(
        f"/certificates/{certificate.pk}/revoke/",
        {"reason": "Left", "next": "https://evil.example/"},
    )
    assert response["Location"] == f"/certificates/{certificate.pk}/"


# ----------------------------------------------------------------------- dashboard


def test_the_dashboard_lists_real_certificates(login, holder, certificate):
    html = login(holder).get("/dashboard/").content.decode()
    assert "Certification arrives later" not in html
    assert certificate.track.title in html and "valid" in html
    assert f'href="/certificates/{certificate.pk}/"' in html
    assert certificate.expires_at.date().isoformat() in html
    assert 'href="/certify/"' in html and '<a href="/teams/">' not in html


def test_a_manager_sees_the_teams_link_on_the_dashboard(login, manager, tracks):
    html = login(manager).get("/dashboard/").content.decode()
    assert "No certificate yet" in html
    assert "Your teams' readiness" in html and '<a href="/teams/">Teams</a>' in html


def test_the_pages_label_their_inputs_and_tables(login, manager, team, certificate):
    client = login(manager)
    urls = ["/certify/", f"/certify/{FLEET}/", f"/certificates/{certificate.pk}/"]
    urls += ["/teams/", f"/teams/{team.pk}/"]
    for url in urls:
        html = client.get(url).content.decode()
        a = audit(html)
        assert a.inputs == [] or set(a.inputs) <= a.labels, (url, a.inputs)
        assert len(a.ids) == len(set(a.ids)), url
        assert a.tags.count("h1") == 1, url
        assert a.tags.count("table") == a.tags.count("caption"), url
        assert html.count("<table") == html.count('<div class="scroll"><table'), url


def test_a_manager_holding_a_certificate_cannot_revoke_it(login, org, team, certificate, manager):
    """Separation of duties on the page: the team matrix offers a manager no revoke form
    for their own certificate, and a post is refused (403); another manager may."""
    holder = certificate.holder
    member_add(organization=org, user=holder, role=Membership.Role.MANAGER)
    client = login(holder)
    html = client.get(f"/teams/{team.pk}/").content.decode()
    assert f"/certificates/{certificate.pk}/revoke/" not in html
    assert "another manager revokes it" in html
    url = f"/certificates/{certificate.pk}/revoke/"
    assert client.post(url, {"reason": "mine"}).status_code == 403
    certificate.refresh_from_db()
    assert certificate.status == "valid"
    assert (
        f"/certificates/{certificate.pk}/revoke/"
        in login(manager).get(f"/teams/{team.pk}/").content.decode()
    )


def test_the_readiness_matrix_and_its_csv_do_not_grow_with_members(login, manager, team):
    client = login(manager)
    urls = (f"/teams/{team.pk}/", f"/teams/{team.pk}/readiness.csv")
    before = [count(client, url) for url in urls]
    for i in range(4):
        team_member_add(team=team, user=UserFactory(username=f"more{i}"))
    assert [count(client, url) for url in urls] == before


def test_the_matrix_and_csv_queries_do_not_grow_with_certified_revoked_or_examined_members(
    login, manager, team, certificate, fleet
):
    """As above, with members who hold, lost or are working towards a certificate: each
    cell's certificate, revocation, mastery and exams come in the page's fixed reads."""
    from collections import Counter

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = login(manager)

    def read() -> tuple[list[int], str, list[list[str]]]:
        counts, bodies = [], []
        for url in (f"/teams/{team.pk}/", f"/teams/{team.pk}/readiness.csv"):
            with CaptureQueriesContext(connection) as ctx:
                response = client.get(url)
                assert response.status_code == 200
                body = response.getvalue() if response.streaming else response.content
            counts.append(len(ctx.captured_queries))
            bodies.append(body.decode())
        return counts, bodies[0], list(csv.reader(io.StringIO(bodies[1])))

    small, _, rows = read()
    assert len(rows) == 1 + 2  # holder (certified) and learner (nothing yet)
    for i in range(12):  # certified, failed the exam, or certified then revoked
        user = UserFactory(username=f"eng{i:02d}", first_name=f"Eng{i:02d}", last_name="Ops")
        team_member_add(team=team, user=user)
        if i % 3 == 1:
            master(user, fleet)
            pass_exam(user, fleet, score=0.4)
        else:
            held = certify(user, fleet)
            if i % 3 == 2:
                certificate_revoke(actor=manager, certificate=held, reason="Missed pages")
    large, html, rows = read()
    assert large == small
    assert all(f">Eng{i:02d} Ops</a>" in html for i in range(12))
    assert html.count("/revoke/") == 1 + 4 and html.count("Revoked ") == 4
    assert Counter(row[3] for row in rows[1:]) == {
        "certified": 5, "in_progress": 5, "revoked": 4
    }  # fmt: skip
