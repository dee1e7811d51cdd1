"""Per-learner extra time and later closes on one quiz (accommodations, extensions)."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q


class Extension(models.Model):
    """What one learner gets beyond the quiz's own rules: `extra_time` added to the
    quiz's time limit for each of their attempts, and/or `closes_at`, a later close for
    them alone. Written only by assess.services.extensions, which keeps the quiz's
    `extended_until` (the latest extension close) and the learner's open attempt in step.
    """

    quiz = models.ForeignKey(
        "assess.Quiz", on_delete=models.CASCADE, related_name="extensions", db_index=False
    )
    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assess_extensions"
    )
    extra_time = models.DurationField(null=True, blank=True)  # None: the quiz's time limit
    closes_at = models.DateTimeField(null=True, blank=True)  # None: the quiz's close
    granted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="assess_extensions_granted",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["quiz", "learner_id"]
        constraints = [
            models.UniqueConstraint(fields=["quiz", "learner"], name="assess_extension_once"),
            models.CheckConstraint(
                condition=Q(extra_time__isnull=True) | Q(extra_time__gt=timedelta(0)),
                name="assess_extension_extra_time_positive",
            ),
            models.CheckConstraint(
                condition=Q(extra_time__isnull=False) | Q(closes_at__isnull=False),
                name="assess_extension_something",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.learner} on {self.quiz}"
