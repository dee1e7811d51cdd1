from django import template

register = template.Library()


@register.filter
def invitation_state(invitation, now) -> str:
    """pending, expired, accepted or revoked, at `now`."""
    return invitation.state_at(now)


@register.simple_tag
def organizations_to_invite_to(user):
    """The organisations whose invitations page the user may open (managed; all, for
    staff), for the teams page's links."""
    from orgs.models import Organization
    from orgs.selectors import managed_org_ids

    organizations = Organization.objects.order_by("name")
    if not user.is_staff:
        organizations = organizations.filter(pk__in=managed_org_ids(user=user))
    return list(organizations)


@register.simple_tag(takes_context=True)
def invitation_signing_up(context):
    """The invitation this visitor is signing up from (the sign-up page says so)."""
    from invitations.selectors import invitation_for_sign_up

    request = context.get("request")
    return invitation_for_sign_up(request) if request is not None else None
