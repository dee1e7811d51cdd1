"""The actions a learner took in an incident drill, in order, as they were shown."""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class DrillStep(models.Model):
    """One action taken in a drill question (problems.drills), written only by
    assess.services.drills under the attempt's lock.

    The output is kept as the learner saw it (the drill can always be replayed from its
    slug, seed and these action ids, but a later version of a renderer must not change
    what a stored attempt shows); minutes and disruptive are the action's at the time,
    so the timeline and the grade read one row. A retried request with the same
    idempotency key returns the step it took, so a network retry never takes a
    disruptive action twice."""

    question = models.ForeignKey(
        "assess.Question", on_delete=models.CASCADE, related_name="drill_steps", db_index=False
    )
    number = models.PositiveSmallIntegerField()  # 1, 2, ... in the order taken
    action = models.CharField(max_length=64)
    label = models.CharField(max_length=200)
    target = models.CharField(max_length=100)
    minutes = models.PositiveSmallIntegerField()
    disruptive = models.BooleanField()
    output = models.TextField()
    idempotency_key = models.CharField(max_length=100)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["question", "number"]
        constraints = [
            models.UniqueConstraint(fields=["question", "number"], name="assess_drillstep_number"),
            models.UniqueConstraint(
                fields=["question", "idempotency_key"], name="assess_drillstep_idempotency"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.number}. {self.action} in question {self.question_id}"
