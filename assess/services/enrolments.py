"""Enrolling learners in courses: by themselves where the course allows it, by its
instructors (or staff) always. Enrolment decides who may list and start a course's
quizzes and whose progress its instructors see."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from api_common.service_errors import InvalidInput, NotPermitted
from assess.models import Enrolment
from assess.selectors import SCOPED_WRITE_REFUSED, user_is_course_instructor, user_is_instructor
from audit.models import AuditEvent
from audit.services import audit_record
from curricula.models import Course

SELF_ENROL_REFUSED = "This course enrols learners through its instructors."


def _enrol(user, course: Course, source: str) -> tuple[Enrolment, bool]:
    """get_or_create, safe under a race (the unique constraint decides)."""
    existing = Enrolment.objects.filter(user=user, course=course).first()
    if existing is not None:
        return existing, False
    try:
        with transaction.atomic():
            return Enrolment.objects.create(user=user, course=course, source=source), True
    except IntegrityError:
        return Enrolment.objects.get(user=user, course=course), False


def enrolment_self(*, user, course: Course, source: str = Enrolment.Source.SELF):
    """The user enrols themselves: (enrolment, created). Raises NotPermitted when the
    course takes learners only from its instructors and the user is not enrolled."""
    existing = Enrolment.objects.filter(user=user, course=course).first()
    if existing is not None:
        return existing, False
    if not course.self_enrol:
        raise NotPermitted(SELF_ENROL_REFUSED)
    return _enrol(user, course, source)


def enrolment_lti(*, user, course: Course) -> tuple[Enrolment, bool]:
    """An LMS launched the user into the course (a verified LTI launch is the
    platform's word, whatever the course's self-enrolment setting): (enrolment, created)."""
    return _enrol(user, course, Enrolment.Source.LTI)


def enrolment_invited(*, user, course: Course, inviter) -> tuple[Enrolment, bool]:
    """The user accepted an instructor's invitation to the course (invitations.services):
    enrolled as the instructor's addition, whatever the course's self-enrolment says,
    and audited as theirs (None: the inviter's account is gone)."""
    with transaction.atomic():
        enrolment, created = _enrol(user, course, Enrolment.Source.INSTRUCTOR)
        if created:
            _audit(inviter, AuditEvent.Action.ENROLMENT_ADD, course, user)
    return enrolment, created


def enrolment_manager_check(*, actor, course: Course) -> None:
    """NotPermitted unless the actor may change the course's roster: staff and
    course-wide instructors; an instructor scoped to an LMS course is told to ask a
    Burn-in administrator (their LMS manages their roster). The API asks it before it
    reads the body naming the learner: a refusal is for who the actor is."""
    if not user_is_course_instructor(user=actor, course_id=course.pk):
        if user_is_instructor(user=actor, course_id=course.pk):
            raise NotPermitted(SCOPED_WRITE_REFUSED)
        raise NotPermitted("Only this course's instructors manage its learners.")


def _learner(username: str):
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise InvalidInput(f"No user is called {username!r}.", field="username")
    return user


def enrolment_add(*, actor, course: Course, username: str) -> tuple[Enrolment, bool]:
    """An instructor (or staff) enrols a learner by username: (enrolment, created)."""
    enrolment_manager_check(actor=actor, course=course)
    learner = _learner(username)
    with transaction.atomic():
        enrolment, created = _enrol(learner, course, Enrolment.Source.INSTRUCTOR)
        if created:
            _audit(actor, AuditEvent.Action.ENROLMENT_ADD, course, learner)
    return enrolment, created


def enrolment_remove(*, actor, course: Course, username: str) -> bool:
    """An instructor (or staff) removes a learner; True if they were enrolled. Their
    attempts and mastery stay (they are the learner's record); they can no longer list
    or start the course's quizzes."""
    enrolment_manager_check(actor=actor, course=course)
    learner = _learner(username)
    with transaction.atomic():
        deleted, _ = Enrolment.objects.filter(user=learner, course=course).delete()
        if deleted:
            _audit(actor, AuditEvent.Action.ENROLMENT_REMOVE, course, learner)
    return deleted > 0


def _audit(actor, action: str, course: Course, learner) -> None:
    audit_record(
        actor=actor, action=action, target=course, detail={"learner": learner.get_username()}
    )
