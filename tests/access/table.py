"""One row per (route name, method): the object its URL points at, and the status per
role in world.ROLES order:

    anonymous  learner(owner)  other_learner  not_enrolled  other_instructor  other_manager  staff

`login` is the redirect to the sign-in page. Every object is the learner's (their
course, quiz, attempt, memo, certificate, team) unless the row says otherwise, so the
learner's column shows the gate letting its owner through and the next four show it
keeping others out; staff see everything."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


def NONE(w):
    return {}


@dataclass(frozen=True)
class Row:
    what: str  # the object the URL's kwargs point at, in words
    expect: str  # one status per role, space-separated
    kwargs: Callable = NONE
    query: str = ""
    data: dict | None = field(default=None)


def hardware(kind):
    def kwargs(w):
        return {"slug": w.hardware[kind]}

    return kwargs


def COURSE(w):
    return {"slug": w.course.slug}


def LESSON(w):
    return {"slug": w.lesson.slug}


def QUIZ(w):
    return {"pk": w.quiz.pk}


def DRAFT(w):
    return {"pk": w.draft.pk}


def QUIZACT(w):
    return {"pk": w.quiz.pk, "action": "close"}


def EXT(w):
    return {"pk": w.quiz.pk, "learner_id": w.users["learner"].pk}


def ATTEMPT(w):
    return {"pk": w.attempt.pk}


def QUESTION(w):
    return {"pk": w.attempt.pk, "qid": w.question.pk}


def ENROLMENT(w):
    return {"slug": w.course.slug, "username": w.users["learner"].username}


def MEMO(w):
    return {"pk": w.memo.pk}


def AUTHORED(w):
    return {"slug": w.authored.slug}


def AUTHORED_V1(w):
    return {"slug": w.authored.slug, "number": 1}


def PERSON(w):
    return {"username": w.users["learner"].username}


def TRACK(w):
    return {"slug": w.track.slug}


def CERT(w):
    return {"pk": w.certificate.pk}


def TEAM(w):
    return {"pk": w.team.pk}


def LAUNCH(w):
    return {"launch_id": "not-a-launch"}


def RESET(w):
    return {"uidb64": "MQ", "token": "bad-token"}


def RESET_KEY(w):
    return {"uidb36": "1", "key": "bad-token"}


def CONFIRM_KEY(w):
    return {"key": "not-a-key"}


def PROVIDER(w):
    return {"provider_id": w.organization.slug}


def ORG(w):
    return {"slug": w.organization.slug}


def INVITATION(w):
    return {"pk": w.invitation.pk}


def BAD_TOKEN(w):
    return {"token": "not-an-invitation-token"}


def MEMBER(w):
    return {"slug": w.organization.slug, "user_id": w.users["learner"].pk}


TABLE: dict[tuple[str, str], Row] = {
    ("schema", "GET"): Row("the OpenAPI schema", "200 - - - - - 200"),
    ("api-docs", "GET"): Row("the API docs", "200 200 200 200 200 200 200"),
    ("hardware_db:accelerator-list", "GET"): Row("the catalog", "200 200 200 200 200 200 200"),
    ("hardware_db:accelerator-detail", "GET"): Row(
        "an accelerator of the catalog", "200 200 200 200 200 200 200", hardware("accelerator")
    ),
    ("hardware_db:link-list", "GET"): Row("the catalog", "200 200 200 200 200 200 200"),
    ("hardware_db:link-detail", "GET"): Row(
        "a link of the catalog", "200 200 200 200 200 200 200", hardware("link")
    ),
    ("hardware_db:server-list", "GET"): Row("the catalog", "200 200 200 200 200 200 200"),
    ("hardware_db:server-detail", "GET"): Row(
        "a server of the catalog", "200 200 200 200 200 200 200", hardware("server")
    ),
    ("hardware_db:model-list", "GET"): Row("the catalog", "200 200 200 200 200 200 200"),
    ("hardware_db:model-detail", "GET"): Row(
        "a model of the catalog", "200 200 200 200 200 200 200", hardware("model")
    ),
    ("hardware_db:api-root", "GET"): Row("the catalog's root", "200 200 200 200 200 200 200"),
    ("curricula:course-list", "GET"): Row("the courses", "200 200 200 200 200 200 200"),
    ("curricula:course-detail", "GET"): Row(
        "the learner's course", "200 200 200 200 200 200 200", COURSE
    ),
    ("curricula:lesson-detail", "GET"): Row(
        "a lesson of the learner's course", "200 200 200 200 200 200 200", LESSON
    ),
    ("assess:token", "POST"): Row(
        "the token endpoint, no credentials", "400 400 400 400 400 400 400"
    ),
    ("assess:token", "DELETE"): Row(
        "revoking the caller's token: a signed-in session is no token",
        "401 401 401 401 401 401 401",
    ),
    ("assess:quiz-list", "GET"): Row("quizzes the user may see", "401 200 200 200 200 200 200"),
    ("assess:quiz-list", "POST"): Row(
        "creating a quiz, empty body: refused before the body to all who teach nothing",
        "401 403 403 403 400 403 400",
    ),
    ("assess:quiz-detail", "GET"): Row(
        "a published quiz of the learner's course", "401 200 200 404 404 404 200", QUIZ
    ),
    ("assess:quiz-attempts", "GET"): Row(
        "the attempts on the learner's quiz", "401 200 200 404 404 404 200", QUIZ
    ),
    ("assess:quiz-attempts", "POST"): Row(
        "starting an attempt on the learner's quiz", "401 200 200 404 404 404 201", QUIZ
    ),
    ("assess:quiz-items", "GET"): Row(
        "item analysis of the learner's quiz", "401 404 404 404 404 404 200", QUIZ
    ),
    ("assess:quiz-publish", "POST"): Row(
        "publishing a draft of the learner's course", "401 404 404 404 404 404 200", DRAFT
    ),
    ("assess:quiz-unpublish", "POST"): Row(
        "unpublishing the learner's quiz", "401 404 404 404 404 404 409", QUIZ
    ),
    ("assess:quiz-close", "POST"): Row(
        "closing the learner's quiz", "401 404 404 404 404 404 200", QUIZ
    ),
    ("assess:quiz-extensions", "GET"): Row(
        "the extensions on the learner's quiz", "401 404 404 404 404 404 200", QUIZ
    ),
    ("assess:quiz-extension-detail", "PUT"): Row(
        "the learner's extension, empty body", "401 404 404 404 404 404 400", EXT
    ),
    ("assess:quiz-extension-detail", "DELETE"): Row(
        "revoking the learner's extension", "401 404 404 404 404 404 204", EXT
    ),
    ("assess:attempt-detail", "GET"): Row(
        "the learner's attempt", "401 200 404 404 404 404 200", ATTEMPT
    ),
    ("assess:attempt-responses", "POST"): Row(
        "answering in the learner's attempt, empty body", "401 400 404 404 404 404 404", ATTEMPT
    ),
    ("assess:attempt-finish", "POST"): Row(
        "finishing the learner's attempt", "401 200 404 404 404 404 404", ATTEMPT
    ),
    ("assess:question-new-variant", "POST"): Row(
        "a new variant of the learner's question", "401 201 404 404 404 404 404", QUESTION
    ),
    ("assess:question-reveal", "POST"): Row(
        "revealing the learner's answer, empty body", "401 400 404 404 404 404 404", QUESTION
    ),
    ("assess:question-hints", "POST"): Row(
        "a hint on the learner's question, empty body", "401 400 404 404 404 404 404", QUESTION
    ),
    ("assess:drill-actions", "POST"): Row(
        "an action in the learner's drill, empty body", "401 400 404 404 404 404 404", QUESTION
    ),
    ("assess:drill-submit", "POST"): Row(
        "submitting the learner's drill, empty body", "401 400 404 404 404 404 404", QUESTION
    ),
    ("assess:my-mastery", "GET"): Row("the user's own mastery", "401 200 200 200 200 200 200"),
    ("assess:course-enrol", "POST"): Row(
        "enrolling in the learner's course", "401 200 200 201 201 201 201", COURSE
    ),
    ("assess:course-enrolments", "GET"): Row(
        "the learner's course's enrolments", "401 404 404 404 404 404 200", COURSE
    ),
    ("assess:course-enrolments", "POST"): Row(
        "adding a learner, empty body", "401 404 404 404 404 404 400", COURSE
    ),
    ("assess:course-enrolment-detail", "DELETE"): Row(
        "removing the learner from their course", "401 404 404 404 404 404 204", ENROLMENT
    ),
    ("assess:lesson-practice", "POST"): Row(
        "practising a lesson of the learner's course", "401 201 201 201 201 201 201", LESSON
    ),
    # Authored templates: the course's course-wide instructors and staff only. The
    # course is public, so others are refused (403); its templates read as absent (404).
    ("authoring:course-templates", "GET"): Row(
        "the learner's course's authored templates", "401 403 403 403 403 403 200", COURSE
    ),
    ("authoring:course-templates", "POST"): Row(
        "a template for the learner's course, empty body", "401 403 403 403 403 403 400", COURSE
    ),
    ("authoring:document-check", "POST"): Row(
        "checking a document for the learner's course, empty body",
        "401 403 403 403 403 403 400",
        COURSE,
    ),
    ("authoring:document-preview", "POST"): Row(
        "previewing a document for the learner's course, empty body",
        "401 403 403 403 403 403 400",
        COURSE,
    ),
    ("authoring:template-detail", "GET"): Row(
        "a draft authored template of the learner's course", "401 404 404 404 404 404 200", AUTHORED
    ),
    ("authoring:template-detail", "PUT"): Row(
        "a new version of the draft, empty body", "401 404 404 404 404 404 400", AUTHORED
    ),
    ("authoring:template-publish", "POST"): Row(
        "publishing the draft (it passes the check)", "401 404 404 404 404 404 200", AUTHORED
    ),
    ("authoring:template-archive", "POST"): Row(
        "archiving the draft", "401 404 404 404 404 404 200", AUTHORED
    ),
    ("authoring:template-regrade", "POST"): Row(
        "regrading the draft (refused: not published)", "401 404 404 404 404 404 409", AUTHORED
    ),
    ("authoring:template-version", "GET"): Row(
        "version 1 of the draft", "401 404 404 404 404 404 200", AUTHORED_V1
    ),
    ("capstone:brief", "GET"): Row(
        "the user's own capstone brief: only the learner has started theirs",
        "401 200 404 404 404 404 404",
    ),
    ("capstone:brief", "POST"): Row(
        "starting the user's own capstone (the learner's was started)",
        "401 200 201 201 201 201 201",
    ),
    ("capstone:memo-list", "GET"): Row("the user's memos", "401 200 200 200 200 200 200"),
    ("capstone:memo-list", "POST"): Row(
        "submitting a memo, empty body", "401 400 400 400 400 400 400"
    ),
    ("capstone:memo-detail", "GET"): Row("the learner's memo", "401 200 404 404 404 404 200", MEMO),
    ("capstone:memo-versions", "GET"): Row(
        "the learner's memo's versions", "401 200 404 404 404 404 200", MEMO
    ),
    ("capstone:memo-versions", "POST"): Row(
        "a new version of the learner's memo, empty body", "401 400 404 404 404 404 403", MEMO
    ),
    ("capstone:memo-decision", "POST"): Row(
        "deciding the learner's memo, empty body", "401 403 404 404 404 404 400", MEMO
    ),
    ("certify:track-list", "GET"): Row("the tracks", "401 200 200 200 200 200 200"),
    ("certify:track-progress", "GET"): Row(
        "the user's progress on a track", "401 200 200 200 200 200 200", TRACK
    ),
    ("certify:track-psychometrics", "GET"): Row(
        "a track's psychometrics report", "401 404 404 404 404 404 200", TRACK
    ),
    ("certify:certificate-list", "GET"): Row(
        "the user's certificates", "401 200 200 200 200 200 200"
    ),
    ("certify:certificate-verify", "GET"): Row(
        "the learner's certificate (public verification)", "200 200 200 200 200 200 200", CERT
    ),
    ("certify:certificate-revoke", "POST"): Row(
        "revoking the learner's certificate, empty body", "401 403 404 404 404 404 400", CERT
    ),
    ("certify:team-list", "GET"): Row("teams the user manages", "401 200 200 200 200 200 200"),
    ("certify:team-readiness", "GET"): Row(
        "the readiness of the learner's team", "401 404 404 404 404 404 200", TEAM
    ),
    ("certify:certification-check", "GET"): Row(
        "whether the learner holds the track",
        "401 200 404 404 404 404 200",
        query="?user=access-learner&track=access-track",
    ),
    ("lti-api:score-sync-list", "GET"): Row(
        "grade sync rows of the learner's quiz", "401 404 404 404 404 404 200", QUIZ
    ),
    ("lti-api:score-sync-summary", "GET"): Row(
        "grade sync summary of the learner's quiz", "401 404 404 404 404 404 200", QUIZ
    ),
    ("lti-api:score-sync-resend", "POST"): Row(
        "resending grades of the learner's quiz, empty body", "401 404 404 404 404 404 200", QUIZ
    ),
    ("api-not-found", "GET"): Row("an unknown API path", "404 404 404 404 404 404 404"),
    ("api-not-found", "POST"): Row("an unknown API path", "404 404 404 404 404 404 404"),
    ("api-not-found", "PUT"): Row("an unknown API path", "404 404 404 404 404 404 404"),
    ("api-not-found", "PATCH"): Row("an unknown API path", "404 404 404 404 404 404 404"),
    ("api-not-found", "DELETE"): Row("an unknown API path", "404 404 404 404 404 404 404"),
    ("lti-jwks", "GET"): Row("the tool's public keys", "200 200 200 200 200 200 200"),
    ("lti-login", "GET"): Row("an OIDC login without parameters", "403 403 403 403 403 403 403"),
    ("lti-launch", "POST"): Row("a launch without a token", "403 403 403 403 403 403 403"),
    ("lti-deep-link", "GET"): Row(
        "a deep-linking request that is not the user's", "404 404 404 404 404 404 404", LAUNCH
    ),
    # a registration URL's secret is the only gate (the LMS opens it with no session):
    # an unknown one is a 404 to everyone, staff included (tests/lti/test_dynamic_registration)
    ("lti-register", "GET"): Row(
        "a dynamic registration URL no one minted",
        "404 404 404 404 404 404 404",
        lambda w: {"token": "not-minted"},
    ),
    ("home", "GET"): Row("the home page", "200 200 200 200 200 200 200"),
    ("healthz", "GET"): Row("the health check", "200 200 200 200 200 200 200"),
    ("readyz", "GET"): Row("the readiness check", "200 200 200 200 200 200 200"),
    # The test client comes from 127.0.0.1, in METRICS_ALLOWED_NETWORKS by default; other
    # addresses and tokens: tests/frontend/test_metrics.py.
    ("metrics", "GET"): Row("the Prometheus metrics", "200 200 200 200 200 200 200"),
    # accounts (allauth's pages, ours, and the addresses before allauth)
    ("account_login", "GET"): Row("the sign-in page", "200 302 302 302 302 302 302"),
    ("account_login", "POST"): Row(
        "signing in, empty form (the signed-in are sent on)", "200 302 302 302 302 302 302"
    ),
    ("account_logout", "GET"): Row("the page that asks to sign out", "302 200 200 200 200 200 200"),
    ("account_logout", "POST"): Row("signing out", "302 302 302 302 302 302 302"),
    ("account_signup", "GET"): Row("the sign-up page", "200 302 302 302 302 302 302"),
    ("account_signup", "POST"): Row(
        "signing up, empty form (the signed-in are sent on)", "200 302 302 302 302 302 302"
    ),
    ("account_inactive", "GET"): Row("the inactive-account page", "200 200 200 200 200 200 200"),
    ("account_reauthenticate", "GET"): Row(
        "confirming one's password", "login 200 200 200 200 200 200"
    ),
    ("account_request_reauthentication_code", "GET"): Row(
        "re-authenticating by a mailed code: switched off", "login 403 403 403 403 403 403"
    ),
    ("account_confirm_reauthentication_code", "GET"): Row(
        "its code's page: switched off", "login 403 403 403 403 403 403"
    ),
    ("account_confirm_login_code", "GET"): Row(
        "signing in by a mailed code: switched off", "login 302 302 302 302 302 302"
    ),
    ("account_email", "GET"): Row("the user's own email address", "login 200 200 200 200 200 200"),
    ("account_email", "POST"): Row(
        "changing it, empty form (sent back to the page)", "login 302 302 302 302 302 302"
    ),
    ("account_email_verification_sent", "GET"): Row(
        "the check-your-email page", "200 200 200 200 200 200 200"
    ),
    ("account_confirm_email", "GET"): Row(
        "a confirmation link with a bad key: says so", "200 200 200 200 200 200 200", CONFIRM_KEY
    ),
    ("account_confirm_email", "POST"): Row(
        "confirming with a bad key", "404 404 404 404 404 404 404", CONFIRM_KEY
    ),
    ("account_change_password", "GET"): Row(
        "the user's own password", "login 200 200 200 200 200 200"
    ),
    ("account_change_password", "POST"): Row(
        "changing it, empty form", "login 200 200 200 200 200 200"
    ),
    ("account_set_password", "GET"): Row(
        "setting a first password: those who have one are sent to change it",
        "login 302 302 302 302 302 302",
    ),
    ("account_reset_password", "GET"): Row(
        "the password reset form", "200 200 200 200 200 200 200"
    ),
    ("account_reset_password", "POST"): Row(
        "asking for a reset, empty form", "200 200 200 200 200 200 200"
    ),
    ("account_reset_password_done", "GET"): Row(
        "the reset-sent page", "200 200 200 200 200 200 200"
    ),
    ("account_reset_password_from_key", "GET"): Row(
        "a reset link with a bad key: says so", "200 200 200 200 200 200 200", RESET_KEY
    ),
    ("account_reset_password_from_key_done", "GET"): Row(
        "the reset-done page", "200 200 200 200 200 200 200"
    ),
    ("socialaccount_login_cancelled", "GET"): Row(
        "a single sign-on the person cancelled", "200 200 200 200 200 200 200"
    ),
    ("socialaccount_login_error", "GET"): Row(
        "a single sign-on that failed: refused", "403 403 403 403 403 403 403"
    ),
    ("socialaccount_signup", "GET"): Row(
        "finishing a single sign-on's sign-up, none pending",
        "login login login login login login login",
    ),
    ("socialaccount_connections", "GET"): Row(
        "the user's own company sign-ins", "login 200 200 200 200 200 200"
    ),
    ("socialaccount_connections", "POST"): Row(
        "removing one, empty form", "login 200 200 200 200 200 200"
    ),
    ("openid_connect_login", "GET"): Row(
        "the page that starts the learner's organisation's sign-on",
        "200 200 200 200 200 200 200",
        PROVIDER,
    ),
    ("openid_connect_callback", "GET"): Row(
        "a sign-on callback with no state: refused, nothing written",
        "403 403 403 403 403 403 403",
        PROVIDER,
    ),
    ("company-sign-in", "GET"): Row("signing in with your company", "200 200 200 200 200 200 200"),
    ("company-sign-in", "POST"): Row(
        "signing in with your company, empty form", "200 200 200 200 200 200 200"
    ),
    ("personal-token", "GET"): Row(
        "the user's own personal API token", "login 200 200 200 200 200 200"
    ),
    ("personal-token", "POST"): Row(
        "issuing it without a recent single sign-on: refused", "login 302 302 302 302 302 302"
    ),
    ("organization-sso", "GET"): Row(
        "the single sign-on of the learner's organisation",
        "login 404 404 404 404 404 200",
        ORG,
    ),
    ("organization-sso", "POST"): Row(
        "registering it, empty form", "login 404 404 404 404 404 200", ORG
    ),
    # invitations: a place's page for its managers or instructors, the link's pages
    ("invitations-organization", "GET"): Row(
        "invitations to the learner's organisation", "login 404 404 404 404 404 200", ORG
    ),
    ("invitations-organization", "POST"): Row(
        "inviting to it, empty form", "login 404 404 404 404 404 400", ORG
    ),
    ("invitations-team", "GET"): Row(
        "invitations to the learner's team", "login 404 404 404 404 404 200", TEAM
    ),
    ("invitations-team", "POST"): Row(
        "inviting to it, empty form", "login 404 404 404 404 404 400", TEAM
    ),
    ("invitations-course", "GET"): Row(
        "invitations to the learner's course", "login 404 404 404 404 404 200", COURSE
    ),
    ("invitations-course", "POST"): Row(
        "inviting to it, empty form", "login 404 404 404 404 404 400", COURSE
    ),
    ("invitation-resend", "POST"): Row(
        "a new link for an invitation to the learner's team",
        "login 404 404 404 404 404 302",
        INVITATION,
    ),
    ("invitation-revoke", "POST"): Row(
        "withdrawing that invitation", "login 404 404 404 404 404 302", INVITATION
    ),
    ("invitation-accept", "GET"): Row(
        "an invitation link with a bad token: says so", "404 404 404 404 404 404 404", BAD_TOKEN
    ),
    ("invitation-accept", "POST"): Row(
        "accepting with a bad token", "404 404 404 404 404 404 404", BAD_TOKEN
    ),
    ("invitation-sign-up", "POST"): Row(
        "signing up from a bad token", "404 404 404 404 404 404 404", BAD_TOKEN
    ),
    ("organization-members", "GET"): Row(
        "the members of the learner's organisation", "login 404 404 404 404 404 200", ORG
    ),
    ("organization-member-remove", "POST"): Row(
        "removing the learner from their organisation", "login 404 404 404 404 404 302", MEMBER
    ),
    ("account-data", "GET"): Row("the user's own data page", "login 200 200 200 200 200 200"),
    ("account-data-download", "GET"): Row(
        "downloading the user's own data", "login 200 200 200 200 200 200"
    ),
    ("account-delete", "GET"): Row(
        "deleting the user's own account: the form", "login 200 200 200 200 200 200"
    ),
    ("account-delete", "POST"): Row(
        "deleting it, empty form: the password is asked for", "login 200 200 200 200 200 200"
    ),
    ("password-reset-before-allauth", "GET"): Row(
        "the old reset address", "301 301 301 301 301 301 301"
    ),
    ("password-reset-sent-before-allauth", "GET"): Row(
        "the old reset-sent address", "301 301 301 301 301 301 301"
    ),
    ("password-reset-link-before-allauth", "GET"): Row(
        "an old reset link: ask for a new one", "302 302 302 302 302 302 302", RESET
    ),
    ("password-reset-done-before-allauth", "GET"): Row(
        "the old reset-done address", "301 301 301 301 301 301 301"
    ),
    ("course-list", "GET"): Row("the courses", "200 200 200 200 200 200 200"),
    ("course-detail", "GET"): Row("the learner's course", "200 200 200 200 200 200 200", COURSE),
    ("course-enrol", "POST"): Row(
        "enrolling in the learner's course", "login 302 302 302 302 302 302", COURSE
    ),
    ("lesson-detail", "GET"): Row(
        "a lesson of the learner's course", "200 200 200 200 200 200 200", LESSON
    ),
    ("lesson-practice", "POST"): Row(
        "practising a lesson of the learner's course", "login 302 302 302 302 302 302", LESSON
    ),
    ("dashboard", "GET"): Row("the user's dashboard", "login 200 200 200 200 200 200"),
    ("quiz-list", "GET"): Row(
        "quizzes the user may take; to a visitor, how to get in", "200 200 200 200 200 200 200"
    ),
    ("quiz-detail", "GET"): Row(
        "the start page of the learner's quiz", "login 200 200 404 404 404 200", QUIZ
    ),
    ("quiz-start", "POST"): Row(
        "starting the learner's quiz", "login 302 302 404 404 404 302", QUIZ
    ),
    ("attempt-detail", "GET"): Row(
        "the learner's attempt", "login 200 404 404 404 404 200", ATTEMPT
    ),
    ("attempt-finish", "POST"): Row(
        "finishing the learner's attempt", "login 200 404 404 404 404 404", ATTEMPT
    ),
    ("question-detail", "GET"): Row(
        "a question of the learner's attempt", "login 200 404 404 404 404 200", QUESTION
    ),
    ("question-answer", "POST"): Row(
        "answering it, empty form", "login 302 404 404 404 404 404", QUESTION
    ),
    ("question-vary", "POST"): Row(
        "a new variant of it", "login 302 404 404 404 404 404", QUESTION
    ),
    ("question-reveal", "POST"): Row(
        "revealing its answer, empty form", "login 302 404 404 404 404 404", QUESTION
    ),
    ("question-drill-act", "POST"): Row(
        "an action in its drill, empty form", "login 302 404 404 404 404 404", QUESTION
    ),
    ("question-drill-submit", "POST"): Row(
        "submitting its drill, empty form", "login 302 404 404 404 404 404", QUESTION
    ),
    ("question-hint", "POST"): Row(
        "a hint on it, empty form", "login 302 404 404 404 404 404", QUESTION
    ),
    ("teach", "GET"): Row("the teaching index", "login 403 403 403 200 403 200"),
    ("quiz-builder", "GET"): Row("the quiz builder", "login 403 403 403 200 403 200"),
    ("quiz-manage", "GET"): Row("the learner's quiz's page", "login 404 404 404 404 404 200", QUIZ),
    ("quiz-edit", "GET"): Row("editing the learner's quiz", "login 404 404 404 404 404 302", QUIZ),
    ("quiz-preview", "GET"): Row(
        "previewing the learner's quiz", "login 404 404 404 404 404 200", QUIZ
    ),
    ("quiz-duplicate", "POST"): Row(
        "duplicating the learner's quiz", "login 404 404 404 404 404 302", QUIZ
    ),
    ("quiz-action", "POST"): Row(
        "closing the learner's quiz (confirmed)",
        "login 404 404 404 404 404 302",
        QUIZACT,
        data={"confirmed": "yes"},
    ),
    # Writing templates: the course's course-wide instructors and staff.
    ("authored-list", "GET"): Row(
        "the learner's course's authored templates", "login 403 403 403 403 403 200", COURSE
    ),
    ("authored-new", "GET"): Row(
        "the editor for a new template of the learner's course",
        "login 403 403 403 403 403 200",
        COURSE,
    ),
    ("authored-new", "POST"): Row(
        "saving a new template, no text", "login 403 403 403 403 403 400", COURSE
    ),
    ("authored-check", "POST"): Row(
        "the problems of a text, as typed", "login 403 403 403 403 403 200", COURSE
    ),
    ("authored-preview", "POST"): Row(
        "a preview of a text (no text: its problems)", "login 403 403 403 403 403 200", COURSE
    ),
    ("authored-edit", "GET"): Row(
        "the editor of the course's draft template", "login 404 404 404 404 404 200", AUTHORED
    ),
    ("authored-edit", "POST"): Row(
        "saving a version, no text", "login 404 404 404 404 404 400", AUTHORED
    ),
    ("authored-action", "POST"): Row(
        "publishing the draft template",
        "login 404 404 404 404 404 302",
        lambda w: {"slug": w.authored.slug, "action": "publish"},
    ),
    ("template-preview", "GET"): Row(
        "a one-template preview with answers",
        "login 403 403 403 200 403 200",
        query="?template=gb-gib",
    ),
    ("quiz-items", "GET"): Row(
        "item analysis of the learner's quiz", "login 404 404 404 404 404 200", QUIZ
    ),
    ("quiz-lms-grades", "GET"): Row(
        "LMS grades of the learner's quiz", "login 404 404 404 404 404 200", QUIZ
    ),
    ("quiz-gradebook", "GET"): Row(
        "the gradebook of the learner's quiz", "login 404 404 404 404 404 200", QUIZ
    ),
    ("quiz-extension", "POST"): Row(
        "an extension from the gradebook of the learner's quiz, empty form",
        "login 404 404 404 404 404 302",
        QUIZ,
    ),
    ("quiz-gradebook-csv", "GET"): Row("its CSV", "login 404 404 404 404 404 200", QUIZ),
    ("course-gradebook", "GET"): Row(
        "the learner's course's gradebook", "login 404 404 404 404 404 200", COURSE
    ),
    ("course-gradebook-csv", "GET"): Row("its CSV", "login 404 404 404 404 404 200", COURSE),
    ("course-progress", "GET"): Row(
        "the learner's course's progress", "login 404 404 404 404 404 200", COURSE
    ),
    ("course-learners", "GET"): Row("its learners", "login 404 404 404 404 404 200", COURSE),
    ("course-learner-remove", "POST"): Row(
        "removing a learner, empty form", "login 404 404 404 404 404 302", COURSE
    ),
    ("course-progress-csv", "GET"): Row(
        "its progress CSV", "login 404 404 404 404 404 200", COURSE
    ),
    ("capstone", "GET"): Row("the user's own capstone", "login 200 200 200 200 200 200"),
    ("capstone-start", "POST"): Row(
        "starting the user's own capstone", "login 302 302 302 302 302 302"
    ),
    ("capstone-write", "GET"): Row("writing the user's own memo", "login 200 200 200 200 200 200"),
    ("capstone-preview", "POST"): Row(
        "previewing a memo, empty form", "login 200 200 200 200 200 200"
    ),
    ("capstone-memo", "GET"): Row("the learner's memo", "login 200 404 404 404 404 200", MEMO),
    ("capstone-memo-status", "GET"): Row(
        "its review status", "login 302 404 404 404 404 302", MEMO, query="?v=1"
    ),
    ("teach-memos", "GET"): Row("the memo queue", "login 403 403 403 200 403 200"),
    ("teach-memo", "GET"): Row(
        "the learner's memo, to decide", "login 404 404 404 404 404 200", MEMO
    ),
    ("certify", "GET"): Row("the user's certification home", "login 200 200 200 200 200 200"),
    ("certify-track", "GET"): Row(
        "the user's progress on a track", "login 200 200 200 200 200 200", TRACK
    ),
    ("certify-track-psychometrics", "GET"): Row(
        "a track's psychometrics report", "login 404 404 404 404 404 200", TRACK
    ),
    ("certificate-verify-page", "GET"): Row(
        "the learner's certificate (public verification)", "200 200 200 200 200 200 200", CERT
    ),
    ("certificate-revoke-page", "POST"): Row(
        "revoking the learner's certificate, empty form", "login 403 403 403 403 403 302", CERT
    ),
    ("teams", "GET"): Row("teams the user manages", "login 404 404 404 404 200 200"),
    ("team-detail", "GET"): Row("the learner's team", "login 404 404 404 404 404 200", TEAM),
    ("team-readiness-csv", "GET"): Row("its readiness CSV", "login 404 404 404 404 404 200", TEAM),
    ("person-detail", "GET"): Row(
        "the learner's certification page", "login 200 404 404 404 404 200", PERSON
    ),
    ("hardware", "GET"): Row("the catalog", "200 200 200 200 200 200 200"),
    ("hardware-compare", "GET"): Row("comparing accelerators", "200 200 200 200 200 200 200"),
    ("hardware-roofline", "GET"): Row("the roofline", "200 200 200 200 200 200 200"),
    ("admin:index", "GET"): Row("the admin", "302 302 302 302 302 302 200"),
}
