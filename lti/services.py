"""What a validated launch writes: django-lti's rows, the Burn-in user behind the
platform user, the course role or enrolment, the resource link's quiz, and the attempt.

Context -> course: Burn-in courses are not created from LMS contexts. A deployment opens
only the quizzes of the courses staff authorised it for (lti.selectors.
deployment_may_launch, asked by lti.views before anything is written: otherwise a 403).
The quiz a link opens belongs to a course, and a launch from any LMS context of the
deployment enrols the learner in *that* course (source "lti"), or makes an instructor
one of its instructors *scoped to that LMS context* (CourseRole.lti_context): they see
only the course's learners who are members of it (assess.selectors.access), never those
of another LMS course linking the same quiz, nor those who study on Burn-in directly.
django-lti keeps the context per (deployment, context id), and the membership per
context, so one quiz linked from two LMS courses keeps two LMS rosters and two scoped
instructor groups, both feeding the one Burn-in course. A teaching launch with no
context claim cannot be scoped: it gets no course role (the launch still signs the user
in; lti.views lands them on the course's page).
A quiz with no course (staff-made) is open to every signed-in user and needs neither
role nor enrolment; a deployment opens one only once its own deep linking placed it.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from lti_tool.models import LtiLaunch
from lti_tool.utils import sync_data_from_launch

from assess.models import CourseRole, Quiz
from assess.services.attempts import attempt_start
from assess.services.enrolments import enrolment_lti
from lti.grades import line_item_remember
from lti.identity import burnin_user, is_teaching
from lti.models import DeploymentQuiz, ResourceLinkQuiz
from lti.roster import roster_enqueue, roster_sync_due

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"


class NoQuiz(Exception):
    """The launch names no quiz we have (a 400 page, not a 500)."""


@dataclass(frozen=True)
class LaunchResult:
    user: object
    quiz: Quiz
    teaching: bool
    attempt: object | None


def launch_quiz(lti_launch: LtiLaunch) -> Quiz:
    """The quiz this resource link opens, read before anything is written: the one stored
    on its first launch, else the `custom` claim's quiz_id. Raises NoQuiz."""
    context = lti_launch.context_claim or {}
    stored = (
        ResourceLinkQuiz.objects.select_related("quiz")
        .filter(
            resource_link__context__deployment=lti_launch.deployment,
            resource_link__context__id_on_platform=context.get("id", ""),
            resource_link__id_on_platform=lti_launch.resource_link_claim["id"],
        )
        .first()
    )
    if stored is not None:
        return stored.quiz
    custom = lti_launch.get_claim(CLAIM + "custom")
    quiz_id = custom.get("quiz_id") if isinstance(custom, dict) else None
    if not (isinstance(quiz_id, str | int) and str(quiz_id).isdigit()):
        raise NoQuiz("This link names no Burn-in quiz (custom parameter quiz_id).")
    quiz = Quiz.objects.filter(pk=int(quiz_id), adaptive=False).first()
    if quiz is None:
        raise NoQuiz(f"There is no Burn-in quiz {quiz_id}.")
    return quiz


def _record_launch(lti_launch: LtiLaunch):
    """django-lti's rows (deployment, LMS user, context, membership, and the resource
    link when there is one) and the Burn-in user behind the LMS user. Call inside a
    transaction."""
    sync_data_from_launch(lti_launch)
    return burnin_user(lti_launch.user, lti_launch.get_claim("iss"))


def _remember_line_item(lti_launch: LtiLaunch, quiz: Quiz) -> None:
    """A link placed by deep linking (or given a grade column in the LMS) arrives with
    its line item's URL in the AGS claim: keep it, so no look-up is needed to send."""
    claim = lti_launch.ags_claim
    url = claim.get("lineitem") if isinstance(claim, dict) else None
    usable = isinstance(url, str) and url.startswith(("https://", "http://")) and len(url) <= 1000
    if usable and lti_launch.context_claim:
        line_item_remember(context=lti_launch.context, quiz=quiz, url=url)


def _queue_roster(lti_launch: LtiLaunch) -> None:
    """An instructor's launch offering Names and Roles queues a roster sync of its LMS
    course (at most one per ROSTER_INTERVAL), after the launch commits."""
    if not (lti_launch.context_claim and lti_launch.nrps_claim):
        return
    context = lti_launch.context
    if roster_sync_due(context):
        transaction.on_commit(lambda: roster_enqueue(context.pk))


def launch_complete(*, lti_launch: LtiLaunch, quiz: Quiz) -> LaunchResult:
    """Records a validated resource-link launch and opens the quiz for its user: an
    instructor gets the course role scoped to the launch's LMS context (none without a
    context), a learner the enrolment and a started (or resumed) attempt. Raises
    api_common.service_errors.Conflict when the quiz cannot be started."""
    with transaction.atomic():
        user = _record_launch(lti_launch)
        ResourceLinkQuiz.objects.get_or_create(
            resource_link=lti_launch.resource_link,
            defaults={"quiz": quiz},
        )
        _remember_line_item(lti_launch, quiz)
        teaching = is_teaching(lti_launch.roles_claim)
        if teaching:
            _queue_roster(lti_launch)
            if quiz.course_id is not None and lti_launch.context_claim:
                CourseRole.objects.get_or_create(
                    user=user,
                    course_id=quiz.course_id,
                    role=CourseRole.Role.INSTRUCTOR,
                    lti_context=lti_launch.context,
                )
            return LaunchResult(user=user, quiz=quiz, teaching=True, attempt=None)
        if quiz.course_id is not None:
            enrolment_lti(user=user, course=quiz.course)
    attempt, _ = attempt_start(quiz=quiz, learner=user)
    return LaunchResult(user=user, quiz=quiz, teaching=False, attempt=attempt)


def deep_link_begin(*, lti_launch: LtiLaunch):
    """Records a validated deep-linking launch and returns the Burn-in user to sign in.
    The caller has checked the role (only teaching roles may deep-link). There is no
    quiz yet, so no course role: the picker offers the quizzes the user already
    instructs (or staff-made ones), and the course role comes with the first resource
    launch of the link they create."""
    with transaction.atomic():
        return _record_launch(lti_launch)


def deep_link_placed(*, deployment, quiz: Quiz) -> None:
    """A quiz with no course placed by the deployment's deep linking becomes launchable
    from it (lti.selectors.deployment_may_launch); a course's quiz needs its course on
    the deployment's authorised list, which staff set, and placing it changes nothing."""
    if quiz.course_id is None:
        DeploymentQuiz.objects.get_or_create(deployment=deployment, quiz=quiz)
