"""A manager invites an engineer and the engineer accepts, in chromium at a phone's
width (390 px) and a laptop's (1280 px): the manager opens the team's invitations from
the teams page, invites by pasting an address, sends a new link (htmx swaps the row),
and the newcomer opens the link, is told the first link is dead, makes an account from
the invitation (no confirmation mail: the address is proven) and accepts, landing on
the team. Each page fits the screen and axe-core finds no serious or critical
violation on it."""

from __future__ import annotations

import pytest
from django.core import mail
from playwright.sync_api import expect

from orgs.models import TeamMember
from orgs.services import member_add, organization_create, team_create
from tests.factories import UserFactory
from tests.frontend.browser.test_account_journey import PASSWORD, Checks
from tests.invitations.conftest import link_to

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _context(browser, live_server, width):
    context = browser.new_context(
        viewport={"width": width, "height": 844}, base_url=live_server.url
    )
    context.set_default_timeout(15_000)
    return context


@pytest.mark.parametrize("width", [390, 1280])
def test_a_manager_invites_and_the_invitee_accepts(browser, live_server, shot, sign_in, width):
    organization = organization_create(slug="gpu-cloud", name="GPU Cloud")
    team = team_create(organization=organization, slug="oncall", name="Inference on-call")
    member_add(organization=organization, user=UserFactory(username="boss"), role="manager")
    address, username = f"newbie{width}@example.com", f"newbie{width}"
    check = Checks(width)
    errors: list[str] = []
    manager = _context(browser, live_server, width)
    invitee = _context(browser, live_server, width)
    try:
        page = manager.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        sign_in(page, "boss", "/teams/")
        page.get_by_role("link", name="Invite to Inference on-call").click()
        page.wait_for_url(f"**/teams/{team.pk}/invitations/")
        check(page, "invitations (empty)")
        page.get_by_label("Email addresses").fill(f"{address}, not-an-address")
        page.get_by_role("button", name="Send invitations").click()
        expect(page.get_by_role("heading", name="Nothing was sent")).to_be_visible()
        expect(page.get_by_text("'not-an-address' is not an email address")).to_be_visible()
        check(page, "invitations (a bad row)")
        assert mail.outbox == []
        page.get_by_label("Email addresses").fill(address)
        page.get_by_role("button", name="Send invitations").click()
        expect(page.get_by_text("1 invitation sent.")).to_be_visible()
        first = link_to(address)
        # A new link by htmx: the row says so in place, and the first link dies.
        page.get_by_role("button", name=f"Send a new link to {address}").click()
        page.get_by_text("the earlier one no longer works").wait_for()
        check(page, "invitations (resent)")
        shot(page, f"invitations-{width}")
        link = link_to(address)
        assert link != first

        page = invitee.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(first)
        expect(
            page.get_by_role("heading", name="This invitation cannot be accepted")
        ).to_be_visible()
        check(page, "a dead link")
        page.goto(link)
        expect(
            page.get_by_role(
                "heading", name="You are invited to the team Inference on-call of GPU Cloud"
            )
        ).to_be_visible()
        check(page, "the invitation")
        shot(page, f"invitation-{width}")
        page.get_by_role("button", name="Create your account").click()
        page.wait_for_url("**/accounts/signup/**")
        expect(page.get_by_text("You are accepting an invitation to the team")).to_be_visible()
        check(page, "sign up from the invitation")
        assert page.get_by_label("Email").input_value() == address
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password", exact=True).fill(PASSWORD)
        page.get_by_label("Password (again)").fill(PASSWORD)
        page.get_by_label("Password (again)").press("Enter")
        page.wait_for_url(f"**{link}")
        check(page, "the invitation, signed in")
        page.get_by_role("button", name="Accept and join Inference on-call").click()
        page.wait_for_url("**/certify/")
        expect(
            page.get_by_text("You joined the team Inference on-call of GPU Cloud")
        ).to_be_visible()
        check(page, "joined")
        assert TeamMember.objects.filter(team=team, user__username=username).exists()
        assert [m.to for m in mail.outbox] == [[address], [address]]  # no confirmation mail
    finally:
        manager.close()
        invitee.close()
    assert errors == []
    assert check.problems == [], "\n".join(check.problems)
