"""Deep linking end to end: an instructor's LtiDeepLinkingRequest at /lti/launch/ lands
(303) on our picker; picking a quiz answers the platform with a signed
LtiDeepLinkingResponse that verifies with our published key set (by PyJWT, and by
lti1p3platform's deep-link response validation, the platform's side); a resource launch
of the item it placed starts that quiz. A learner cannot deep-link, another browser or
user cannot use the instructor's picker, and a launch answers once."""

from __future__ import annotations

import re
from html import unescape

import jwt
import pytest
from django.test import Client
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.registration import Registration as PlatformRegistration
from lti_tool.models import LtiUser

from assess.models import Attempt, CourseRole
from tests.factories import CourseFactory, QuizFactory, UserFactory
from tests.lti.conftest import (
    CLAIM,
    CLIENT_ID,
    DEPLOYMENT,
    DL_RETURN_URL,
    INSTRUCTOR,
    ISS,
    LAUNCH_URL,
    LEARNER,
    row_counts,
    signed_in_user,
)
from tests.policy import csp_directives, frame_ancestors

DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"
TARGETS = {"accept_presentation_document_targets": ["iframe"]}


@pytest.fixture
def quizzes(platform):
    """The platform's quiz (1 point) in the course the teacher will instruct, a second
    quiz there (5 points), one in a course they do not instruct, a staff-made one with no
    course, and one without questions (nothing to score: not linkable)."""
    course = platform.quiz.course
    return {
        "second": QuizFactory(
            course=course,
            title="Second drill",
            slots=[["weights-memory"], {"templates": ["weights-memory"], "points": 4}],
        ),
        "foreign": QuizFactory(course=CourseFactory(), title="Foreign drill"),
        "open": QuizFactory(course=None, title="Open drill"),
        "empty": QuizFactory(course=course, title="Empty drill", slots=[]),
    }


def _teacher_instructs_the_course(platform):
    """An instructor's resource launch makes them an instructor of the quiz's course,
    scoped to the launch's LMS context: the picker offers that course's quizzes."""
    assert platform.launch(sub="teacher-sub", roles=[INSTRUCTOR]).status_code == 303


def _pick(client, picker_url, quiz_pk):
    return client.post(
        picker_url,
        {"quiz": str(quiz_pk), "csrfmiddlewaretoken": client.cookies["csrftoken"].value},
        secure=True,
        HTTP_REFERER="https://testserver" + picker_url,
    )


def _picker(platform, **kwargs):
    response = platform.deep_link_launch(**kwargs)
    assert response.status_code == 303, response.content
    url = response["Location"]
    assert re.fullmatch(r"/lti/deep-link/lti1p3-launch-[0-9a-f-]{36}/", url)
    page = platform.client.get(url, secure=True)
    assert page.status_code == 200
    return url, page


def _returned_form(response) -> tuple[str, str]:
    html = response.content.decode()
    action = re.search(r'<form[^>]* action="([^"]*)"', html).group(1)
    token = re.search(r'name="JWT" value="([^"]*)"', html).group(1)
    return unescape(action), unescape(token)


def _verify_with_our_jwks(client: Client, token: str) -> dict:
    header = jwt.get_unverified_header(token)
    keys = client.get("/lti/jwks/", secure=True).json()["keys"]
    (jwk,) = [k for k in keys if k["kid"] == header["kid"]]
    return jwt.decode(
        token,
        jwt.PyJWK(jwk).key,
        algorithms=["RS256"],
        audience=ISS,
        issuer=CLIENT_ID,
        options={"require": ["exp", "iat", "iss", "aud", "nonce"]},
    )


class _Lms(LTI1P3PlatformConfAbstract):
    """lti1p3platform's platform, knowing the tool by its published key set."""

    def init_platform_config(self, **kwargs):
        self._registration = (
            PlatformRegistration()
            .set_iss(ISS)
            .set_client_id(CLIENT_ID)
            .set_deployment_id(DEPLOYMENT)
            .set_tool_key_set(kwargs["tool_jwks"])
        )

    def get_registration_by_params(self, **kwargs):
        return self._registration


def test_an_instructor_links_a_quiz_and_the_link_starts_it(platform, quizzes):
    _teacher_instructs_the_course(platform)
    picker_url, page = _picker(platform)

    # the picker: framable by the platform, the quizzes the teacher may link
    assert "X-Frame-Options" not in page
    assert frame_ancestors(page) == ISS
    assert csp_directives(page)["script-src"] == "'self'"  # the site's policy, kept
    html = page.content.decode()
    for title in ("Memory drill", "Second drill", "Open drill"):
        assert title in html
    for title in ("Foreign drill", "Empty drill"):
        assert title not in html
    assert "instructs-nothing" not in html

    second = quizzes["second"]
    response = _pick(platform.client, picker_url, second.pk)
    assert response.status_code == 200, response.content
    assert "X-Frame-Options" not in response
    action, token = _returned_form(response)
    assert action == DL_RETURN_URL
    # It posts itself by a static script; the policy lets forms post to the LMS's return
    # origin and ours, and still refuses inline script.
    policy = csp_directives(response)
    assert policy["form-action"] == f"'self' {ISS}" and policy["script-src"] == "'self'"
    assert re.findall(r"<script[^>]*>[^<]*</script>", response.content.decode()) == [
        '<script src="/static/lti/deep-link-submit.js"></script>'
    ]

    claims = _verify_with_our_jwks(platform.client, token)
    assert claims["aud"] in (ISS, [ISS])
    assert claims["nonce"] and claims["exp"] > claims["iat"]
    assert claims[CLAIM + "deployment_id"] == DEPLOYMENT
    assert claims[CLAIM + "message_type"] == "LtiDeepLinkingResponse"
    assert claims[CLAIM + "version"] == "1.3.0"
    assert claims[DL + "data"] == "opaque-platform-data-42"
    (item,) = claims[DL + "content_items"]
    assert item["type"] == "ltiResourceLink"
    assert item["url"] == LAUNCH_URL
    assert item["title"] == "Second drill"
    assert item["custom"] == {"quiz_id": str(second.pk)}
    assert item["lineItem"] == {
        "scoreMaximum": 5,
        "label": "Second drill",
        "resourceId": str(second.pk),
    }

    # the platform verifying the signed response (lti1p3platform 0.1.8)
    lms = _Lms(tool_jwks=platform.client.get("/lti/jwks/", secure=True).json())
    assert lms.validate_deeplinking_resp({"JWT": token}) == [item]

    # the launch answered once: a second choice finds nothing
    assert _pick(platform.client, picker_url, quizzes["open"].pk).status_code == 404

    # the link the platform created, launched by a learner, starts that quiz
    learner = Client(enforce_csrf_checks=True)
    platform.client, teacher = learner, platform.client
    response = platform.launch(
        sub="learner-sub-9",
        **{CLAIM + "resource_link": {"id": "new-link"}, CLAIM + "custom": item["custom"]},
    )
    assert response.status_code == 303
    assert Attempt.objects.get().quiz == second
    assert signed_in_user(learner) == str(Attempt.objects.get().learner_id)
    assert signed_in_user(teacher) != signed_in_user(learner)


def test_the_deep_linking_launch_signs_the_instructor_in(platform):
    before = CourseRole.objects.count()
    _picker(platform)
    user = LtiUser.objects.get(sub="teacher-sub").auth_user
    assert signed_in_user(platform.client) == str(user.pk)
    assert user.username.startswith("lti-") and not user.has_usable_password()
    assert CourseRole.objects.count() == before  # no quiz yet, so no course role


def test_an_instructor_of_nothing_is_told_and_offered_open_quizzes(platform, quizzes):
    _, page = _picker(platform)
    html = page.content.decode()
    assert 'id="instructs-nothing"' in html
    assert "Open drill" in html
    assert "Memory drill" not in html and "Second drill" not in html


def test_a_quiz_not_offered_cannot_be_picked(platform, quizzes):
    _teacher_instructs_the_course(platform)
    picker_url, _ = _picker(platform)
    for choice in (quizzes["foreign"].pk, quizzes["empty"].pk, "x"):
        assert _pick(platform.client, picker_url, choice).status_code == 400
    # the launch is still there for a valid choice
    assert _pick(platform.client, picker_url, quizzes["open"].pk).status_code == 200


def test_data_absent_from_the_request_is_absent_from_the_response(platform, quizzes):
    settings = {
        "deep_link_return_url": DL_RETURN_URL,
        "accept_types": ["ltiResourceLink"],
        **TARGETS,
    }
    picker_url, _ = _picker(platform, settings=settings)
    _, token = _returned_form(_pick(platform.client, picker_url, quizzes["open"].pk))
    claims = _verify_with_our_jwks(platform.client, token)
    assert DL + "data" not in claims
    assert claims[DL + "content_items"][0]["custom"] == {"quiz_id": str(quizzes["open"].pk)}


def test_a_designer_may_deep_link(platform, quizzes):
    designer = "http://purl.imsglobal.org/vocab/lis/v2/membership#ContentDeveloper"
    _picker(platform, roles=[designer])


def test_a_learner_deep_linking_launch_is_refused_and_writes_nothing(platform, quizzes):
    before = row_counts()
    response = platform.deep_link_launch(sub="learner-sub-1", roles=[LEARNER])
    assert response.status_code == 403
    assert row_counts() == before
    assert signed_in_user(platform.client) is None


def test_another_browser_or_user_cannot_use_the_picker(platform, quizzes):
    _teacher_instructs_the_course(platform)
    picker_url, _ = _picker(platform)
    stranger = Client(enforce_csrf_checks=True)
    assert stranger.get(picker_url, secure=True).status_code == 404
    stranger.force_login(UserFactory())
    assert stranger.get(picker_url, secure=True).status_code == 404
    other = Client()  # CSRF not enforced: the session check alone refuses
    other.force_login(LtiUser.objects.get(sub="teacher-sub").auth_user)
    response = other.post(picker_url, {"quiz": str(quizzes["open"].pk)}, secure=True)
    assert response.status_code == 404  # same user, but not the launch's session
    # the instructor's own picker still works
    assert _pick(platform.client, picker_url, quizzes["open"].pk).status_code == 200


def test_the_picker_takes_no_launch(platform, quizzes):
    """A launch posted to the picker (not /lti/launch/) is refused by its CSRF check and
    writes nothing; a deep-linking message at /lti/launch/ is the documented path."""
    state, nonce = platform.login()
    token = platform.sign(platform.deep_link_claims(nonce))
    before = row_counts()
    response = platform.client.post(
        "/lti/deep-link/lti1p3-launch-00000000-0000-0000-0000-000000000000/",
        {"id_token": token, "state": state},
        secure=True,
    )
    assert response.status_code == 403
    assert row_counts() == before
    # the same token at /lti/launch/ goes to the picker
    assert platform.post(token, state).status_code == 303


def test_the_deep_link_return_url_is_escaped_in_the_form(platform, quizzes):
    url = DL_RETURN_URL + '?a=1&b="><script>x</script>'
    settings = {"deep_link_return_url": url, "accept_types": ["ltiResourceLink"], **TARGETS}
    picker_url, _ = _picker(platform, settings=settings)
    response = _pick(platform.client, picker_url, quizzes["open"].pk)
    assert "<script>x" not in response.content.decode()
    assert _returned_form(response)[0] == url


def test_the_picker_says_which_quizzes_are_drafts(platform, quizzes):
    """A draft may be linked ahead of publishing (an LMS course is often built first),
    but the instructor is told that learners cannot start it yet."""
    QuizFactory(course=platform.quiz.course, title="Draft drill", status="draft")
    _teacher_instructs_the_course(platform)
    _, page = _picker(platform)
    items = {li.split("</label>")[0] for li in page.content.decode().split("<li>")[1:]}
    (draft,) = [i for i in items if "Draft drill" in i]
    assert "a draft</strong>: learners reach it from the LMS once you publish it" in draft
    assert all("a draft" not in i for i in items if "Draft drill" not in i)
