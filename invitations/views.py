"""Invitation pages: a place's invitations (send, resend, revoke) for its managers or
instructors, and the link's own page, where the invitee signs up or signs in and then
accepts. Thin: the gate is invitations.selectors, every write invitations.services.

The link's page writes nothing on GET (mail scanners follow links): accepting is its
button's POST, and "Create your account" is a POST that notes the invitation in the
session before allauth's sign-up page, whose address then counts as confirmed
(accounts.adapters) and which stays open to it even when sign-up is closed.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from api_common.http import missing_is_404
from api_common.service_errors import Conflict, NotPermitted
from invitations import selectors
from invitations import services as svc
from invitations.forms import InviteForm
from invitations.places import Place

SIGN_UP_SESSION_KEY = selectors.SIGN_UP_SESSION_KEY
LISTED = 200  # the newest invitations a place's page lists


def _site(request) -> str:
    return request.build_absolute_uri("/")


def _manage(request, place: Place):
    form = InviteForm(request.POST or None, request.FILES or None)
    results, refused, status = None, "", 200
    if request.method == "POST" and not form.is_valid():
        status = 400
    elif request.method == "POST":
        try:
            results = svc.invitations_send(
                actor=request.user,
                place=place,
                rows=form.cleaned_data["rows"],
                site_url=_site(request),
            )
        except svc.BulkRefused as err:
            results, refused, status = err.results, str(err), 400
        except Conflict as err:
            form.add_error(None, str(err))
            status = 409
        else:
            sent = sum(1 for r in results if r.invitation_id)
            messages.success(request, f"{sent} invitation{'s' if sent != 1 else ''} sent.")
            form = InviteForm()
    context = {
        "place": place,
        "ttl_days": round(settings.INVITATION_TTL.total_seconds() / 86400),
        "form": form,
        "results": results,
        "refused": refused,
        "invitations": selectors.invitations_of(place=place)[:LISTED],
        "now": timezone.now(),
    }
    return render(request, "invitations/manage.html", context, status=status)


@login_required
@missing_is_404
def organization_invitations(request, slug: str):
    organization = selectors.organization_get_for_inviter(user=request.user, slug=slug)
    return _manage(request, Place(organization=organization))


@login_required
@missing_is_404
def team_invitations(request, pk: int):
    team = selectors.team_get_for_inviter(user=request.user, pk=pk)
    return _manage(request, Place(organization=team.organization, team=team))


@login_required
@missing_is_404
def course_invitations(request, slug: str):
    try:
        course = selectors.course_get_for_inviter(user=request.user, slug=slug)
    except NotPermitted as err:
        raise PermissionDenied(str(err)) from None
    return _manage(request, Place(course=course))


def _after_change(request, invitation, note: str, *, ok: bool):
    """An htmx click gets the invitation's row back, saying what happened; a plain
    form, the page with the note as a message."""
    invitation.refresh_from_db()
    if request.htmx:
        context = {"i": invitation, "now": timezone.now(), "note": note}
        return render(request, "invitations/_row.html", context)
    (messages.success if ok else messages.error)(request, note)
    return redirect(Place.of(invitation).manage_url)


@require_POST
@login_required
@missing_is_404
def invitation_resend(request, pk: int):
    invitation = selectors.invitation_get_for_inviter(user=request.user, pk=pk)
    try:
        mailed = svc.invitation_resend(
            actor=request.user, invitation=invitation, site_url=_site(request)
        )
    except Conflict as err:
        return _after_change(request, invitation, str(err), ok=False)
    if not mailed:
        note = f"The mail to {invitation.email} failed; try again."
        return _after_change(request, invitation, note, ok=False)
    note = f"A new link went to {invitation.email}; the earlier one no longer works."
    return _after_change(request, invitation, note, ok=True)


@require_POST
@login_required
@missing_is_404
def invitation_revoke(request, pk: int):
    invitation = selectors.invitation_get_for_inviter(user=request.user, pk=pk)
    try:
        svc.invitation_revoke(actor=request.user, invitation=invitation)
    except Conflict as err:
        return _after_change(request, invitation, str(err), ok=False)
    note = f"The invitation of {invitation.email} is withdrawn: its link no longer works."
    return _after_change(request, invitation, note, ok=True)


def _refused(request, err: svc.InvitationRefused | NotPermitted, *, status: int):
    context = {
        "message": str(err),
        "invitation": getattr(err, "invitation", None),
        "wrong_account": isinstance(err, svc.WrongAccount),
    }
    return render(request, "invitations/refused.html", context, status=status)


def _checked(request, token: str):
    """(invitation, None) when the link may be accepted; (None, the refusal page)."""
    try:
        return svc.invitation_check(selectors.invitation_by_token(token)), None
    except svc.InvitationRefused as err:
        # An unknown link names nothing (404); a known one that is spent says why (410).
        return None, _refused(request, err, status=404 if err.reason == "unknown" else 410)


def invitation_accept(request, token: str):
    invitation, refusal = _checked(request, token)
    if refusal is not None:
        return refusal
    here = reverse("invitation-accept", kwargs={"token": token})
    user = request.user
    if not user.is_authenticated:
        if request.method == "POST":
            return redirect(f"{reverse('account_login')}?{urlencode({'next': here})}")
        return _accept_page(request, invitation, token)
    if request.method == "POST":
        try:
            svc.invitation_accept(user=user, token=token)
        except svc.InvitationRefused as err:  # spent between the page and the click
            return _refused(request, err, status=410)
        except svc.WrongAccount as err:
            return _refused(request, err, status=403)
        request.session.pop(SIGN_UP_SESSION_KEY, None)
        place = Place.of(invitation)
        messages.success(request, f"You joined {place.label}.")
        return redirect(place.landing_url)
    if selectors.address_of(user=user, email=invitation.email) is None:
        return _refused(request, svc.WrongAccount(invitation, user), status=403)
    return _accept_page(request, invitation, token)


def _accept_page(request, invitation, token: str):
    context = {
        "invitation": invitation,
        "place": Place.of(invitation),
        "token": token,
        "next": reverse("invitation-accept", kwargs={"token": token}),
    }
    return render(request, "invitations/accept.html", context)


@require_POST
def invitation_sign_up(request, token: str):
    """'Create your account': the invitation goes into the session (its id: the token
    has been checked), then allauth's sign-up page, the invited address filled in."""
    invitation, refusal = _checked(request, token)
    if refusal is not None:
        return refusal
    here = reverse("invitation-accept", kwargs={"token": token})
    if request.user.is_authenticated:
        return redirect(here)
    request.session[SIGN_UP_SESSION_KEY] = invitation.pk
    query = urlencode({"email": invitation.email, "next": here})
    return redirect(f"{reverse('account_signup')}?{query}")
