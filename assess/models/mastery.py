"""Per-learner skill estimates (BKT) and the history behind the charts."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class SkillMastery(models.Model):
    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="skill_masteries",
        db_index=False,
    )
    skill = models.CharField(max_length=100)
    p_mastery = models.FloatField()
    responses = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["learner", "skill"]
        verbose_name_plural = "skill masteries"
        constraints = [
            models.UniqueConstraint(fields=["learner", "skill"], name="assess_skill_mastery")
        ]

    def __str__(self) -> str:
        return f"{self.learner} {self.skill}={self.p_mastery:.2f}"


class MasteryEvent(models.Model):
    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="mastery_events",
        db_index=False,
    )
    skill = models.CharField(max_length=100)
    p_before = models.FloatField()
    p_after = models.FloatField()
    response = models.ForeignKey(
        "assess.Response", on_delete=models.CASCADE, related_name="mastery_events"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [
            models.Index(fields=["learner", "skill", "created_at"], name="assess_mastery_history")
        ]

    def __str__(self) -> str:
        return f"{self.skill}: {self.p_before:.2f} -> {self.p_after:.2f}"
