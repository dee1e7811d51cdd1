"""Authored templates and their immutable versions.

Editing saves a new AuthoredVersion; an old one is never changed, so a question an
attempt drew (which stores template_version) can always be rebuilt as it was.
"""

from django.conf import settings
from django.db import models


class AuthoredTemplate(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft"
        PUBLISHED = "published"
        ARCHIVED = "archived"

    course = models.ForeignKey(
        "curricula.Course", on_delete=models.PROTECT, related_name="authored_templates"
    )
    slug = models.SlugField(max_length=60, unique=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return self.slug


class AuthoredVersion(models.Model):
    template = models.ForeignKey(
        AuthoredTemplate, on_delete=models.CASCADE, related_name="versions"
    )
    number = models.PositiveIntegerField()
    spec = models.JSONField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["template", "number"], name="authored_version_unique")
        ]
        ordering = ["template", "number"]

    def __str__(self) -> str:
        return f"{self.template_id} v{self.number}"
