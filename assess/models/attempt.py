"""A learner's attempt, the variants it was given, and every answer they sent."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from config.constraints import choice_check


class AttemptStatus(models.TextChoices):
    OPEN = "open", "Open"
    FINISHED = "finished", "Finished"
    EXPIRED = "expired", "Expired"


class Attempt(models.Model):
    Status = AttemptStatus

    quiz = models.ForeignKey(
        "assess.Quiz", on_delete=models.PROTECT, related_name="attempts", db_index=False
    )
    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assess_attempts"
    )
    # 1, 2, ... per learner and quiz; unique, so two racing starts cannot both pass the
    # attempts_allowed check.
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    started_at = models.DateTimeField(default=timezone.now)
    deadline = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    score = models.FloatField(null=True, blank=True)  # fraction 0..1, set at finish
    points = models.FloatField(null=True, blank=True)  # points earned, set at finish
    # Deferred feedback: the counted answers are held back from mastery until the learner
    # may see their grades; set when they were applied (see services.mastery).
    mastery_applied_at = models.DateTimeField(null=True, blank=True)
    # Lesson practice in sessions: how many questions this session holds, so its page
    # says "Question x of n" and it ends with a summary. None: open-ended (practice
    # started through the API, and every attempt of a quiz that is not adaptive).
    practice_length = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at", "-id"]
        constraints = [
            choice_check("status", AttemptStatus, name="assess_attempt_status_valid"),
            models.CheckConstraint(
                condition=models.Q(practice_length__isnull=True)
                | models.Q(practice_length__gte=1, practice_length__lte=50),
                name="assess_attempt_practice_length",
            ),
            models.UniqueConstraint(
                fields=["quiz", "learner", "number"], name="assess_attempt_number"
            ),
            # One open attempt per learner and quiz: two racing starts cannot both open
            # one; the loser resumes the winner's.
            models.UniqueConstraint(
                fields=["quiz", "learner"],
                condition=models.Q(status="open"),
                name="assess_attempt_one_open",
            ),
        ]
        indexes = [
            models.Index(fields=["status", "deadline"], name="assess_attempt_expiry"),
            # The beat's passback reconciliation reads the last days' releases (lti.reconcile).
            models.Index(fields=["mastery_applied_at"], name="assess_attempt_released"),
        ]

    def __str__(self) -> str:
        return f"{self.learner} on {self.quiz} #{self.number}"

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN

    def past_deadline(self, now) -> bool:
        return self.deadline is not None and now >= self.deadline

    @property
    def passed(self) -> bool | None:
        if self.score is None:
            return None
        return self.score >= self.quiz.pass_mark


class Question(models.Model):
    """One variant shown in an attempt, stored with all it takes to regrade it.

    `answers` holds the solved parts as a list (PostgreSQL's jsonb does not keep key
    order): name, value, unit, kind, weight, choices, label. It never leaves the server
    before the feedback policy allows.
    """

    attempt = models.ForeignKey(
        Attempt, on_delete=models.CASCADE, related_name="questions", db_index=False
    )
    slot = models.ForeignKey("assess.Slot", on_delete=models.PROTECT, related_name="questions")
    order = models.PositiveIntegerField()
    template_slug = models.CharField(max_length=64, db_index=True)
    template_version = models.PositiveIntegerField()
    seed = models.BigIntegerField()
    variant_number = models.PositiveIntegerField(default=0)
    params = models.JSONField()
    answers = models.JSONField()
    # What the learner saw, kept as shown even if the template's wording changes later:
    # the Markdown with LaTeX the engine wrote, and the HTML with MathML rendered from it
    # (API clients that typeset maths themselves, e.g. with KaTeX, take the Markdown).
    statement_html = models.TextField()
    statement_markdown = models.TextField(blank=True, default="")
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)
    # Hints shown so far, by the part each was asked from ({part: count}), and when the
    # first was: kept in step with the Hint rows by services.hints under the attempt's
    # lock, so scoring (the homework penalty) and mastery (no evidence after a hint)
    # decide on the question row every reader has already, without another query.
    hints = models.JSONField(default=dict, blank=True)
    hinted_at = models.DateTimeField(null=True, blank=True)
    # How many hints its worked solution gives, counted once when the question is drawn
    # for a quiz that offers hints (every read and answer shows the total, and cutting
    # the hints costs more than the rest of an answer's own work); null where the quiz
    # offers none, and for questions stored before it was kept (counted when read).
    hint_total = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["attempt", "order", "variant_number"]
        constraints = [
            models.UniqueConstraint(
                fields=["attempt", "slot", "variant_number"], name="assess_question_variant"
            )
        ]

    def __str__(self) -> str:
        return f"{self.template_slug} in attempt {self.attempt_id}"

    def part(self, name: str) -> dict | None:
        return next((p for p in self.answers if p["name"] == name), None)


# One row per (attempt, idempotency key): the unique constraint whose ON CONFLICT decides
# a replay in every INSERT of the answer path (services.responses, held_answers,
# first_tries).
RESPONSE_KEYS = ("attempt", "idempotency_key")


class Response(models.Model):
    """One readable answer to one part. Unreadable answers are refused, never stored."""

    # Redundant with question.attempt, but it lets the database enforce one row per
    # (attempt, idempotency key). Neither key has an index of its own: the unique
    # (attempt, key) and the (question, part, created_at) index lead with them, and
    # every answer writes this table (tests/config/test_indexes.py).
    attempt = models.ForeignKey(
        Attempt, on_delete=models.CASCADE, related_name="responses", db_index=False
    )
    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="responses", db_index=False
    )
    part = models.CharField(max_length=64)
    raw = models.TextField()
    parsed_value = models.JSONField(null=True, blank=True)
    parsed_unit = models.CharField(max_length=64, blank=True)
    valid = models.BooleanField(default=True)
    correct = models.BooleanField()
    score = models.FloatField()
    misconception = models.CharField(max_length=64, blank=True)  # "": none named
    feedback = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    time_spent_ms = models.PositiveIntegerField(null=True, blank=True)
    idempotency_key = models.CharField(max_length=100)
    # Honest evidence: this answer updated BKT mastery (the first try of a part with
    # immediate feedback; the counted answer of a deferred-feedback attempt once its
    # grades were released). fit_mastery reads these and only these.
    evidence = models.BooleanField(default=False)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=list(RESPONSE_KEYS), name="assess_response_idempotency")
        ]
        indexes = [
            models.Index(fields=["question", "part", "created_at"], name="assess_response_latest")
        ]

    def __str__(self) -> str:
        return f"{self.part}={self.raw!r} ({self.score:g})"


class Reveal(models.Model):
    """The learner asked to see a part's answer: its remaining tries are forfeit."""

    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="reveals", db_index=False
    )
    part = models.CharField(max_length=64)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["question", "part"], name="assess_reveal_part")
        ]

    def __str__(self) -> str:
        return f"{self.part} of question {self.question_id} revealed"


class Hint(models.Model):
    """One hint shown: the question's `step`-th hint (1-based), asked from `part`.

    A question has one sequence of hints (its worked solution's steps serve all its
    parts), so each step is shown once; asking again after the last records nothing."""

    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="hint_rows", db_index=False
    )
    part = models.CharField(max_length=64)
    step = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["question", "step"], name="assess_hint_step"),
            models.CheckConstraint(condition=models.Q(step__gte=1), name="assess_hint_step_gte_1"),
        ]

    def __str__(self) -> str:
        return f"hint {self.step} of question {self.question_id} ({self.part})"
