"""Per-course roles and enrolment. Staff is Django's is_staff. Team managers are
organisation roles (orgs.Membership), not course roles."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from config.constraints import choice_check


class CourseRoleType(models.TextChoices):
    INSTRUCTOR = "instructor", "Instructor"


class CourseRole(models.Model):
    """An instructor of a course. `lti_context` null: a course-wide instructor (made in
    the admin or by staff), who sees every learner of the course and may change it
    (create its quizzes, add and remove learners). Set: an instructor *scoped to that LMS
    context* (made by a teaching LTI launch from it), who sees only the course's learners
    who are members of that LMS context and makes no course-wide change (the rule lives
    in assess.selectors.access)."""

    Role = CourseRoleType

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="course_roles"
    )
    course = models.ForeignKey(
        "curricula.Course", on_delete=models.CASCADE, related_name="assess_roles"
    )
    role = models.CharField(max_length=16, choices=Role.choices)
    lti_context = models.ForeignKey(
        "lti_tool.LtiContext",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="burnin_course_roles",
        help_text="Empty: the whole course. Set: only the learners of this LMS course.",
    )

    class Meta:
        ordering = ["course", "user"]
        constraints = [
            choice_check("role", CourseRoleType, name="assess_course_role_role_valid"),
            models.UniqueConstraint(
                fields=["user", "course", "role"],
                condition=models.Q(lti_context__isnull=True),
                name="assess_course_role",
            ),
            models.UniqueConstraint(
                fields=["user", "course", "role", "lti_context"],
                condition=models.Q(lti_context__isnull=False),
                name="assess_course_role_per_lti_context",
            ),
        ]

    def __str__(self) -> str:
        scope = f" (LMS course {self.lti_context})" if self.lti_context_id else ""
        return f"{self.user} {self.role} of {self.course}{scope}"


class EnrolmentSource(models.TextChoices):
    SELF = "self", "Enrolled themselves"
    INSTRUCTOR = "instructor", "Added by an instructor"
    PRACTICE = "practice", "Started lesson practice"
    LTI = "lti", "Launched from an LMS"


class Enrolment(models.Model):
    """A learner of a course: who may list and start its quizzes, and whose progress its
    instructors see. Instructors are CourseRoles, not enrolments."""

    Source = EnrolmentSource

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="enrolments",
        db_index=False,
    )
    course = models.ForeignKey(
        "curricula.Course", on_delete=models.CASCADE, related_name="enrolments"
    )
    source = models.CharField(max_length=16, choices=Source.choices)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["course", "user"]
        constraints = [
            # Not "assess_enrolment": on PostgreSQL the constraint's index would take the
            # table's name.
            models.UniqueConstraint(fields=["user", "course"], name="assess_enrolment_once"),
            # An enrolment says how it came about: never an empty or unknown source.
            choice_check("source", EnrolmentSource, name="assess_enrolment_source_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.course}"
