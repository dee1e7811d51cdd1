"""LTI endpoints: key set, OIDC login initiation and launch. Thin: the hardening is in
lti.launch, the writes in lti.services.

/lti/login/ and /lti/launch/ are CSRF-exempt: the platform posts to them cross-site, and
the id_token's signature, the state cookie and the one-use nonce protect them instead."""

from __future__ import annotations

import logging

from django.contrib.auth import login
from django.http import HttpResponse, HttpResponseRedirect, JsonResponse
from django.urls import reverse
from django.utils.html import escape
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from lti_tool.models import Key, LtiLaunch
from pylti1p3.exception import LtiException, OIDCException

from assess.errors import Conflict
from lti.framing import lti_frameable
from lti.launch import RESOURCE_LINK_REQUEST, HardenedMessageLaunch
from lti.oidc import oidc_login
from lti.services import NoQuiz, launch_complete, launch_quiz
from lti.tool_config import ReadOnlyToolConfig

log = logging.getLogger(__name__)


def _page(status: int, title: str, detail: str) -> HttpResponse:
    body = f"<!doctype html><title>{escape(title)}</title><h1>{escape(title)}</h1>"
    return HttpResponse(body + f"<p>{escape(detail)}</p>", status=status)


@require_GET
def jwks(request):
    """Our active keys; `manage.py rotate_keys` adds one and keeps older ones published
    until they are older than --deactivate-after days."""
    return JsonResponse(Key.objects.as_jwks())


def _launch_url(request) -> str:
    return request.build_absolute_uri(reverse("lti-launch"))


@csrf_exempt
@lti_frameable
@require_http_methods(["GET", "POST"])
def login_initiation(request):
    try:
        response = oidc_login(request, ReadOnlyToolConfig()).redirect(_launch_url(request))
    except (OIDCException, LtiException) as exc:
        log.info("LTI login refused: %s", exc)
        return _page(403, "Login refused", "This LMS is not registered with Burn-in.")
    return response


@csrf_exempt
@lti_frameable
@require_POST
def launch(request):
    message_launch = HardenedMessageLaunch(
        request,
        ReadOnlyToolConfig(),
        launch_url=_launch_url(request),
        message_types=[RESOURCE_LINK_REQUEST],
    )
    try:
        message_launch.validate()
    except LtiException as exc:
        log.info("LTI launch refused: %s", exc)
        return _page(403, "Launch refused", "This launch could not be verified.")
    lti_launch = LtiLaunch(message_launch)
    try:
        quiz = launch_quiz(lti_launch)
        result = launch_complete(lti_launch=lti_launch, quiz=quiz)
    except NoQuiz as exc:
        return _page(400, "No quiz for this link", str(exc))
    except Conflict as exc:
        return _page(409, "This quiz cannot be started", str(exc))
    login(request, result.user, backend="django.contrib.auth.backends.ModelBackend")
    if result.teaching:
        return _see_other(reverse("quiz-items", args=[result.quiz.pk]))
    return _see_other(reverse("attempt-detail", args=[result.attempt.pk]))


def _see_other(url: str) -> HttpResponseRedirect:
    """303: the browser GETs the page, so a reload never re-posts the launch."""
    response = HttpResponseRedirect(url)
    response.status_code = 303
    return response
