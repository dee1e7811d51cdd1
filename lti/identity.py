"""Who an LMS user is here: the Burn-in account behind a platform's user, and whether
their roles teach. Launches (lti.services) and roster syncs (lti.roster) both link people,
so the rule lives below both."""

from __future__ import annotations

import hashlib

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from lti_tool.lti_core.constants import ContextRole
from lti_tool.lti_core.utils import normalize_role

TEACHING_ROLES = {ContextRole.INSTRUCTOR, ContextRole.CONTENT_DEVELOPER, ContextRole.ADMINISTRATOR}


def is_teaching(roles: list[str]) -> bool:
    """Instructor, ContentDeveloper or Administrator (full URI or short name) teach; any
    other role, an unknown one or none at all, is a learner."""
    return any(normalize_role(r) in TEACHING_ROLES for r in roles)


def _username(iss: str, sub: str) -> str:
    """Never the platform's name or email (they change, and could collide with or
    impersonate a local account): a digest of (issuer, sub), fixed length, unique."""
    return "lti-" + hashlib.sha256(f"{iss}\n{sub}".encode()).hexdigest()[:24]


def burnin_user(lti_user, iss: str):
    """The Burn-in user behind an LMS user, created (with no usable password) and linked
    on first sight: from their own launch or from the roster."""
    if lti_user.auth_user_id is not None:
        return lti_user.auth_user
    users = get_user_model().objects
    user = users.filter(username=_username(iss, lti_user.sub)).first()
    if user is None:
        user = users.model(
            username=_username(iss, lti_user.sub),
            first_name=(lti_user.given_name or "")[:150],
            last_name=(lti_user.family_name or "")[:150],
        )
        try:
            validate_email(lti_user.email)
            user.email = lti_user.email
        except ValidationError:
            pass
        user.set_unusable_password()
        user.save()
    lti_user.auth_user = user
    lti_user.save(update_fields=["auth_user", "datetime_modified"])
    return user
