"""Reads about invitations, and the one gate to them: who may invite to a place and
manage its invitations. Managers (and staff) for their organisations and those
organisations' teams; a course's course-wide instructors (and staff) for the course.
Anyone else gets DoesNotExist (a 404 page, no hint that the place exists); an instructor
scoped to an LMS course sees the course but changes no roster (NotPermitted, 403, as
adding a learner by hand)."""

from __future__ import annotations

import hashlib

from allauth.account.models import EmailAddress
from django.db.models import Q, QuerySet
from django.db.models.functions import Lower

from api_common.service_errors import NotPermitted
from assess.models import CourseRole, Enrolment
from assess.selectors import SCOPED_WRITE_REFUSED, user_is_course_instructor, user_is_instructor
from curricula.models import Course
from invitations.models import Invitation
from invitations.places import Place
from orgs.models import Membership, Organization, TeamMember
from orgs.selectors import managed_org_ids, team_get_for_manager


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def organization_get_for_inviter(*, user, slug: str) -> Organization:
    organizations = Organization.objects.all()
    if not user.is_staff:
        organizations = organizations.filter(pk__in=managed_org_ids(user=user))
    return organizations.get(slug=slug)


def team_get_for_inviter(*, user, pk: int):
    return team_get_for_manager(user=user, pk=pk)


def course_get_for_inviter(*, user, slug: str) -> Course:
    course = Course.objects.get(slug=slug)
    if user_is_course_instructor(user=user, course_id=course.pk):
        return course
    if user_is_instructor(user=user, course_id=course.pk):
        raise NotPermitted(SCOPED_WRITE_REFUSED)
    raise Course.DoesNotExist


def _managed(user) -> Q:
    """The invitations `user` may see and change, as one condition."""
    if user.is_staff:
        return Q()
    course_wide = CourseRole.objects.filter(
        user=user, role=CourseRole.Role.INSTRUCTOR, lti_context__isnull=True
    ).values("course_id")
    return Q(organization_id__in=managed_org_ids(user=user)) | Q(course_id__in=course_wide)


def invitation_get_for_inviter(*, user, pk: int) -> Invitation:
    """An invitation to a place the user may invite to; Invitation.DoesNotExist else."""
    invitations = Invitation.objects.select_related("organization", "team", "course")
    return invitations.filter(_managed(user)).get(pk=pk)


def invitations_of(*, place: Place) -> QuerySet[Invitation]:
    """The place's invitations, newest first, with whoever sent and accepted them (one
    query, whatever their number)."""
    return Invitation.objects.filter(target_key=place.key).select_related(
        "organization", "team", "course", "invited_by", "accepted_by"
    )


def invitation_by_token(token: str) -> Invitation | None:
    if not token or len(token) > 128:
        return None
    return (
        Invitation.objects.select_related("organization", "team", "course", "invited_by")
        .filter(token_hash=token_hash(token))
        .first()
    )


def place_holds(*, place: Place, user_ids) -> set[int]:
    """Which of `user_ids` are already where the place would put them: on the team, in
    the organisation, enrolled in the course."""
    if place.course is not None:
        rows = Enrolment.objects.filter(course=place.course, user_id__in=user_ids)
    elif place.team is not None:
        rows = TeamMember.objects.filter(team=place.team, user_id__in=user_ids)
    else:
        rows = Membership.objects.filter(organization=place.organization, user_id__in=user_ids)
    return set(rows.values_list("user_id", flat=True))


def accounts_by_address(emails) -> dict[str, int]:
    """{address: user id} for the addresses that name an account (allauth's address
    rows, else the user's own field)."""
    from django.contrib.auth import get_user_model

    emails = [e.lower() for e in emails]
    rows = EmailAddress.objects.annotate(low=Lower("email")).filter(low__in=emails)
    found = dict(rows.values_list("low", "user_id"))
    rest = [e for e in emails if e not in found]
    if rest:
        users = get_user_model().objects.annotate(low=Lower("email")).filter(low__in=rest)
        found.update(dict(users.values_list("low", "pk")))
    return found


def address_of(*, user, email: str) -> EmailAddress | None | bool:
    """The account's own address row for `email` (any case): its primary address, or
    one it confirmed; True when the address is only the user's field; None when the
    account does not have this address. An address the account is only changing to
    (allauth's unconfirmed, not primary row) is not yet the account's."""
    rows = EmailAddress.objects.filter(user=user, email__iexact=email)
    row = rows.filter(Q(primary=True) | Q(verified=True)).first()
    if row is None and rows.exists():
        return None
    if row is not None:
        return row
    return True if (user.email or "").lower() == email.lower() else None


def may_invite(*, user, place: Place) -> bool:
    """The rule of the gates above, for a place already in hand (services check it)."""
    if user is None or not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    if place.course is not None:
        return user_is_course_instructor(user=user, course_id=place.course.pk)
    return managed_org_ids(user=user).filter(organization_id=place.organization.pk).exists()


# The session key under which "Create your account" on an invitation's page keeps the
# invitation's id for allauth's sign-up (accounts.adapters).
SIGN_UP_SESSION_KEY = "invitation_sign_up"


def invitation_for_sign_up(request) -> Invitation | None:
    """The pending, unexpired invitation this session is signing up for, if any."""
    session = getattr(request, "session", None)
    pk = session.get(SIGN_UP_SESSION_KEY) if session is not None else None
    if not isinstance(pk, int):
        return None
    from django.utils import timezone

    invitation = Invitation.objects.filter(pk=pk).first()
    if invitation is None or invitation.state_at(timezone.now()) != Invitation.Status.PENDING:
        return None
    return invitation
