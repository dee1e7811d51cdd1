"""Variants drawn ahead of a quiz's starts, waiting to be handed out.

An exam opens and its learners press Start within the same second: drawing and rendering
each question there (about 1.5-3 ms of Python a question) made the start the dearest
request of the burst. So the questions of an exam or a homework are drawn before anyone
asks (assess.services.drawn_variants: when the quiz is published, and topped up by the
beat), and a start takes one waiting variant per slot in one statement
(assess.services.drawn_variants.drawn_claim), which deletes it from here: each is handed out
once. A row is a Question waiting for its attempt: the same columns, minus what an
attempt gives it.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class DrawnVariant(models.Model):
    slot = models.ForeignKey(
        "assess.Slot", on_delete=models.CASCADE, related_name="drawn_variants", db_index=False
    )
    # The pool's own count per slot, in the seed (services.questions.drawn_seed): a
    # variant's seed is never an attempt's, and is as unguessable (an HMAC under SECRET_KEY).
    number = models.PositiveIntegerField()
    template_slug = models.CharField(max_length=64)
    template_version = models.PositiveIntegerField()
    seed = models.BigIntegerField()
    params = models.JSONField()
    answers = models.JSONField()
    statement_html = models.TextField()
    statement_markdown = models.TextField()
    # How many hints the worked solution gives: the question's hint_total where its quiz
    # offers hints (decided at the start, from the quiz as it is then).
    hint_count = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["slot", "number"], name="assess_drawn_number")
        ]

    def __str__(self) -> str:
        return f"{self.template_slug} drawn for slot {self.slot_id}"
