"""Managers (issue 36 item 9): a manager signs in to their team, not an empty learner
dashboard; each engineer has a page (requirements met and missing, certificates, exam
attempts, the next step, the renewal date) linked from the readiness matrix; expired and
revoked cells say what to do. Others get 404 from a person's page."""

# The certification pages' fixtures are imported by name, which pytest then injects:
# ruff reads each injected argument as a redefinition.
# ruff: noqa: F811

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from assess.models import Attempt
from certify.models import Certificate
from orgs.models import Membership
from orgs.services import member_add, organization_create, team_create
from tests.factories import PASSWORD, UserFactory
from tests.frontend.test_certify_pages import (  # noqa: F401 (fixtures)
    certificate,
    certify,
    fleet,
    holder,
    manager,
    org,
    pass_exam,
    team,
    tracks,
)

pytestmark = pytest.mark.django_db


def text(response) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode())))


def sign_in(client, user) -> str:
    """Where the sign-in form sends the user when no `next` is given."""
    response = client.post("/accounts/login/", {"login": user.username, "password": PASSWORD})
    assert response.status_code == 302
    return response["Location"]


def test_a_manager_lands_on_their_team_others_on_their_dashboard(client, manager, team, org):
    assert sign_in(client, manager) == f"/teams/{team.pk}/"
    client.logout()
    team_create(organization=org, slug="serving", name="Serving on-call")
    assert sign_in(client, manager) == "/teams/"  # several teams: the list
    client.logout()
    assert sign_in(client, UserFactory(username="plain")) == "/dashboard/"
    client.logout()
    assert sign_in(client, UserFactory(username="root", is_staff=True)) == "/dashboard/"


def test_the_matrix_links_each_engineer_and_ended_cells_say_what_to_do(
    client, manager, team, holder, certificate, org
):
    client.force_login(manager)
    page = client.get(f"/teams/{team.pk}/").content.decode()
    assert 'href="/people/holder/"' in page
    Certificate.objects.filter(pk=certificate.pk).update(
        issued_at=timezone.now() - timedelta(days=400),
        expires_at=timezone.now() - timedelta(days=35),
    )
    long_ago = timezone.now() - timedelta(days=401)  # the pass it was issued on
    Attempt.objects.filter(learner=holder).update(started_at=long_ago, finished_at=long_ago)
    said = text(client.get(f"/teams/{team.pk}/"))
    assert re.search(r"Expired \d{4}-\d\d-\d\d\. To renew: Take the certification exam\.", said), (
        said
    )


def test_a_revoked_cell_says_what_certifies_again(client, manager, team, holder, certificate, org):
    from certify.services.certificates import certificate_revoke

    member_add(organization=org, user=holder)
    certificate_revoke(actor=manager, certificate=certificate, reason="Missed pages")
    client.force_login(manager)
    said = text(client.get(f"/teams/{team.pk}/"))
    assert "To certify again: Take the certification exam." in said


def test_the_engineer_page_has_requirements_certificates_attempts_and_renewal(
    client, manager, team, holder, certificate, fleet, org
):
    member_add(organization=org, user=holder)
    pass_exam(holder, fleet, score=0.4)  # a later failed try shows among the attempts
    client.force_login(manager)
    response = client.get("/people/holder/")
    assert response.status_code == 200
    said = text(response)
    for heading in ("Requirements", "Certificates", "Exam attempts", "Next step"):
        assert heading in said, heading
    assert fleet.title in said and "Renewal date:" in said
    assert "93% (passed" in said and "40% (not passed" in said
    assert f'href="/certificates/{certificate.pk}/"' in response.content.decode()
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d", said)


def test_the_page_is_for_the_engineer_their_managers_and_staff_only(
    client, manager, team, holder, org
):
    member_add(organization=org, user=holder)
    for user, status in (
        (holder, 200),
        (manager, 200),
        (UserFactory(username="root", is_staff=True), 200),
        (UserFactory(username="stranger"), 404),
    ):
        client.force_login(user)
        assert client.get("/people/holder/").status_code == status, user
    other = organization_create(slug="globex", name="Globex")
    boss = UserFactory(username="globex-boss")
    member_add(organization=other, user=boss, role=Membership.Role.MANAGER)
    client.force_login(boss)
    assert client.get("/people/holder/").status_code == 404
    assert client.get("/people/nobody-at-all/").status_code == 404


def test_the_page_reads_a_fixed_number_of_times(client, manager, team, holder, fleet, org):
    member_add(organization=org, user=holder)
    client.force_login(manager)

    def count() -> int:
        with CaptureQueriesContext(connection) as ctx:
            assert client.get("/people/holder/").status_code == 200
        return len(ctx.captured_queries)

    few = count()
    certify(holder, fleet)
    for _ in range(3):
        pass_exam(holder, fleet, score=0.5)
    assert count() == few <= 14
