"""Per-course roles. Learner is no role (any signed-in user); staff is Django's is_staff."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class CourseRole(models.Model):
    class Role(models.TextChoices):
        INSTRUCTOR = "instructor", "Instructor"
        TEAM_MANAGER = "team_manager", "Team manager"

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
