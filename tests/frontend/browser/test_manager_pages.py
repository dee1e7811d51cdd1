"""A manager in chromium (issue 36 item 9), at 390 and 1280 px: signing in lands on
their team's readiness (not an empty learner dashboard); an expired cell says what
renews it; the engineer's name opens their page with the requirements met and missing,
the next step, the certificates and the exam attempts. Every page fits the screen and
axe-core finds no serious or critical violation on it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.core.management import call_command
from django.utils import timezone
from playwright.sync_api import expect

from assess.models import Attempt
from certify.models import Certificate, Track
from certify.services.certificates import certificates_issue_due
from orgs.models import Membership
from orgs.services import member_add, organization_create, team_create, team_member_add
from tests.certify.conftest import FLEET, finished_exam, set_mastery
from tests.factories import PASSWORD, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def team():
    call_command("load_curricula", verbosity=0)
    call_command("load_tracks", verbosity=0)
    track = Track.objects.get(slug=FLEET)
    lapsed = UserFactory(username="lapsed", first_name="Lee", last_name="Lapsed")
    set_mastery(lapsed, track)
    long_ago = timezone.now() - timedelta(days=401)
    finished_exam(lapsed, track, score=0.9, finished_at=long_ago)
    [cert] = certificates_issue_due(user_id=lapsed.pk, now=long_ago + timedelta(minutes=1))
    Certificate.objects.filter(pk=cert.pk).update(expires_at=timezone.now() - timedelta(days=35))
    manager = UserFactory(username="boss")
    org = organization_create(slug="acme", name="Acme GPU")
    member_add(organization=org, user=manager, role=Membership.Role.MANAGER)
    member_add(organization=org, user=lapsed)
    team = team_create(organization=org, slug="fleet", name="Fleet health", tracks=[track])
    team_member_add(team=team, user=lapsed)
    return team


@pytest.mark.parametrize("width", [390, 1280])
def test_a_manager_lands_on_the_team_and_opens_an_engineer(page, shot, team, width):
    page.set_viewport_size({"width": width, "height": 844})
    axe, problems = Axe(), []

    def check(name: str) -> str:
        page.wait_for_load_state("load")
        wide = page.evaluate("document.documentElement.scrollWidth")
        if wide > width:
            problems.append(f"{name}: {wide}px wide at {width}px")
        for violation in axe.run(page).response["violations"]:
            if violation["impact"] in ("serious", "critical"):
                problems.append(f"{name}: axe {violation['id']} ({violation['impact']})")
        return " ".join(page.locator("main").inner_text().split())

    page.goto("/accounts/login/")  # no `next`: where a sign-in lands
    page.get_by_label("Username").fill("boss")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"**/teams/{team.pk}/")
    said = check("team")
    assert "To renew: Take the certification exam." in said, said
    shot(page, f"manager-team-{width}")

    page.get_by_role("link", name="Lee Lapsed").click()
    page.wait_for_url("**/people/lapsed/")
    said = check("engineer")
    shot(page, f"manager-engineer-{width}")
    for heading in ("Requirements", "Certificates", "Exam attempts"):
        expect(page.get_by_role("heading", name=heading).first, heading).to_be_visible()
    assert "Next step: Take the certification exam." in said
    assert "expired" in said and "90% (passed" in said
    assert Attempt.objects.filter(learner__username="lapsed").count() == 1
    assert problems == [], problems
