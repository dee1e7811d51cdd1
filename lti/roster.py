"""Names and Role Provisioning Services 2.0: the LMS course's roster, so the instructor's
progress table lists every learner of the LMS course, not only those who have launched.

An instructor's launch that carries the NRPS claim queues a sync of its context (at
most one per context every ROSTER_INTERVAL). The sync reads every page of the
membership container, updates django-lti's memberships, and gives each active learner a
Burn-in user (the same one their own launch would link) enrolled (source "lti") in the
course of every quiz linked from that LMS course, while the deployment is still
authorised for that course (lti.selectors.deployment_may_launch). Nothing is removed: a
member who left the LMS course keeps their attempts and grades; their membership is
marked inactive.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.cache import cache
from django.db import transaction
from lti_tool.lti_core.constants import ContextRole
from lti_tool.lti_core.utils import normalize_role
from lti_tool.models import LtiContext, LtiUser
from requests.utils import parse_header_links

from assess.services.enrolments import enrolment_lti
from config.celery import queue
from lti.identity import burnin_user, is_teaching
from lti.models import ResourceLinkQuiz
from lti.platform_client import SCOPE_NRPS, Permanent, call
from lti.selectors import authorised_course_ids

MEMBERSHIPS = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
ROSTER_INTERVAL = 600  # seconds between two syncs of one context started by launches
MAX_PAGES = 200
MAX_MEMBERS = 50_000  # a course's roster, all pages: written in one transaction


@dataclass(frozen=True)
class RosterReport:
    members: int
    learners_enrolled: int
    inactive: int


def _next_page(link_header: str) -> str | None:
    """The `rel="next"` target of a Link header (RFC 8288; rel may list several
    relations, its name any case), read by requests' own parser, which splits and strips:
    linear in the header. The regular expression it replaces (`<([^>]+)>...`) was
    quadratic in a run of `<`: 16,000 took 0.8 s, and an LMS may send 64 KB a page."""
    for link in parse_header_links(link_header or ""):
        rel = next((v for k, v in link.items() if k.lower() == "rel"), "")
        if "next" in rel.lower().split() and link.get("url"):
            return link["url"]
    return None


def fetch_members(context: LtiContext) -> list[dict]:
    """Every member on every page (Link: rel="next"), those without user_id or roles
    dropped. Raises Transient / Permanent."""
    members, url, pages = [], context.memberships_url, 0
    while url and pages < MAX_PAGES:
        response = call(
            context.deployment.registration,
            "GET",
            url,
            scopes=[SCOPE_NRPS],
            what="roster",
            accept=MEMBERSHIPS,
        )
        try:
            body = response.json()
        except ValueError as exc:
            raise Permanent("roster: the LMS answered with no JSON") from exc
        page = body.get("members") if isinstance(body, dict) else None
        for member in page if isinstance(page, list) else []:
            if (
                isinstance(member, dict)
                and isinstance(member.get("user_id"), str)
                and member["user_id"]
                and isinstance(member.get("roles"), list)
            ):
                members.append(member)
        if len(members) > MAX_MEMBERS:
            raise Permanent(f"roster: more than {MAX_MEMBERS:,} members")
        url, pages = _next_page(response.headers.get("Link", "")), pages + 1
    return members


def _clean(member: dict) -> dict:
    """Only what django-lti stores, as strings that fit its columns: an LMS's oversized or
    odd field must not fail the whole roster."""
    clean = {"user_id": member["user_id"][:255], "roles": member["roles"]}
    for key, limit in (("given_name", 500), ("family_name", 500), ("name", 500)):
        if isinstance(member.get(key), str):
            clean[key] = member[key][:limit]
    email = member.get("email")
    if isinstance(email, str) and len(email) <= 254 and "@" in email:
        clean["email"] = email
    status = member.get("status")
    clean["status"] = status if status in ("Active", "Inactive", "Deleted") else "Active"
    return clean


def _is_learner(member: dict) -> bool:
    """A learner and no teaching role (the launch's rule, lti.identity.is_teaching)."""
    roles = [r for r in member["roles"] if isinstance(r, str)]
    learning = any(normalize_role(r) == ContextRole.LEARNER for r in roles)
    return learning and not is_teaching(roles)


def roster_sync(*, context: LtiContext) -> RosterReport:
    """Reads the context's roster and records it (see the module docstring)."""
    members = [_clean(m) for m in fetch_members(context)]
    courses = {
        rlq.quiz.course
        for rlq in ResourceLinkQuiz.objects.filter(
            resource_link__context=context,
            quiz__course__in=authorised_course_ids(deployment=context.deployment_id),
        ).select_related("quiz__course")
    }
    enrolled = inactive = 0
    registration = context.deployment.registration
    with transaction.atomic():
        context.update_memberships(members)
        for member in members:
            if member["status"] != "Active":
                inactive += 1
                continue
            if not _is_learner(member) or not courses:
                continue
            lti_user = LtiUser.objects.get(registration=registration, sub=member["user_id"])
            user = burnin_user(lti_user, registration.issuer)
            for course in courses:
                _, created = enrolment_lti(user=user, course=course)
                enrolled += created
    return RosterReport(members=len(members), learners_enrolled=enrolled, inactive=inactive)


def roster_sync_due(context: LtiContext) -> bool:
    """True at most once per ROSTER_INTERVAL per context (a cache.add race-free claim)."""
    return bool(context.memberships_url) and cache.add(
        f"lti:roster:{context.pk}", 1, ROSTER_INTERVAL
    )


def roster_enqueue(context_id: int) -> None:
    if not queue("lti.tasks.sync_roster", context_id, what=f"roster sync of context {context_id}"):
        cache.delete(f"lti:roster:{context_id}")  # the next instructor launch asks again
