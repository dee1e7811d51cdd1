"""Every page runs under the content security policy with nothing it would refuse: no
inline <script>, no on* handler, no style attribute or <style>, no javascript: URL; every
page carries the policy and the security headers; every form that posts carries its CSRF
token, and every page whose htmx posts sends X-CSRFToken (hx-headers)."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from tests.accounts.pages import account_pages
from tests.policy import csp_directives

pytestmark = pytest.mark.django_db

STRICT = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}


class PolicyAudit(HTMLParser):
    """What of a page the policy would refuse, and its posting forms and htmx posts."""

    def __init__(self):
        super().__init__()
        self.refused: list[str] = []
        self.post_forms = 0
        self.tokens_in_post_forms = 0
        self.htmx_posts = 0
        self.hx_headers: list[str] = []
        self._in_post_form = False
        self._in_inline_script = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for name, value in attrs:
            if name.startswith("on"):
                self.refused.append(f"<{tag} {name}=...>")
            if name == "style":
                self.refused.append(f"<{tag} style=...>")
            if name in ("href", "src", "action") and (value or "").strip().lower().startswith(
                "javascript:"
            ):
                self.refused.append(f"<{tag} {name}=javascript:>")
        if tag == "script" and not a.get("src"):
            self._in_inline_script = True
            self.refused.append("<script> without src")
        if tag == "style":
            self.refused.append("<style>")
        if tag == "form" and (a.get("method") or "").lower() == "post":
            self.post_forms += 1
            self._in_post_form = True
        if tag == "input" and self._in_post_form and a.get("name") == "csrfmiddlewaretoken":
            self.tokens_in_post_forms += 1
            self._in_post_form = False  # one token per form is what counts
        if any(k in a for k in ("hx-post", "hx-put", "hx-patch", "hx-delete")):
            self.htmx_posts += 1
        if "hx-headers" in a:
            self.hx_headers.append(a["hx-headers"])

    def handle_endtag(self, tag):
        if tag == "form":
            self._in_post_form = False


def audit(html: str) -> PolicyAudit:
    parser = PolicyAudit()
    parser.feed(html)
    return parser


@pytest.fixture
def responses(client, learner, instructor, staff, practice, exam_attempt, exam):
    """The main pages, as learner, instructor, staff and signed out."""
    client.force_login(learner)
    urls = [
        "/",
        "/courses/",
        "/courses/ai-infra/",
        "/lessons/gpu-memory-math/",
        "/dashboard/",
        "/quizzes/",
        f"/attempts/{practice.attempt.pk}/q/{practice.question.pk}/",
        f"/attempts/{exam_attempt.pk}/",
        f"/attempts/{exam_attempt.pk}/q/{exam_attempt.questions.first().pk}/",
        "/certify/",
        "/hardware/",
        "/hardware/compare/",
        "/hardware/roofline/",
    ]
    out = {url: client.get(url) for url in urls}
    client.force_login(instructor)
    for url in (
        "/teach/",
        "/teach/quizzes/new/",
        f"/teach/quizzes/{exam.pk}/",
        f"/teach/quizzes/{exam.pk}/items/",
        f"/teach/quizzes/{exam.pk}/gradebook/",
        "/teach/courses/ai-infra/progress/",
        "/teach/courses/ai-infra/learners/",
    ):
        out["teach:" + url] = client.get(url)
    client.force_login(staff)
    out["/admin/"] = client.get("/admin/")
    client.logout()
    for url in ("/api/docs/", "/admin/login/"):
        out[url] = client.get(url)
    out.update(account_pages(learner))
    return out


def test_every_page_carries_the_strict_policy_and_the_security_headers(responses):
    for url, response in responses.items():
        assert response.status_code == 200, url
        assert csp_directives(response) == STRICT, url
        assert response["X-Content-Type-Options"] == "nosniff", url
        assert response["Referrer-Policy"] == "same-origin", url
        assert response["Cross-Origin-Opener-Policy"] == "same-origin", url
        assert response["X-Frame-Options"] == "DENY", url


def test_no_page_holds_what_the_policy_would_refuse(responses):
    refused = {}
    for url, response in responses.items():
        found = audit(response.content.decode()).refused
        if found:
            refused[url] = found
    assert refused == {}


def test_every_posting_form_has_its_token_and_htmx_posts_send_it(responses):
    forms = 0
    for url, response in responses.items():
        page = audit(response.content.decode())
        assert page.tokens_in_post_forms == page.post_forms, url
        forms += page.post_forms
        if page.htmx_posts:
            token = response.context["csrf_token"]
            assert any(f'"X-CSRFToken": "{token}"' in h for h in page.hx_headers), url
    assert forms >= 10  # the walk reaches the pages with forms (answers, builder, sign-in)


def test_the_audit_sees_what_it_looks_for():
    """The parser itself: each kind of refused markup is caught."""
    page = audit(
        '<script>alert(1)</script><script src="/static/x.js"></script>'
        '<button onclick="go()">x</button><p style="color:red">y</p><style>p{}</style>'
        '<a href="javascript:go()">z</a>'
        '<form method="post"><input name="q"></form>'
        '<form method="post"><input type="hidden" name="csrfmiddlewaretoken" value="t"></form>'
    )
    assert page.refused == [
        "<script> without src",
        "<button onclick=...>",
        "<p style=...>",
        "<style>",
        "<a href=javascript:>",
    ]
    assert (page.post_forms, page.tokens_in_post_forms) == (2, 1)


def test_the_swagger_page_loads_its_set_up_script_as_a_file(client):
    page = client.get("/api/docs/").content.decode()
    assert '<script src="/api/docs/?script="></script>' in page
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert b"SwaggerUIBundle" in script.content and b'"/api/schema/"' in script.content
