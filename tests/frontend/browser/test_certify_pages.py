"""The certification pages in chromium at a phone's width (390 px) and a laptop's: the
learner's path, one track, the public verification page and the manager's matrix fit
the screen (wide tables scroll inside their own box, never the page), and a manager
revokes a certificate from the matrix."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from certify.models import Certificate, Track
from certify.services.certificates import certificates_issue_due
from orgs.models import Membership
from orgs.services import member_add, organization_create, team_create, team_member_add
from tests.certify.conftest import FLEET, finished_exam, set_mastery
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def people():
    call_command("load_curricula", verbosity=0)
    call_command("load_tracks", verbosity=0)
    track = Track.objects.get(slug=FLEET)
    holder = UserFactory(username="holder", first_name="Ada", last_name="Oncall")
    set_mastery(holder, track)
    finished_exam(holder, track, score=0.9, finished_at=timezone.now() - timedelta(hours=1))
    [certificate] = certificates_issue_due(user_id=holder.pk)
    learner = UserFactory(username="newcomer")
    manager = UserFactory(username="boss")
    org = organization_create(slug="acme", name="Acme GPU")
    member_add(organization=org, user=manager, role=Membership.Role.MANAGER)
    team = team_create(organization=org, slug="fleet", name="Fleet health", tracks=[track])
    for user in (holder, learner):
        team_member_add(team=team, user=user)
    return {"certificate": certificate, "team": team, "track": track}


def overflow(page) -> int:
    """How far the page scrolls sideways (0 when everything fits)."""
    return page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )


@pytest.mark.parametrize("width", [390, 1280])
def test_the_pages_fit_the_screen(page, sign_in, shot, people, width):
    page.set_viewport_size({"width": width, "height": 844})
    certificate, team, track = people["certificate"], people["team"], people["track"]
    page.goto(f"/certificates/{certificate.pk}/")  # public: no sign-in
    assert "Valid" in page.locator("main").inner_text()
    assert overflow(page) == 0
    sign_in(page, "newcomer", "/certify/")
    assert "Take the certification exam" in page.locator("main").inner_text() or (
        "Practise" in page.locator("main").inner_text()
    )
    assert overflow(page) == 0, "/certify/"
    shot(page, f"certify-path-{width}")
    page.goto(f"/certify/{track.slug}/")
    assert overflow(page) == 0, f"/certify/{track.slug}/"
    page.goto("/dashboard/")
    assert overflow(page) == 0, "/dashboard/"
    page.context.clear_cookies()
    sign_in(page, "boss", f"/teams/{team.pk}/")
    assert "Certified until" in page.locator("main").inner_text()
    assert overflow(page) == 0, f"/teams/{team.pk}/"
    shot(page, f"certify-matrix-{width}")


def test_a_manager_revokes_from_the_matrix(page, sign_in, people):
    certificate, team = people["certificate"], people["team"]
    sign_in(page, "boss", f"/teams/{team.pk}/")
    page.locator("details.revoke summary").first.click()  # the form is folded away
    page.get_by_label("Reason").first.fill("Paged twice without answering")
    page.get_by_role("button", name="Revoke this certificate").first.click()
    page.wait_for_url(f"**/teams/{team.pk}/")
    assert "Revoked" in page.locator("main").inner_text()
    certificate = Certificate.objects.get(pk=certificate.pk)
    assert certificate.status == "revoked"
    assert certificate.revoke_reason == "Paged twice without answering"
    page.goto(f"/certificates/{certificate.pk}/")
    text = page.locator("main").inner_text()
    assert "Revoked" in text and "Paged twice" not in text  # the reason stays private
