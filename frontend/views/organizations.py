"""An organisation's pages for its managers: its single sign-on (register or change its
OIDC identity provider: staff, or a manager where staff allow it, orgs.sso) and its
members (who belongs, in which teams; removing one deprovisions them, orgs.services).
Anyone else gets 404. The services check and write; the pages show and explain."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from api_common.http import missing_is_404
from api_common.service_errors import InvalidInput
from frontend.sso_form import IdentityProviderForm
from orgs import selectors as orgs
from orgs import sso
from orgs.services import member_remove


def _initial(provider) -> dict:
    if provider is None:
        return {}
    return {
        "issuer": provider.app.settings.get("server_url", ""),
        "client_id": provider.app.client_id,
        "domains": "\n".join(sso.domains_of(provider)),
        "required": provider.required,
    }


@login_required
@missing_is_404
def organization_sso(request, slug: str):
    organization = sso.organization_sso_get_for(user=request.user, slug=slug)
    provider = getattr(organization, "identity_provider", None)
    form = IdentityProviderForm(request.POST or None, initial=_initial(provider))
    if request.method == "POST" and form.is_valid():
        try:
            sso.identity_provider_save(
                actor=request.user, organization=organization, values=form.settings()
            )
        except InvalidInput as err:
            form.add_error(err.field if err.field in form.fields else None, str(err))
        else:
            messages.success(request, f"Single sign-on for {organization.name} is saved.")
            return redirect("organization-sso", slug=organization.slug)
    callback = reverse("openid_connect_callback", kwargs={"provider_id": organization.slug})
    context = {
        "organization": organization,
        "provider": provider,
        "form": form,
        "callback_url": request.build_absolute_uri(callback),
        "sign_on_url": reverse("openid_connect_login", kwargs={"provider_id": organization.slug}),
    }
    return render(request, "frontend/organizations/sso.html", context)


@login_required
@missing_is_404
def organization_members(request, slug: str):
    organization = orgs.organization_get_for_manager(user=request.user, slug=slug)
    members = orgs.members_of(organization=organization)
    context = {"organization": organization, "members": members}
    return render(request, "frontend/organizations/members.html", context)


@require_POST
@login_required
@missing_is_404
def organization_member_remove(request, slug: str, user_id: int):
    """Deprovision one member (the button on the members page)."""
    organization = orgs.organization_get_for_manager(user=request.user, slug=slug)  # the gate
    membership = orgs.membership_get(organization=organization, user_id=user_id)
    try:
        member_remove(actor=request.user, membership=membership)
    except InvalidInput as err:
        messages.error(request, str(err))
    else:
        who = membership.user.get_full_name() or membership.user.get_username()
        messages.success(
            request,
            f"{who} is no longer a member of {organization.name}: their team memberships "
            "ended and their certificates stay verifiable as history.",
        )
    return redirect("organization-members", slug=organization.slug)
