"""Deep linking (LTI-DL 2.0): keeping a validated deep-linking launch between the
launch and the instructor's choice, and the signed LtiDeepLinkingResponse.

The launch is kept in the instructor's session (pylti1p3's session launch storage, read
back with `from_cache`) together with the id of the user it signed in: another browser,
or another user in this one, finds nothing (404). A launch answers once: the response
uses it up, so a second choice cannot send the platform a second item.
"""

from __future__ import annotations

from django.http import HttpResponse
from django.templatetags.static import static
from django.utils.html import escape
from lti_tool.models import LtiDeployment
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.exception import LtiException
from pylti1p3.lineitem import LineItem

from assess.models import Quiz
from lti.framing import origins_of
from lti.launch import DL_SETTINGS, HardenedMessageLaunch
from lti.tool_config import ReadOnlyToolConfig

DL_DATA = "https://purl.imsglobal.org/spec/lti-dl/claim/data"


def _owner_key(launch_id: str) -> str:
    return f"{launch_id}-user"


def _deployment_key(launch_id: str) -> str:
    return f"{launch_id}-deployment"


def deep_link_keep(request, message_launch: HardenedMessageLaunch, user, deployment) -> str:
    """Keeps the validated launch in the (signed-in) session, with the deployment it came
    from (what it may place depends on it); returns its id."""
    launch_id = message_launch.get_launch_id()
    message_launch.get_session_service().save_launch_data(
        launch_id, message_launch.get_launch_data()
    )
    request.session[_owner_key(launch_id)] = user.pk
    request.session[_deployment_key(launch_id)] = deployment.pk
    return launch_id


def deep_link_deployment(request, launch_id: str) -> LtiDeployment | None:
    """The active deployment the kept launch came from (None once it was deactivated)."""
    pk = request.session.get(_deployment_key(launch_id))
    return LtiDeployment.objects.active().filter(pk=pk).first() if pk is not None else None


def deep_link_restore(request, launch_id: str) -> HardenedMessageLaunch | None:
    """The kept launch, if it is in this session and the signed-in user is the one it
    signed in; None otherwise (also when its registration was deactivated since)."""
    if not request.user.is_authenticated or not launch_id.startswith("lti1p3-launch-"):
        return None
    if request.session.get(_owner_key(launch_id)) != request.user.pk:
        return None
    try:
        message_launch = HardenedMessageLaunch.from_cache(launch_id, request, ReadOnlyToolConfig())
    except LtiException:
        return None
    return message_launch if message_launch.is_deep_link_launch() else None


def deep_link_forget(request, launch_id: str) -> None:
    for key in (launch_id, _owner_key(launch_id), _deployment_key(launch_id)):
        request.session.pop(key, None)


def deep_link_response_jwt(message_launch: HardenedMessageLaunch, quiz: Quiz, url: str) -> str:
    """The signed LtiDeepLinkingResponse placing one ltiResourceLink to `quiz`: signed
    with our active tool key under its kid (pylti1p3's DeepLink, from django-lti's
    registration), iss our client id, aud the platform, a fresh nonce, iat/exp, the
    launch's deployment id. The quiz id travels in `custom` (so an LMS course copy keeps
    working) and as the line item's resourceId; scoreMaximum is its total points
    (`quiz.total_points`, from lti.selectors). `data` goes back unchanged, and only when
    the request had it."""
    resource = (
        DeepLinkResource()
        .set_url(url)
        .set_title(quiz.title)
        .set_custom_params({"quiz_id": str(quiz.pk)})
        .set_lineitem(
            LineItem()
            .set_score_maximum(quiz.total_points)
            .set_label(quiz.title)
            .set_resource_id(str(quiz.pk))
        )
    )
    deep_link = message_launch.get_deep_link()
    message = deep_link.get_message_jwt([resource])
    if "data" not in message_launch.get_launch_data()[DL_SETTINGS]:
        del message[DL_DATA]
    return deep_link.encode_jwt(message)


def deep_link_response_page(message_launch: HardenedMessageLaunch, token: str) -> HttpResponse:
    """The page that posts the response to the platform (pylti1p3's own form does not
    escape the return URL). Its auto-submit is a static script (the content security
    policy refuses inline ones), and its policy lets forms post to the return URL's
    origin besides our own (form-action), which nothing else may."""
    url = message_launch.get_launch_data()[DL_SETTINGS]["deep_link_return_url"]
    response = HttpResponse(
        "<!doctype html><title>Returning to your LMS</title>"
        f'<form id="lti-deep-link" action="{escape(url)}" method="post">'
        f'<input type="hidden" name="JWT" value="{escape(token)}">'
        '<noscript><button type="submit">Continue</button></noscript></form>'
        f'<script src="{escape(static("lti/deep-link-submit.js"))}"></script>'
    )
    # django-csp's per-response update (what its csp_update decorator sets), for an
    # origin known only now.
    response._csp_update = {"form-action": origins_of(url)}
    return response
