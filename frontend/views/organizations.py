"""An organisation's single sign-on page: register or change its OIDC identity provider.
Staff, or a manager of the organisation where staff allow it (orgs.sso); anyone else
gets 404. The service checks and writes; the page shows what to register at the
provider (the callback address) and whether members must use it."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse

from api_common.http import missing_is_404
from api_common.service_errors import InvalidInput
from frontend.sso_form import IdentityProviderForm
from orgs import sso


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
