"""Certification tracks (loaded from certify/data) and the certificates they issue.

A certificate's id is a random 128-bit token in the URL (the verification page is
public), never the row's sequence number. Its evidence is a frozen snapshot taken at
issuance: what the manager and the holder see later, whatever mastery does since.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from config.constraints import choice_check


def new_certificate_id() -> str:
    """22 URL-safe characters: 128 bits from the OS's CSPRNG, not guessable."""
    return secrets.token_urlsafe(16)


class Track(models.Model):
    slug = models.SlugField(max_length=100, unique=True)
    title = models.CharField(max_length=200)
    summary = models.TextField()
    rotation = models.CharField(max_length=200)  # the on-call rotation it admits to
    order = models.PositiveIntegerField()
    lessons = models.ManyToManyField("curricula.Lesson", related_name="tracks")
    # Every skill of the lessons at or above this P(mastered) of the learner's BKT.
    mastery_threshold = models.FloatField()
    requires_memo = models.BooleanField(default=False)
    validity_days = models.PositiveIntegerField(default=365)
    reminder_days = models.PositiveIntegerField(default=30)
    exam = models.OneToOneField(
        "assess.Quiz", on_delete=models.PROTECT, related_name="certification_track"
    )

    class Meta:
        ordering = ["order", "slug"]
        constraints = [
            models.CheckConstraint(
                condition=Q(mastery_threshold__gt=0) & Q(mastery_threshold__lt=1),
                name="certify_track_threshold",
            )
        ]

    def __str__(self) -> str:
        return self.title


class CertificateStatus(models.TextChoices):
    VALID = "valid", "Valid"
    EXPIRED = "expired", "Expired"
    REVOKED = "revoked", "Revoked"


class Certificate(models.Model):
    Status = CertificateStatus

    id = models.CharField(
        primary_key=True, max_length=32, default=new_certificate_id, editable=False
    )
    holder = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="certificates"
    )
    track = models.ForeignKey(Track, on_delete=models.PROTECT, related_name="certificates")
    # Stored, not only computed from expires_at: the beat task marks expiry and a
    # revocation is final. Readers also compare expires_at with now, so a late beat
    # never makes an expired certificate look valid.
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.VALID)
    issued_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    evidence = models.JSONField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    revoke_reason = models.TextField(blank=True)
    reminder_sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-issued_at"]
        constraints = [
            # Two completions racing each other issue one certificate: the second
            # insert fails here and the service returns the first.
            models.UniqueConstraint(
                fields=["holder", "track"],
                condition=Q(status="valid"),
                name="certify_one_valid_certificate",
            ),
            models.CheckConstraint(
                condition=Q(expires_at__gt=models.F("issued_at")), name="certify_expiry"
            ),
            choice_check("status", CertificateStatus, name="certify_certificate_status_valid"),
        ]
        indexes = [models.Index(fields=["status", "expires_at"], name="certify_expiry_scan")]

    def __str__(self) -> str:
        return f"{self.track} for {self.holder} ({self.status})"

    def state(self, now) -> str:
        """valid, expired or revoked as of now (expiry by date even before the beat)."""
        if self.status == self.Status.REVOKED:
            return self.Status.REVOKED
        if self.status == self.Status.EXPIRED or now >= self.expires_at:
            return self.Status.EXPIRED
        return self.Status.VALID


class Calibration(models.Model):
    """One fit of the two-parameter logistic model over every template's responses
    (certify.psychometrics; the responses: certify.calibration_responses). Kept, not
    replaced: the psychometrics report shows each template's parameters over time, and a
    certificate's evidence names the calibration its exam was scored on."""

    fitted_at = models.DateTimeField(default=timezone.now)
    learners = models.PositiveIntegerField()
    responses = models.PositiveIntegerField()
    log_likelihood = models.FloatField()
    iterations = models.PositiveIntegerField()
    converged = models.BooleanField()

    class Meta:
        ordering = ["-fitted_at", "-id"]

    def __str__(self) -> str:
        return f"calibration {self.pk} of {self.fitted_at:%Y-%m-%d %H:%M}"


class ItemParameters(models.Model):
    """A template's 2PL parameters in one calibration, on the logistic scale (no 1.7
    factor): P(right | theta) = 1 / (1 + exp(-a (theta - b))), theta ~ N(0, 1)."""

    # No index of its own: the unique (calibration, template) constraint leads with it.
    calibration = models.ForeignKey(
        Calibration, on_delete=models.CASCADE, related_name="items", db_index=False
    )
    template_slug = models.CharField(max_length=64)
    discrimination = models.FloatField()
    difficulty = models.FloatField()
    se_discrimination = models.FloatField()
    se_difficulty = models.FloatField()
    n = models.PositiveIntegerField()
    # Do its variants differ in difficulty? (certify.psychometrics.variants: the SD of
    # the variant's difficulty shift over the answers, in logits, with its standard
    # error; None: too few answers or no numeric parameter to test.) A flagged template
    # leaves the certification pools until a calibration finds it even again.
    variant_spread = models.FloatField(null=True, blank=True)
    variant_spread_se = models.FloatField(null=True, blank=True)
    variants_flagged = models.BooleanField(default=False)
    # Infit and outfit mean squares of its answers (certify.psychometrics.fit); None in
    # calibrations made before they were computed.
    infit = models.FloatField(null=True, blank=True)
    outfit = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["calibration", "template_slug"]
        constraints = [
            models.UniqueConstraint(
                fields=["calibration", "template_slug"], name="certify_item_once_per_fit"
            ),
            models.CheckConstraint(
                condition=Q(se_discrimination__gte=0) & Q(se_difficulty__gte=0),
                name="certify_item_se_nonnegative",
            ),
        ]
        indexes = [models.Index(fields=["template_slug", "calibration"], name="certify_item_hist")]

    def __str__(self) -> str:
        return f"{self.template_slug}: a={self.discrimination:.2f} b={self.difficulty:.2f}"


class StandardSetting(models.Model):
    """A track's cut on the ability scale, set by staff from modified Angoff ratings
    (certify.psychometrics.standard_setting) on one calibration's scale. Versioned: a
    new setting is a new row, and each exam decision names the one it used."""

    # No index of its own: the unique (track, version) constraint leads with it.
    track = models.ForeignKey(
        Track, on_delete=models.CASCADE, related_name="standard_settings", db_index=False
    )
    version = models.PositiveIntegerField()
    method = models.CharField(max_length=32, default="modified-angoff")
    calibration = models.ForeignKey(
        Calibration, on_delete=models.PROTECT, related_name="standard_settings"
    )
    ratings = models.JSONField()  # {template: [each rater's probability]}
    cut_theta = models.FloatField()
    borderline_score = models.FloatField()
    set_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="standard_settings"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["track", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["track", "version"], name="certify_standard_version")
        ]

    def __str__(self) -> str:
        return f"{self.track} cut v{self.version}: theta {self.cut_theta:.2f}"


class ExamRuleKind(models.TextChoices):
    ABILITY = "ability", "Ability at or above the cut"
    RAW_SCORE = "raw-score", "Raw score at or above the pass mark"


class ExamDecision(models.Model):
    """How one finished certification exam attempt was decided (ExamRule), recorded once
    by certify.services.exam_decisions before any certificate reads it."""

    Rule = ExamRuleKind

    attempt = models.OneToOneField(
        "assess.Attempt", on_delete=models.CASCADE, related_name="exam_decision"
    )
    rule = models.CharField(max_length=16, choices=Rule.choices)
    passed = models.BooleanField()
    reason = models.TextField()
    theta = models.FloatField(null=True, blank=True)
    se = models.FloatField(null=True, blank=True)
    cut = models.FloatField(null=True, blank=True)
    standard_setting = models.ForeignKey(
        StandardSetting, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    drills_passed = models.BooleanField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            choice_check("rule", ExamRuleKind, name="certify_examdecision_rule_valid"),
        ]

    def __str__(self) -> str:
        return f"attempt {self.attempt_id}: {'pass' if self.passed else 'fail'} ({self.rule})"
