"""Quizzes and their slots: what an instructor sets, before any learner starts."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from config.constraints import choice_check
from problems.engine import registry


def validate_template_pool(value) -> None:
    """A slot's pool: a non-empty list of distinct slugs the problem registry knows."""
    if not isinstance(value, list) or not value:
        raise ValidationError("A slot needs a non-empty list of template slugs.")
    if len(set(value)) != len(value):
        raise ValidationError("A slot lists a template twice.")
    for slug in value:
        if not isinstance(slug, str):
            raise ValidationError(f"Template slugs are strings, got {slug!r}.")
        try:
            registry.get(slug)
        except KeyError:
            raise ValidationError(f"Unknown template slug {slug!r}.") from None


def later_close(closes_at, extended):
    """A close moved by an extension: the later of the two. An extension never moves a
    close earlier, nor gives a never-closing quiz (closes_at None) one."""
    if closes_at is None:
        return None
    return max(closes_at, extended) if extended else closes_at


class QuizMode(models.TextChoices):
    PRACTICE = "practice", "Practice"
    HOMEWORK = "homework", "Homework"
    EXAM = "exam", "Exam"
    CERTIFICATION = "certification", "Certification"


class QuizFeedback(models.TextChoices):
    IMMEDIATELY = "immediately", "Immediately"
    AFTER_ATTEMPT = "after_attempt", "After the attempt"
    AFTER_CLOSE = "after_close", "After the quiz closes"


class QuizCounting(models.TextChoices):
    """Which of a learner's closed attempts is their grade (the LMS gradebook's and
    the gradebook's): the best score, or the last attempt closed."""

    BEST = "best", "Best attempt"
    LAST = "last", "Last attempt"


class Quiz(models.Model):
    class Status(models.TextChoices):
        """Where a quiz is in its life. Only draft and published are stored; closed is
        read from the dates (`status_at`): a published quiz whose close has passed for
        everyone, extensions included. An explicit close (services.quizzes.quiz_close)
        sets `closes_at` to now, so every rule keyed on the close (no start, no answer,
        "after the quiz closes" feedback, mastery release) follows from one field."""

        DRAFT = "draft", "Draft"
        PUBLISHED = "published", "Published"
        CLOSED = "closed", "Closed"

    STORED_STATUSES = (Status.DRAFT, Status.PUBLISHED)

    Mode = QuizMode

    Feedback = QuizFeedback

    Counting = QuizCounting

    title = models.CharField(max_length=200)
    # Published by default, so quizzes made by the API, the admin, track loading and
    # lesson practice are live as before; the web builder makes drafts.
    status = models.CharField(
        max_length=16,
        choices=[(s.value, s.label) for s in STORED_STATUSES],
        default=Status.PUBLISHED,
    )
    course = models.ForeignKey(
        "curricula.Course",
        # A course that still has quizzes must not vanish with its learners' records.
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="quizzes",
    )
    lessons = models.ManyToManyField("curricula.Lesson", blank=True, related_name="quizzes")
    mode = models.CharField(max_length=16, choices=Mode.choices)
    time_limit = models.DurationField(null=True, blank=True)
    attempts_allowed = models.PositiveIntegerField(null=True, blank=True)  # None: unlimited
    # Certification exams: the wait between the end of one attempt and the next start
    # (None: none). Fresh variants and the wait keep a retake from being a rehearsal.
    cooldown = models.DurationField(null=True, blank=True)
    opens_at = models.DateTimeField(null=True, blank=True)
    closes_at = models.DateTimeField(null=True, blank=True)
    # The latest close any learner's extension gives (None: no extension moves it),
    # written only by assess.services.extensions. With closes_at it makes
    # `closed_for_all_at`, the moment "after the quiz closes" feedback waits for.
    extended_until = models.DateTimeField(null=True, blank=True, editable=False)
    feedback = models.CharField(max_length=16, choices=Feedback.choices)
    pass_mark = models.FloatField(default=0.5)
    counting_attempt = models.CharField(
        max_length=8, choices=Counting.choices, default=Counting.BEST
    )
    # Immediate feedback only: graded tries per part (None: unlimited) and the share of
    # a part's points lost for each try before the first correct one. Deferred-feedback
    # quizzes (exams) take any number of saves and count the last.
    tries_per_part = models.PositiveIntegerField(null=True, blank=True)
    penalty_per_try = models.FloatField(default=0.0)
    # Homework only: the share of a part's points lost for each hint asked from it
    # (practice hints are free; exams and certifications offer none: assess.policy).
    hint_penalty = models.FloatField(default=0.0)
    # Adaptive lesson practice: one system quiz per lesson whose questions are chosen by
    # mastery, not drawn up front. Kept (lesson set to NULL) if the lesson is unloaded.
    adaptive = models.BooleanField(default=False)
    practice_lesson = models.OneToOneField(
        "curricula.Lesson",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="practice_quiz",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "quizzes"
        constraints = [
            choice_check("mode", QuizMode, name="assess_quiz_mode_valid"),
            choice_check("feedback", QuizFeedback, name="assess_quiz_feedback_valid"),
            choice_check("counting_attempt", QuizCounting, name="assess_quiz_counting_valid"),
            models.CheckConstraint(
                condition=Q(pass_mark__gte=0) & Q(pass_mark__lte=1), name="assess_quiz_pass_mark"
            ),
            models.CheckConstraint(
                condition=Q(attempts_allowed__isnull=True) | Q(attempts_allowed__gte=1),
                name="assess_quiz_attempts_allowed",
            ),
            models.CheckConstraint(
                condition=Q(tries_per_part__isnull=True) | Q(tries_per_part__gte=1),
                name="assess_quiz_tries_per_part",
            ),
            models.CheckConstraint(
                condition=Q(penalty_per_try__gte=0) & Q(penalty_per_try__lte=1),
                name="assess_quiz_penalty_per_try",
            ),
            models.CheckConstraint(
                condition=Q(hint_penalty__gte=0) & Q(hint_penalty__lte=1),
                name="assess_quiz_hint_penalty",
            ),
            models.CheckConstraint(
                condition=Q(opens_at__isnull=True)
                | Q(closes_at__isnull=True)
                | Q(opens_at__lt=models.F("closes_at")),
                name="assess_quiz_window",
            ),
            # Exams and certifications never grade as the learner goes, however the row
            # was made (the builder refuses it; this holds for the admin and data too).
            models.CheckConstraint(
                condition=~Q(mode__in=["exam", "certification"]) | ~Q(feedback="immediately"),
                name="assess_quiz_exam_feedback_deferred",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["draft", "published"]), name="assess_quiz_status_stored"
            ),
            # "after_close" with no close would never show feedback.
            models.CheckConstraint(
                condition=~Q(feedback="after_close") | Q(closes_at__isnull=False),
                name="assess_quiz_after_close_needs_close",
            ),
        ]

    def __str__(self) -> str:
        return self.title

    def status_at(self, now) -> str:
        """draft, published, or closed: published and closed for everyone by `now`."""
        if self.status == self.Status.DRAFT:
            return self.Status.DRAFT
        closes = self.closed_for_all_at
        if closes is not None and now >= closes:
            return self.Status.CLOSED
        return self.Status.PUBLISHED

    @property
    def is_draft(self) -> bool:
        return self.status == self.Status.DRAFT

    @property
    def closed_for_all_at(self):
        """When the quiz has closed for everyone: the latest of its own close and every
        extension's close (None: it never closes). Read from this row alone, so any
        reader that loaded the quiz (select_related included) agrees without a query;
        an admin edit of closes_at needs no upkeep, as the sum is taken on reading."""
        return later_close(self.closes_at, self.extended_until)

    @property
    def extension_applies(self) -> bool:
        """Does a learner's extension change anything here? Only on a quiz with a time
        limit (extra time) or a close (a later close for them)."""
        return self.time_limit is not None or self.closes_at is not None

    def closes_at_for(self, extension):
        """The close for one learner: their extension's later close, else the quiz's."""
        return later_close(self.closes_at, extension.closes_at if extension else None)

    @property
    def feedback_deferred(self) -> bool:
        """True when correctness waits for the attempt's end or the quiz's close."""
        return self.feedback != self.Feedback.IMMEDIATELY


class Slot(models.Model):
    """One position in a quiz; each attempt draws one template from the pool for it."""

    quiz = models.ForeignKey(Quiz, on_delete=models.CASCADE, related_name="slots", db_index=False)
    order = models.PositiveIntegerField()
    points = models.PositiveIntegerField(default=1)
    templates = models.JSONField(default=list, validators=[validate_template_pool])
    # How many variants were ever drawn ahead for the slot (assess.models.drawn): each
    # fill reserves the next numbers here, so a number, and so a seed, is never drawn
    # twice, even after the pool ran dry.
    variants_drawn = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["quiz", "order"]
        constraints = [
            models.UniqueConstraint(fields=["quiz", "order"], name="assess_slot_order"),
            models.CheckConstraint(condition=Q(points__gte=1), name="assess_slot_points"),
        ]

    def __str__(self) -> str:
        return f"{self.quiz} #{self.order}"
