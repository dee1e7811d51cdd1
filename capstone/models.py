"""The capstone: a learner's seeded brief, the memo they write against it, every version
of that memo, the review a worker wrote for each version, and the instructor's decision.

A version is never edited after it is stored: a resubmission is a new version, and a
review belongs to the version it read, so what a learner was told can always be shown
again next to the text it was about.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from config.constraints import choice_check


class Capstone(models.Model):
    """A learner's capstone brief in a course. The seed drew the brief; `brief` keeps it
    as drawn (Brief.as_dict) with the generator's `brief_version`, so a change to the
    generator never rewrites the brief under a memo (capstone.memo_review.kept)."""

    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="capstones", db_index=False
    )
    course = models.ForeignKey(
        "curricula.Course", on_delete=models.CASCADE, related_name="capstones"
    )
    seed = models.PositiveBigIntegerField()
    brief = models.JSONField(null=True, blank=True)
    # The brief generator's version (capstone.memo_review.brief.BRIEF_VERSION) at the draw.
    brief_version = models.PositiveSmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["course", "learner"]
        constraints = [models.UniqueConstraint(fields=["learner", "course"], name="capstone_once")]

    def __str__(self) -> str:
        return f"capstone of {self.learner} in {self.course} (seed {self.seed})"


class MemoStatus(models.TextChoices):
    IN_REVIEW = "in_review", "In review"
    CHANGES_REQUESTED = "changes_requested", "Changes requested"
    APPROVED = "approved", "Approved"


class Memo(models.Model):
    """The memo a learner writes for their capstone; its text lives in its versions."""

    Status = MemoStatus

    capstone = models.OneToOneField(Capstone, on_delete=models.CASCADE, related_name="memo")
    status = models.CharField(max_length=24, choices=Status.choices, default=Status.IN_REVIEW)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-updated_at", "pk"]
        constraints = [choice_check("status", MemoStatus, name="capstone_memo_status_valid")]

    def __str__(self) -> str:
        return f"memo {self.pk} ({self.status})"


class MemoReviewStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class MemoVersion(models.Model):
    """One submitted text of a memo and the state of its automatic review.

    `html` is `markdown` rendered once, when the version is stored, by the one renderer
    of learner Markdown (capstone.memo_review.memo_markdown.memo_html).

    `review_status` moves queued -> running -> done, or to failed with `review_error`
    once retries are spent; `deliveries` counts the times a worker started it (a redelivery
    after a killed worker shows as 2), while the review itself is written once.
    """

    ReviewStatus = MemoReviewStatus

    memo = models.ForeignKey(
        Memo, on_delete=models.CASCADE, related_name="versions", db_index=False
    )
    number = models.PositiveIntegerField()
    markdown = models.TextField()
    # The text as HTML, made once when the version is stored (memo_markdown.memo_html):
    # the pages show it and never parse a memo on a view.
    html = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    review_status = models.CharField(
        max_length=16, choices=ReviewStatus.choices, default=ReviewStatus.QUEUED
    )
    review_error = models.TextField(blank=True, default="")
    review = models.JSONField(null=True, blank=True)
    score = models.FloatField(null=True, blank=True)
    max_score = models.FloatField(null=True, blank=True)
    queued_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    deliveries = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["memo", "number"]
        constraints = [
            choice_check(
                "review_status", MemoReviewStatus, name="capstone_memo_version_status_valid"
            ),
            models.UniqueConstraint(fields=["memo", "number"], name="capstone_memo_version_once"),
        ]
        indexes = [
            models.Index(fields=["review_status", "queued_at"], name="capstone_memo_review_due")
        ]

    def __str__(self) -> str:
        return f"memo {self.memo_id} v{self.number} ({self.review_status})"


class MemoVerdict(models.TextChoices):
    APPROVE = "approve", "Approve"
    REQUEST_CHANGES = "request_changes", "Request changes"


class MemoDecision(models.Model):
    """An instructor's decision on one reviewed version, with criterion adjustments:
    `adjustments` is a list of {"criterion": code, "points": float, "comment": str}."""

    Decision = MemoVerdict

    memo = models.ForeignKey(Memo, on_delete=models.CASCADE, related_name="decisions")
    version = models.ForeignKey(MemoVersion, on_delete=models.CASCADE, related_name="decisions")
    instructor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="memo_decisions"
    )
    decision = models.CharField(max_length=24, choices=Decision.choices)
    comment = models.TextField(blank=True, default="")
    adjustments = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["memo", "created_at", "pk"]
        constraints = [choice_check("decision", MemoVerdict, name="capstone_memo_decision_valid")]

    def __str__(self) -> str:
        return f"{self.decision} on memo {self.memo_id} v{self.version.number}"
