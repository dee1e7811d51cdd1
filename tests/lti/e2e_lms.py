"""An LMS for the end-to-end test: lti1p3platform 0.1.8 (an independent implementation)
behind real HTTP routes under /lms/, served by the same live server as the tool but
reached as http://127.0.0.1:<port> while the tool is http://localhost:<port> (two sites,
two cookie jars). Its OIDC auth endpoint answers the tool's login redirect with a signed
launch (its MessageLaunch), its token endpoint verifies our client assertion against the
key set it fetches from the tool over HTTP, its AGS handlers keep a gradebook, and its
deep-linking return validates the tool's signed response. Test-only: this urlconf is
never the project's (tests set ROOT_URLCONF to it)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from html import escape

from django.http import HttpResponse, JsonResponse
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request

from tests.lti.lms_services import MemoryGradebook, query_params

CLIENT_ID = "e2e-client"
DEPLOYMENT = "e2e-deployment"
CONTEXT = "lms-course-1"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"


@dataclass
class LmsState:
    """What the LMS knows and has recorded; reset by the test."""

    lms_url: str = ""  # http://127.0.0.1:<port>/lms
    tool_url: str = ""  # http://localhost:<port>
    private_pem: str = ""
    public_pem: str = ""
    published: list = field(default_factory=list)  # public PEMs in the key set
    launch: dict = field(default_factory=dict)  # who launches what, set per launch
    line_items: dict = field(default_factory=dict)
    scores: list = field(default_factory=list)
    token_requests: int = 0
    refuse_tokens: int = 0  # answer the next N service calls with 401
    deep_link_items: list | None = None
    not_in_course: set = field(default_factory=set)

    @property
    def issuer(self) -> str:
        return self.lms_url


STATE = LmsState()


class Conf(LTI1P3PlatformConfAbstract):
    def init_platform_config(self, **kwargs):
        self._registration = (
            Registration()
            .set_iss(STATE.issuer)
            .set_client_id(CLIENT_ID)
            .set_deployment_id(DEPLOYMENT)
            .set_oidc_login_url(f"{STATE.tool_url}/lti/login/")
            .set_launch_url(f"{STATE.tool_url}/lti/launch/")
            .set_deeplink_launch_url(f"{STATE.tool_url}/lti/launch/")
            .set_platform_private_key(STATE.private_pem)
            .set_platform_public_key(STATE.public_pem)
            .set_tool_key_set_url(f"{STATE.tool_url}/lti/jwks/")
        )

    def get_registration_by_params(self, **kwargs):
        return self._registration


class DjangoRequest(Request):
    def build_metadata(self, request):
        is_json = "json" in (request.content_type or "")
        return {
            "method": request.method,
            "form_data": request.POST.dict(),
            "get_data": query_params(request.GET.items()),
            "headers": dict(request.headers),
            "content_type": request.content_type,
            "path": request.path,
            "json": json.loads(request.body) if is_json and request.body else None,
        }


class Launch(LTIAdvantageMessageLaunchAbstract):
    def render_launch_form(self, launch_data, **kwargs):
        # the auto-submit form an LMS serves (its Django helper needs pkg_resources)
        fields = "".join(
            f'<input type="hidden" name="{name}" value="{escape(launch_data[name])}">'
            for name in ("id_token", "state")
        )
        return HttpResponse(
            f'<form id="launch" action="{escape(launch_data["launch_url"])}" '
            f'method="post">{fields}</form>'
        )


def auth(request):
    """OIDC authorization: the tool's login redirected the browser here."""
    who = STATE.launch
    launch = Launch(DjangoRequest(request), Conf())
    launch.set_user_data(who["sub"], who["roles"], full_name=who.get("name"))
    launch.set_launch_context_claim(who.get("context", CONTEXT), context_title="LMS course")
    if who.get("deep_link"):
        launch.set_dl(f"{STATE.lms_url}/deep-link/return", accept_types={"ltiResourceLink"})
    else:
        launch.set_resource_link_claim(who["link"], title="Burn-in quiz")
        launch.set_custom_parameters_claim({"quiz_id": str(who["quiz_id"])})
    launch.set_ags(f"{STATE.lms_url}/contexts/{CONTEXT}/lineitems")
    return launch.lti_launch()


def keyset(request):
    return JsonResponse({"keys": [Registration.get_jwk(pem) for pem in STATE.published]})


@csrf_exempt
def token(request):
    STATE.token_requests += 1
    return JsonResponse(Conf().get_access_token(request.POST.dict()))


def _as_response(response) -> HttpResponse:
    body = json.dumps(response.result) if response.result is not None else ""
    return HttpResponse(body, status=response.code, content_type=response.media_type)


@csrf_exempt
def lineitems(request, item: str | None = None):
    if STATE.refuse_tokens:
        STATE.refuse_tokens -= 1
        return JsonResponse({"error": "invalid_token"}, status=401)
    service = MemoryGradebook(
        DjangoRequest(request), Conf(), STATE, f"{STATE.lms_url}/contexts/{CONTEXT}/lineitems"
    )
    if item is not None:
        line_item = f"{STATE.lms_url}/contexts/{CONTEXT}/lineitems/{item}"
        return _as_response(
            service.handle_resp(service.handle_update_score, line_item_id=line_item)
        )
    handler = (
        service.handle_create_lineitem
        if request.method == "POST"
        else (service.handle_get_lineitems)
    )
    return _as_response(service.handle_resp(handler))


@csrf_exempt
def deep_link_return(request):
    conf = Conf()
    conf.get_registration()
    STATE.deep_link_items = conf.validate_deeplinking_resp({"JWT": request.POST["JWT"]})
    return HttpResponse("linked")


lms_patterns = [
    path("auth", auth),
    path("jwks", keyset),
    path("token", token),
    path(f"contexts/{CONTEXT}/lineitems", lineitems),
    path(f"contexts/{CONTEXT}/lineitems/<str:item>/scores", lineitems),
    path("deep-link/return", deep_link_return),
]

urlpatterns = [path("lms/", include(lms_patterns)), path("", include("config.urls"))]
