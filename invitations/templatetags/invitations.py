from django import template

register = template.Library()


@register.filter
def invitation_state(invitation, now) -> str:
    """pending, expired, accepted or revoked, at `now`."""
    return invitation.state_at(now)
