"""An LMS launches the tool inside an iframe, in chromium: the learner lands on the
attempt page in the frame and answers a question there (a CSRF-protected POST), so the
session and CSRF cookies travel in the cross-site frame; a page outside the LTI flow is
refused in the same frame, and the attempt page then loads there again.

The tool is the live server at http://localhost:<port>; the LMS is another *site*,
http://127.0.0.1:<other port>, a tiny http.server thread (`lms_server`: why not
page.route()) with a course page framing the tool's OIDC login and the auth endpoint,
which answers the tool's redirect with the auto-submitting id_token form an LMS sends.
Chromium treats both origins as secure contexts, so `Secure` cookies work over http. The
LMS's key set is served to the tool in-process (the live server runs in this process),
as in tests/lti/conftest.py.

Run twice: with chromium's defaults, and with third-party cookies blocked by switch.
(Debian's chromium 156 under Playwright already refuses unpartitioned third-party
cookies by default: without `Partitioned` both runs fail at the launch, whose state
cookie never comes back.)"""

from __future__ import annotations

import html
import re
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from lti_tool.models import Key

from assess.models import Attempt, Response
from tests.factories import CourseFactory, QuizFactory
from tests.frontend.browser.conftest import CHROMIUM, FLAGS
from tests.frontend.helpers import right_text
from tests.lti.conftest import CLAIM, CLIENT_ID, DEPLOYMENT, Platform, register_lms

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ATTEMPT_PAGE = re.compile(r"/attempts/\d+/$")
PROBE_COOKIES = """() => {
    document.cookie = "plain=1; SameSite=None; Secure; Path=/";
    document.cookie = "chips=1; SameSite=None; Secure; Partitioned; Path=/";
    return document.cookie;
}"""
# Chromium's switch for blocking third-party cookies as its planned phase-out would.
BLOCK_3PC = "--test-third-party-cookie-phaseout"


@pytest.fixture(params=["default", "3pc-blocked"])
def lti_page(request, browser, live_server):
    """A page in a fresh context: of the module's browser, or of one started with
    third-party cookies blocked."""
    if request.param == "default":
        context = browser.new_context(base_url=live_server.url)
        yield context.new_page(), request.param
        context.close()
        return
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium")
    blocking = browser.browser_type.launch(
        executable_path=str(CHROMIUM), headless=True, args=[*FLAGS, BLOCK_3PC]
    )
    context = blocking.new_context(base_url=live_server.url)
    yield context.new_page(), request.param
    context.close()
    blocking.close()


class IframeLms:
    """The LMS at `origin`: a course page framing the tool, and the OIDC auth endpoint
    answering with an id_token signed by `platform`'s key (tests.lti.conftest.Platform)
    in the auto-submitting form an LMS sends."""

    def __init__(self, origin: str, tool: str, platform: Platform):
        self.origin, self.tool, self.platform = origin, tool, platform
        self.launch_url = tool + "/lti/launch/"
        self.auth_requests: list[dict] = []

    def page(self, path: str, query: dict) -> str | None:
        if path == "/lms/course":
            return self.course_page()
        if path == "/lms/auth":
            return self.auth(query)
        return None

    def course_page(self) -> str:
        login = (
            self.tool
            + "/lti/login/?"
            + urlencode(
                {
                    "iss": self.origin,
                    "login_hint": "learner-hint",
                    "target_link_uri": self.launch_url,
                    "client_id": CLIENT_ID,
                    "lti_deployment_id": DEPLOYMENT,
                }
            )
        )
        return (
            "<!doctype html><title>LMS course</title><h1>LMS course</h1>"
            f'<iframe id="tool" src="{html.escape(login)}" width="1000" height="700"></iframe>'
        )

    def auth(self, query: dict) -> str:
        self.auth_requests.append(query)
        claims = self.platform.claims(
            query["nonce"], iss=self.origin, **{CLAIM + "target_link_uri": self.launch_url}
        )
        fields = {"id_token": self.platform.sign(claims), "state": query["state"]}
        inputs = "".join(
            f'<input type="hidden" name="{k}" value="{html.escape(v)}">' for k, v in fields.items()
        )
        return (
            f'<!doctype html><form method="post" action="{html.escape(query["redirect_uri"])}">'
            f"{inputs}</form><script>document.forms[0].submit()</script>"
        )


@contextmanager
def lms_server(make_lms):
    """A real HTTP server on 127.0.0.1 (its own port) serving `make_lms(origin)`'s pages.

    Not Playwright's page.route(): a route sees only the first URL of a redirect chain,
    and the auth URL is reached by the tool's redirect; and chromium's local network
    access checks treat a route-fulfilled document as public, blocking its navigation
    to the tool on localhost."""
    lms = None

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            parts = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            body = lms.page(parts.path, query)
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write((body or "not found").encode())

        def log_message(self, *args):
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    lms = make_lms(f"http://127.0.0.1:{server.server_port}")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield lms
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _register(lms_origin: str, course) -> None:
    """The LMS's registration and deployment (authorised for `course`), as
    tests/lti/conftest.py makes them, with the LMS's origin as issuer; its key set is
    Platform.serve_keyset's URL."""
    Key.objects.generate()
    register_lms(
        name="Iframe LMS",
        issuer=lms_origin,
        auth_url=lms_origin + "/lms/auth",
        token_url=lms_origin + "/lms/token",
        courses=[course],
    )


def test_a_learner_launched_in_an_lms_iframe_answers_a_question(lti_page, live_server, monkeypatch):
    page, kind = lti_page
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    tool = live_server.url
    assert urlsplit(tool).hostname == "localhost"
    quiz = QuizFactory(course=CourseFactory(slug="iframe-course"), title="Memory drill")
    platform = Platform(client=None, quiz=quiz)
    monkeypatch.setattr("lti.keysets.requests.get", platform.serve_keyset)
    landings = []
    page.on("response", lambda r: landings.append(r) if ATTEMPT_PAGE.search(r.url) else None)

    with lms_server(lambda origin: IframeLms(origin, tool, platform)) as lms:
        assert urlsplit(lms.origin).hostname == "127.0.0.1"  # another site than the tool
        _register(lms.origin, quiz.course)
        page.goto(lms.origin + "/lms/course")
        frame = page.frame_locator("#tool")
        frame.get_by_role("heading", name="Memory drill").wait_for()
        [auth] = lms.auth_requests  # the tool's redirect reached the LMS's auth endpoint
        assert auth["redirect_uri"] == tool + "/lti/launch/"

    # The learner's attempt page, framed by the LMS's origin and by nothing else.
    attempt = Attempt.objects.get(quiz=quiz)
    assert attempt.learner.username.startswith("lti-")
    assert landings[-1].url == f"{tool}/attempts/{attempt.pk}/"
    headers = landings[-1].all_headers()
    assert "x-frame-options" not in headers
    policy = dict(
        d.strip().partition(" ")[::2] for d in headers["content-security-policy"].split(";")
    )
    assert policy["frame-ancestors"] == lms.origin
    assert policy["script-src"] == "'self'"  # the rest of the site's policy stays

    # Answer inside the frame: htmx POSTs the form with its CSRF token, which only
    # passes when the frame sends the session and CSRF cookies back.
    question = attempt.questions.order_by("order").first()
    part = question.answers[0]
    frame.get_by_label(f"Weights memory ({part['unit']})").fill(right_text(part))
    with page.expect_response(lambda r: r.url.endswith("/answer/")) as posted:
        frame.get_by_role("button", name="Check answer").click()
    assert posted.value.status == 200
    frame.locator(".feedback.ok").wait_for()
    assert Response.objects.get(question=question).correct is True
    if kind == "3pc-blocked":
        # The frame really is refused unpartitioned cookies: only CHIPS ones stick.
        cookies = page.frame(url=f"{tool}/attempts/{attempt.pk}/").evaluate(PROBE_COOKIES)
        assert "plain=1" not in cookies and "chips=1" in cookies

    # A page outside the LTI flow, in the same frame: served with X-Frame-Options DENY,
    # so chromium shows its error page instead.
    def tool_frame_navigated(f):
        return f.parent_frame is page.main_frame

    with (
        page.expect_event("framenavigated", predicate=tool_frame_navigated) as navigated,
        page.expect_response(lambda r: r.url == tool + "/") as home,
    ):
        page.evaluate("url => { document.getElementById('tool').src = url }", tool + "/")
    assert home.value.all_headers()["x-frame-options"] == "DENY"
    assert navigated.value.url == "chrome-error://chromewebdata/"
    assert frame.get_by_role("heading", name="Memory drill").count() == 0
    # ...while the attempt page loads again in the very same frame.
    page.evaluate("url => { document.getElementById('tool').src = url }", landings[-1].url)
    frame.get_by_role("heading", name="Memory drill").wait_for()
    assert errors == [], errors
