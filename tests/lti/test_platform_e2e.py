"""End to end over real HTTP, against lti1p3platform as the LMS (tests/lti/e2e_lms.py):
a learner launch, a finished quiz and the score in the LMS gradebook under the
learner's `sub` (with the LMS refusing our first token once); an instructor launch;
deep linking verified by the platform; a platform key rotation. The browser is a
requests session that follows the LMS's and the tool's redirects and posts their forms,
one cookie jar per site (the LMS at 127.0.0.1, the tool at localhost)."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import urlsplit

import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.apps import apps as django_apps
from django.core.cache import cache
from lti_tool.models import Key, LtiDeployment, LtiRegistration

from assess.models import Attempt, CourseRole
from assess.services.attempts import attempt_finish
from assess.services.responses import response_submit
from capstone.models import Memo, MemoDecision
from capstone.services import CAPSTONE_COURSE, memo_submit
from lti.models import DeploymentCourse
from tests.assess.helpers import correct_text
from tests.factories import CourseFactory, QuizFactory
from tests.lti import e2e_lms
from tests.lti.e2e_lms import CLIENT_ID, DEPLOYMENT, INSTRUCTOR, LEARNER, STATE, LmsState

pytestmark = pytest.mark.django_db(transaction=True)


class Browser(requests.Session):
    """Browsers treat http://localhost as a secure context and send Secure cookies to
    it; http.cookiejar does not (and requests copies the jar, policy and all, for each
    request), so the tool's Secure cookies are kept as a browser would use them here."""

    def request(self, *args, **kwargs):
        response = super().request(*args, **kwargs)
        for cookie in self.cookies:
            if cookie.domain.startswith("localhost"):
                cookie.secure = False
        return response


def key_pair() -> tuple[str, str]:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private_pem = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public_pem = (
        private.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private_pem, public_pem


@pytest.fixture
def lms(live_server, settings, quiz):
    settings.ROOT_URLCONF = "tests.lti.e2e_lms"
    cache.clear()
    port = urlsplit(live_server.url).port
    private_pem, public_pem = key_pair()
    state = LmsState(
        lms_url=f"http://127.0.0.1:{port}/lms",
        tool_url=f"http://localhost:{port}",
        private_pem=private_pem,
        public_pem=public_pem,
        published=[public_pem],
    )
    e2e_lms.STATE.__dict__.update(state.__dict__)
    Key.objects.generate()
    registration = LtiRegistration.objects.create(
        name="lti1p3platform",
        issuer=STATE.issuer,
        client_id=CLIENT_ID,
        auth_url=f"{STATE.lms_url}/auth",
        token_url=f"{STATE.lms_url}/token",
        keyset_url=f"{STATE.lms_url}/jwks",
    )
    deployment = LtiDeployment.objects.create(
        registration=registration, deployment_id=DEPLOYMENT, is_active=True
    )
    DeploymentCourse.objects.create(deployment=deployment, course=quiz.course)
    return STATE


@pytest.fixture
def quiz():
    return QuizFactory(
        course=CourseFactory(slug="e2e"), title="Memory drill", slots=[["gb-gib"], ["gb-gib"]]
    )


def browser() -> requests.Session:
    return Browser()


def form_of(response) -> tuple[str, dict]:
    html = response.text
    action = unescape(re.search(r'<form[^>]*action="([^"]+)"', html).group(1))
    fields = {
        unescape(name): unescape(value)
        for name, value in re.findall(r'<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"', html)
    }
    return action, fields


def launch(session, **who) -> requests.Response:
    """The whole dance: the LMS sends the browser to the tool's login, the tool to the
    LMS's auth endpoint, the LMS's form posts the signed launch to the tool."""
    STATE.launch = who
    login = session.get(
        f"{STATE.tool_url}/lti/login/",
        params={
            "iss": STATE.issuer,
            "login_hint": who["sub"],
            "target_link_uri": f"{STATE.tool_url}/lti/launch/",
            "client_id": CLIENT_ID,
            "lti_deployment_id": DEPLOYMENT,
        },
        allow_redirects=False,
    )
    assert login.status_code == 302, login.text
    assert login.headers["Location"].startswith(f"{STATE.lms_url}/auth?")
    auth = session.get(login.headers["Location"])
    assert auth.status_code == 200, auth.text
    action, fields = form_of(auth)
    assert action == f"{STATE.tool_url}/lti/launch/"
    return session.post(action, data=fields, allow_redirects=False)


def finish_every_part_right(attempt: Attempt) -> None:
    for question in attempt.questions.all():
        for part in question.answers:
            response_submit(
                attempt=attempt,
                question=question,
                part=part["name"],
                text=correct_text(part),
                idempotency_key=f"{question.pk}-{part['name']}",
            )
    attempt_finish(attempt=attempt)  # commits: the grade is released, the score sent


def test_a_learner_launch_ends_with_the_score_in_the_lms_gradebook(lms, quiz):
    learner = browser()
    response = launch(learner, sub="lms-user-42", roles=[LEARNER], link="link-1", quiz_id=quiz.pk)
    assert response.status_code == 303, response.text
    attempt = Attempt.objects.get()
    assert response.headers["Location"] == f"/attempts/{attempt.pk}/"
    page = learner.get(f"{STATE.tool_url}{response.headers['Location']}")
    assert page.status_code == 200 and "Memory drill" in page.text

    lms.refuse_tokens = 1  # the LMS refuses our first token once
    finish_every_part_right(attempt)

    (item_url,) = lms.line_items
    assert lms.line_items[item_url]["resourceId"] == str(quiz.pk)
    ((scored_item, score),) = lms.scores
    assert scored_item == item_url
    assert score["userId"] == "lms-user-42"
    assert (score["scoreGiven"], score["scoreMaximum"]) == (2, 2)
    assert lms.token_requests == 2  # refused once, fetched again


def test_an_instructor_launch_and_deep_linking(lms, quiz):
    teacher = browser()
    response = launch(
        teacher, sub="lms-teacher", roles=[INSTRUCTOR], link="link-1", quiz_id=quiz.pk
    )
    assert response.status_code == 303, response.text
    assert response.headers["Location"] == f"/teach/quizzes/{quiz.pk}/items/"
    assert not Attempt.objects.exists()

    picker = launch(teacher, sub="lms-teacher", roles=[INSTRUCTOR], deep_link=True)
    assert picker.status_code == 303, picker.text
    page = teacher.get(f"{STATE.tool_url}{picker.headers['Location']}")
    assert page.status_code == 200 and "Memory drill" in page.text
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    answer = teacher.post(
        page.url,
        data={"csrfmiddlewaretoken": token, "quiz": str(quiz.pk)},
        headers={"Referer": page.url},
    )
    assert answer.status_code == 200, answer.text
    action, fields = form_of(answer)
    assert action == f"{STATE.lms_url}/deep-link/return"
    linked = teacher.post(action, data=fields)
    assert linked.status_code == 200 and linked.text == "linked"
    (item,) = lms.deep_link_items  # verified by lti1p3platform with our published key
    assert item["type"] == "ltiResourceLink"
    assert item["custom"] == {"quiz_id": str(quiz.pk)}
    assert item["lineItem"]["scoreMaximum"] == 2


def test_a_platform_key_rotation_keeps_launches_working(lms, quiz):
    first = launch(browser(), sub="lms-user-1", roles=[LEARNER], link="link-1", quiz_id=quiz.pk)
    assert first.status_code == 303
    new_private, new_public = key_pair()
    lms.published = [lms.public_pem, new_public]  # the old key stays published a while
    lms.private_pem, lms.public_pem = new_private, new_public
    second = launch(browser(), sub="lms-user-2", roles=[LEARNER], link="link-1", quiz_id=quiz.pk)
    assert second.status_code == 303, second.text
    assert Attempt.objects.count() == 2


@pytest.fixture
def capstone_quiz():
    """A quiz of the capstone's course, which this LMS's deployment is not authorised for."""
    return QuizFactory(course=CourseFactory(slug=CAPSTONE_COURSE), title="Capstone check")


def _tables() -> dict[str, int]:
    return {m._meta.label: m.objects.count() for m in django_apps.get_models()}


def test_self_approval_through_an_lms_course_of_ones_own_is_refused(lms, quiz, capstone_quiz):
    """The probe's path, end to end: a learner who can make a course in a registered
    LMS launches as its Instructor with a quiz of a course the deployment was never
    authorised for. Refused (403) before anything is written: no user, no role, no
    session. Then, were staff to authorise that course, the launch makes them a scoped
    instructor, and still they cannot decide on their own memo."""
    me = browser()
    who = dict(sub="sly-learner", roles=[INSTRUCTOR], context="my-own-course", link="mine")
    before = _tables()
    refused = launch(me, quiz_id=capstone_quiz.pk, **who)
    assert refused.status_code == 403 and "not authorised" in refused.text
    assert _tables() == before
    assert "sessionid" not in me.cookies

    deployment = LtiDeployment.objects.get(deployment_id=DEPLOYMENT)
    DeploymentCourse.objects.create(deployment=deployment, course=capstone_quiz.course)
    assert launch(me, quiz_id=capstone_quiz.pk, **who).status_code == 303
    role = CourseRole.objects.get(course=capstone_quiz.course)
    assert role.lti_context.id_on_platform == "my-own-course"
    memo = memo_submit(learner=role.user, markdown="## Assumptions\nMine.").memo
    path = f"{STATE.tool_url}/teach/memos/{memo.pk}/"
    page = me.get(path)
    assert page.status_code == 200 and "your own memo" in page.text
    token = me.cookies.get("csrftoken") or re.search(
        r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text
    ).group(1)
    decided = me.post(
        path,
        data={"csrfmiddlewaretoken": token, "decision": "approve", "version": "1"},
        headers={"Referer": path},
    )
    assert decided.status_code == 400 and "your own memo" in decided.text
    memo.refresh_from_db()
    assert memo.status != Memo.Status.APPROVED and not MemoDecision.objects.exists()
