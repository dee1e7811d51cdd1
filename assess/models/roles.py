"""Per-course roles and enrolment. Staff is Django's is_staff. Team managers are
organisation roles (orgs.Membership), not course roles."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class CourseRole(models.Model):
    class Role(models.TextChoices):
        INSTRUCTOR = "instructor", "Instructor"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="course_roles"
    )
    course = models.ForeignKey(
        "curricula.Course", on_delete=models.CASCADE, related_name="assess_roles"
    )
    role = models.CharField(max_length=16, choices=Role.choices)

    class Meta:
        ordering = ["course", "user"]
        constraints = [
            models.UniqueConstraint(fields=["user", "course", "role"], name="assess_course_role")
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.role} of {self.course}"


class Enrolment(models.Model):
    """A learner of a course: who may list and start its quizzes, and whose progress its
    instructors see. Instructors are CourseRoles, not enrolments."""

    class Source(models.TextChoices):
        SELF = "self", "Enrolled themselves"
        INSTRUCTOR = "instructor", "Added by an instructor"
        PRACTICE = "practice", "Started lesson practice"
        LTI = "lti", "Launched from an LMS"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="enrolments"
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
            models.UniqueConstraint(fields=["user", "course"], name="assess_enrolment_once")
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.course}"
