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
