"""LTI endpoints: key set, OIDC login initiation, launch and the deep-linking picker.
Thin: the hardening is in lti.launch, the writes in lti.services, deep linking's
session and signed response in lti.deep_linking.

/lti/launch/ serves both resource-link and deep-linking launches (the login always
redirects there; the message type decides). /lti/login/ and /lti/launch/ are
CSRF-exempt: the platform posts to them cross-site, and the id_token's signature, the
state cookie and the one-use nonce protect them instead. The picker is our own page and
keeps CSRF protection."""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth import login
from django.http import HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.html import escape
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from lti_tool.models import Key, LtiLaunch
from pylti1p3.exception import LtiException, OIDCException

from api_common.service_errors import Conflict
from assess.selectors import user_can_manage_quiz
from lti import dynamic_registration
from lti.deep_linking import (
    deep_link_deployment,
    deep_link_forget,
    deep_link_keep,
    deep_link_response_jwt,
    deep_link_response_page,
    deep_link_restore,
)
from lti.framing import FRAME_ORIGINS, lti_frameable, origins_of
from lti.identity import is_teaching
from lti.launch import DEEP_LINKING_REQUEST, RESOURCE_LINK_REQUEST, HardenedMessageLaunch
from lti.oidc import oidc_login
from lti.selectors import (
    authorised_courses,
    deployment_may_launch,
    instructs_a_course,
    linkable_quizzes,
)
from lti.services import (
    NoQuiz,
    deep_link_begin,
    deep_link_placed,
    launch_complete,
    launch_quiz,
)
from lti.tool_config import ReadOnlyToolConfig

log = logging.getLogger(__name__)

NOT_AUTHORISED = (
    "This LMS connection is not authorised for the Burn-in course of this quiz. A Burn-in "
    "administrator can add the course to the connection's authorised courses."
)


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
        message_types=[RESOURCE_LINK_REQUEST, DEEP_LINKING_REQUEST],
    )
    try:
        message_launch.validate()
    except LtiException as exc:
        log.info("LTI launch refused: %s", exc)
        return _page(403, "Launch refused", "This launch could not be verified.")
    lti_launch = LtiLaunch(message_launch)
    if message_launch.is_deep_link_launch():
        return _deep_linking_launch(request, message_launch, lti_launch)
    try:
        quiz = launch_quiz(lti_launch)
        if not deployment_may_launch(deployment=lti_launch.deployment, quiz=quiz):
            log.info("LTI launch refused: quiz %s not authorised for its deployment", quiz.pk)
            return _page(403, "Launch refused", NOT_AUTHORISED)
        result = launch_complete(lti_launch=lti_launch, quiz=quiz)
    except NoQuiz as exc:
        return _page(400, "No quiz for this link", str(exc))
    except Conflict as exc:
        return _page(409, "This quiz cannot be started", str(exc))
    _sign_in(request, result.user, lti_launch)
    if result.teaching:
        return _see_other(_teaching_landing(result))
    return _see_other(reverse("attempt-detail", args=[result.attempt.pk]))


def _teaching_landing(result) -> str:
    """The quiz's teaching page; but a teacher the launch gave no role (it had no LMS
    context to scope one to) and who has none lands on the quiz's course page, which
    every signed-in user may read, instead of a 404."""
    quiz = result.quiz
    if quiz.course is not None and not user_can_manage_quiz(user=result.user, quiz=quiz):
        return reverse("course-detail", args=[quiz.course.slug])
    return reverse("quiz-items", args=[quiz.pk])


def _sign_in(request, user, lti_launch: LtiLaunch) -> None:
    """Signs the user in and marks the session as launched by this platform: its pages
    may then be framed by the platform's origins, and its cookies are sent cross-site
    (lti.middleware)."""
    # The session names the site's one backend (settings.AUTHENTICATION_BACKENDS), which
    # reads the user back on every request; the launch itself checked who this is.
    login(request, user, backend=settings.AUTHENTICATION_BACKENDS[0])
    registration = lti_launch.deployment.registration
    request.session[FRAME_ORIGINS] = origins_of(registration.issuer, registration.auth_url)


def _see_other(url: str) -> HttpResponseRedirect:
    """303: the browser GETs the page, so a reload never re-posts the launch."""
    response = HttpResponseRedirect(url)
    response.status_code = 303
    return response


def _deep_linking_launch(request, message_launch, lti_launch) -> HttpResponse:
    """Only teaching roles place content: anyone else is refused before any write."""
    if not is_teaching(lti_launch.roles_claim):
        log.info("LTI deep linking refused: not a teaching role")
        return _page(403, "Deep linking refused", "Only instructors can add Burn-in quizzes.")
    user = deep_link_begin(lti_launch=lti_launch)
    _sign_in(request, user, lti_launch)
    launch_id = deep_link_keep(request, message_launch, user, lti_launch.deployment)
    return _see_other(reverse("lti-deep-link", args=[launch_id]))


@lti_frameable
@require_http_methods(["GET", "POST"])
def deep_link(request, launch_id: str):
    """The picker: GET lists the quizzes the instructor may link; POST of one answers
    the platform with the signed response (an auto-submitting form to its return URL)
    and uses the launch up. Another session or user: 404."""
    message_launch = deep_link_restore(request, launch_id)
    deployment = deep_link_deployment(request, launch_id) if message_launch else None
    if deployment is None:
        return _page(404, "No deep-linking request", "Start again from your LMS.")
    quizzes = linkable_quizzes(user=request.user, deployment=deployment)
    if request.method == "POST":
        choice = request.POST.get("quiz", "")
        quiz = quizzes.filter(pk=int(choice)).first() if choice.isdigit() else None
        if quiz is None:
            return _page(400, "Choose a quiz", "Pick one of the listed quizzes.")
        token = deep_link_response_jwt(message_launch, quiz, _launch_url(request))
        deep_link_placed(deployment=deployment, quiz=quiz)
        deep_link_forget(request, launch_id)
        return deep_link_response_page(message_launch, token)
    context = {
        "quizzes": quizzes,
        "instructs": instructs_a_course(user=request.user),
        "authorised": authorised_courses(deployment=deployment),
    }
    return render(request, "lti/deep_link_picker.html", context)


@require_GET
def dynamic_register(request, token: str):
    """LTI Dynamic Registration: the LMS opens this one-time URL in its registration
    window (lti.dynamic_registration). The page may be framed by the LMS that opened it;
    on success it posts `org.imsglobal.lti.close` to that window."""
    config_url = request.GET.get("openid_configuration") or None
    try:
        registration = dynamic_registration.register(
            token=token,
            openid_configuration=config_url,
            registration_token=request.GET.get("registration_token") or None,
            absolute=lambda name: request.build_absolute_uri(reverse(name)),
        )
    except dynamic_registration.Refused as err:
        response = render(
            request, "lti/registration_refused.html", {"reason": err.reason}, status=err.status
        )
    else:
        courses = registration.burnin_invite.courses.order_by("title")
        response = render(request, "lti/registered.html", {"courses": courses})
    response.xframe_options_exempt = True
    response._csp_replace = {"frame-ancestors": origins_of(config_url or "") or ["'none'"]}
    response["Cache-Control"] = "no-store"
    return response
