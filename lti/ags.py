"""Assignment and Grade Services 2.0 calls: find or create a quiz's line item in an LMS
context, and post a score. HTTP only; lti.grades decides what to send and records it.

Only the services the launch's AGS claim offered are used (django-lti stores them on
the context): no line item is created where the LMS does not let us manage them, and no
score goes where the score scope was not given.
"""

from __future__ import annotations

from datetime import datetime
from urllib.parse import urlsplit, urlunsplit

from lti_tool.models import LtiContext

from lti.platform_client import (
    SCOPE_LINEITEM,
    SCOPE_LINEITEM_READ,
    SCOPE_SCORE,
    Permanent,
    call,
)

LINEITEM = "application/vnd.ims.lis.v2.lineitem+json"
LINEITEMS = "application/vnd.ims.lis.v2.lineitemcontainer+json"
SCORE = "application/vnd.ims.lis.v1.score+json"


def resource_id(quiz_id: int) -> str:
    """The line item's resourceId: the quiz id, as deep linking sets it."""
    return str(quiz_id)


def _scopes(context: LtiContext) -> list[str]:
    """Every AGS scope we use in this context, asked for at once: one token serves the
    look-up, the creation and the scores."""
    scopes = [SCOPE_SCORE]
    if context.can_manage_lineitems:
        scopes.append(SCOPE_LINEITEM)
    elif context.can_query_lineitems:
        scopes.append(SCOPE_LINEITEM_READ)
    return scopes


def find_line_item(context: LtiContext, quiz_id: int) -> str | None:
    """The URL of the context's line item whose resourceId is the quiz's, if any."""
    if not context.lineitems_url or not (
        context.can_query_lineitems or context.can_manage_lineitems
    ):
        return None
    response = call(
        context.deployment.registration,
        "GET",
        context.lineitems_url,
        scopes=_scopes(context),
        what="line item look-up",
        params={"resource_id": resource_id(quiz_id)},
        accept=LINEITEMS,
    )
    try:
        items = response.json()
    except ValueError as exc:
        raise Permanent("line item look-up: the LMS answered with no JSON") from exc
    if isinstance(items, dict):  # some LMSs wrap the list
        items = items.get("lineItems") or items.get("content") or []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or item.get("resourceId") != resource_id(quiz_id):
            continue
        if isinstance(item.get("id"), str) and item["id"]:
            return item["id"]
    return None


def create_line_item(
    context: LtiContext, *, quiz_id: int, label: str, maximum: float, resource_link_id: str = ""
) -> str:
    """Creates the quiz's line item; returns its URL. Raises Permanent where the LMS
    does not let us create one."""
    if not (context.lineitems_url and context.can_manage_lineitems):
        raise Permanent(
            "This LMS course gave Burn-in no line item for this quiz and does not let it "
            "create one: link the quiz with a grade column (deep linking) or allow "
            "line item management."
        )
    body = {
        "scoreMaximum": maximum,
        "label": label[:255],
        "resourceId": resource_id(quiz_id),
        "tag": "burnin",
    }
    if resource_link_id:
        body["resourceLinkId"] = resource_link_id
    response = call(
        context.deployment.registration,
        "POST",
        context.lineitems_url,
        scopes=_scopes(context),
        what="line item creation",
        json=body,
        content_type=LINEITEM,
        accept=LINEITEM,
    )
    try:
        url = response.json()["id"]
    except (ValueError, KeyError, TypeError) as exc:
        raise Permanent("line item creation: the LMS answered without an id") from exc
    if not isinstance(url, str) or not url:
        raise Permanent("line item creation: the LMS answered without an id")
    return url


def scores_url(line_item_url: str) -> str:
    """The line item URL with /scores appended to its path (its query kept)."""
    parts = urlsplit(line_item_url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/scores"))


def post_score(
    context: LtiContext,
    line_item_url: str,
    *,
    user_id: str,
    given: float,
    maximum: float,
    timestamp: datetime,
) -> None:
    """Posts a final score (activity Completed, grading FullyGraded) for the LMS user."""
    body = {
        "userId": user_id,
        "scoreGiven": given,
        "scoreMaximum": maximum,
        "activityProgress": "Completed",
        "gradingProgress": "FullyGraded",
        "timestamp": timestamp.isoformat(timespec="microseconds"),
    }
    call(
        context.deployment.registration,
        "POST",
        scores_url(line_item_url),
        scopes=_scopes(context),
        what="score",
        json=body,
        content_type=SCORE,
    )
