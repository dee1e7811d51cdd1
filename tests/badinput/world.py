"""A small world in which every write operation of the API reaches past 404 and 403 into
its own validation: a course with a practice lesson, its instructor, an enrolled learner
with an open practice attempt and a question on a numeric part, a second question to
reveal, a quiz attempt to finish, a reviewed capstone memo, a timed quiz for extensions,
and a certificate staff may revoke.

Built through the services (the one road that writes these rows), once per test.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import yaml
from django.utils import timezone

from assess.models import CourseRole, Enrolment, Quiz
from assess.selectors.drills import drill_of
from assess.services.attempts import attempt_start
from assess.services.extensions import extension_grant
from assess.services.questions import practice_question_add
from authoring.services import create_unchecked, template_publish
from capstone.memo_review.example import example_memo
from capstone.models import MemoVersion
from capstone.services import (
    CAPSTONE_COURSE,
    capstone_brief,
    capstone_get_or_create,
    memo_review_run,
    memo_submit,
)
from certify.models import Certificate, Track
from tests.factories import (
    CourseFactory,
    EnrolmentFactory,
    LessonFactory,
    QuizFactory,
    UserFactory,
)

NUMERIC_TEMPLATE = "gb-gib"  # one numeric part, "converted": an answer is read, not chosen


@dataclass
class World:
    learner: object
    instructor: object
    staff: object
    course: object
    lesson: object
    attempt: int  # the learner's open practice attempt
    question: int  # a question of it, with the numeric part `part`
    part: str
    question_to_reveal: int
    attempt_to_finish: int
    quiz: int  # a timed published quiz of the course, not yet attempted
    draft_quiz: int
    memo: int
    criterion: str
    certificate: int
    other_learner: object  # enrolled in the course, for enrolment and extension paths
    drill_attempt: int = 0  # the learner's open practice attempt with an incident drill
    drill_question: int = 0
    drill_answer: tuple[str, str, str] = ("", "", "")  # fault, location, remedy
    authored: str = ""  # a published authored template of `course`, by the instructor


def build_world() -> World:
    learner = UserFactory(username="learner")
    other = UserFactory(username="other")
    instructor = UserFactory(username="teacher")
    staff = UserFactory(username="admin", is_staff=True)
    course = CourseFactory(slug="ai-infra")
    capstone_course = CourseFactory(slug=CAPSTONE_COURSE)
    for c in (course, capstone_course):
        CourseRole.objects.create(user=instructor, course=c, role=CourseRole.Role.INSTRUCTOR)
    EnrolmentFactory(user=learner, course=course)
    EnrolmentFactory(user=other, course=course)
    lesson = LessonFactory(module__course=course, templates=[NUMERIC_TEMPLATE])

    practice = practice_question_add(learner=learner, lesson=lesson)
    to_reveal = practice_question_add(learner=learner, lesson=lesson)
    part = practice.question.answers[0]["name"]

    open_quiz = QuizFactory(course=course, slots=[[NUMERIC_TEMPLATE]])
    to_finish, _ = attempt_start(quiz=open_quiz, learner=learner)
    timed = QuizFactory(
        course=course,
        slots=[[NUMERIC_TEMPLATE]],
        time_limit=timedelta(minutes=30),
        closes_at=timezone.now() + timedelta(days=7),
    )
    extension_grant(
        user=instructor, quiz=timed, learner=other, extra_time=timedelta(minutes=5), closes_at=None
    )
    draft = QuizFactory(course=course, slots=[[NUMERIC_TEMPLATE]], status=Quiz.Status.DRAFT)

    capstone = capstone_get_or_create(learner=learner, course=capstone_course)
    version = memo_submit(
        learner=learner,
        markdown=example_memo(capstone_brief(capstone), mistakes=("gb-vs-gib",)),
        now=timezone.now() - timedelta(hours=1),  # a new version is due (one a minute)
    )
    memo_review_run(version_id=version.pk)
    review = MemoVersion.objects.get(pk=version.pk).review

    track = Track.objects.create(
        slug="badinput-track",
        title="Bad input",
        summary="A track.",
        rotation="on-call",
        order=1,
        mastery_threshold=0.9,
        exam=QuizFactory(mode=Quiz.Mode.EXAM, slots=[[NUMERIC_TEMPLATE]]),
    )
    certificate = Certificate.objects.create(
        holder=learner,
        track=track,
        expires_at=timezone.now() + timedelta(days=365),
        evidence={"track": track.slug},
    )
    drill_attempt, _ = attempt_start(
        quiz=QuizFactory(slots=[["drill-gpu-off-bus"]]), learner=learner
    )
    drill_question = drill_attempt.questions.get()
    answer = drill_of(drill_question).answer
    assert Enrolment.objects.filter(user=learner, course=course).exists()
    return World(
        learner=learner,
        instructor=instructor,
        staff=staff,
        course=course,
        lesson=lesson,
        attempt=practice.attempt.pk,
        question=practice.question.pk,
        part=part,
        question_to_reveal=to_reveal.question.pk,
        attempt_to_finish=to_finish.pk,
        quiz=timed.pk,
        draft_quiz=draft.pk,
        memo=version.memo_id,
        criterion=review["criteria"][0]["code"],
        certificate=certificate.pk,
        other_learner=other,
        drill_attempt=drill_attempt.pk,
        drill_question=drill_question.pk,
        drill_answer=(answer.fault, answer.location, answer.remedy),
        authored=_authored(course, instructor),
    )


AUTHORED = Path(__file__).parents[1] / "problems" / "authored" / "data" / "team-kv-budget.yaml"


def authored_document(slug: str | None = None) -> dict:
    """The spec's example template, under another slug when given."""
    data = yaml.safe_load(AUTHORED.read_text())
    if slug is not None:
        data["slug"] = slug
    return data


def _authored(course, instructor) -> str:
    row = create_unchecked(course=course, data=authored_document(), user=instructor)
    template_publish(user=instructor, template=row)
    return row.slug
