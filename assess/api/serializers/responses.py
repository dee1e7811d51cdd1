"""Answers: the body that submits one, a stored answer as its reader may see it, and the
body that reveals a part."""

from __future__ import annotations

from rest_framework import serializers

from api_common.fields import StrictCharField, StrictIntegerField
from api_common.representation import HandWritten
from api_common.request_serializers import FlatRequest

MAX_ID = 2**63 - 1  # the largest primary key the databases store
MAX_KEY = 100

IDEMPOTENCY_HELP = (
    "A string the client chooses, unique per answer it means to send (a UUID will do), "
    f"1 to {MAX_KEY} characters. Send the same key again when retrying the same request "
    "(same question, part and answer): the first result comes back with 200 and nothing "
    "new is stored, so a retry never costs a try or counts twice. The same key with a "
    "different question, part or answer is refused with 422 and the first result stands. "
    "Keys are kept for the life of the attempt (also after it is finished) and are "
    "scoped to it: another attempt may reuse them."
)


class ResponseInputSerializer(FlatRequest, serializers.Serializer):
    question = StrictIntegerField(
        min_value=1, max_value=MAX_ID, help_text="The question's `id`, from this attempt."
    )
    part = StrictCharField(max_length=64, help_text="The part's `name`.")
    answer = StrictCharField(
        max_length=1000,
        allow_blank=True,
        trim_whitespace=False,
        help_text="The learner's text, as typed: a number with or without a unit "
        '("140 GB", "1.4e11 B", "130.4 GiB"), or one of a choice part\'s options. An '
        "answer the reader cannot read is a 400 with code `unreadable_answer` and "
        '`"valid": false`, saying what it expected; it is not stored and costs no try.',
    )
    idempotency_key = StrictCharField(max_length=MAX_KEY, help_text=IDEMPOTENCY_HELP)
    time_spent_ms = StrictIntegerField(
        min_value=0,
        max_value=2**31 - 1,
        required=False,
        allow_null=True,
        help_text="Optional: milliseconds the learner spent on this answer, for the item "
        "analysis. Not part of the replay comparison.",
    )


class ResponseResultSerializer(HandWritten, serializers.Serializer):
    """Correctness fields are null while the quiz's feedback policy hides them.

    Written by hand (`to_representation`), not field by field: an answer's body lists
    every earlier try of its question (`question_state.responses`, up to 29 at the
    tries ceiling), and DRF's path, or PlainRepresentation's plan, spent 13.5 us a try
    where this spends 2.9 (29 tries: 396 against 85 us, in-process on PostgreSQL). The
    declared fields still describe the payload (the schema is made from them), and
    tests/assess/api/test_response_writer.py holds the output to DRF's own
    (`serializers.Serializer.to_representation`, then the same masking) on every kind
    of value the fields take.
    """

    id = serializers.IntegerField()
    question = serializers.IntegerField(source="question_id")
    part = serializers.CharField()
    answer = serializers.CharField(source="raw", help_text="The text as the learner sent it.")
    created_at = serializers.DateTimeField()
    valid = serializers.BooleanField(
        help_text="Always true: unreadable answers are refused, never stored."
    )
    correct = serializers.BooleanField(
        allow_null=True, help_text="Null while the feedback policy hides grades."
    )
    score = serializers.FloatField(
        allow_null=True,
        help_text="This try's credit (0 to 1); null while the feedback policy hides grades.",
    )
    feedback = serializers.CharField(
        allow_null=True, help_text="What the grader said; null while hidden."
    )
    misconception = serializers.CharField(
        allow_null=True,
        help_text="The code of the mistake this answer looks like (e.g. `gb-vs-gib`); null "
        "when none was named or while hidden.",
    )

    def to_representation(self, response) -> dict:
        try:
            visible = self._visible  # asked once: DRF's `context` walks up to the root
        except AttributeError:
            visible = self._visible = self.context.get("visible", False)
        score = response.score
        return {
            "id": int(response.id),
            "question": int(response.question_id),
            "part": str(response.part),
            "answer": str(response.raw),
            "created_at": self._when("created_at", response.created_at),
            "valid": self._boolean("valid", response.valid),
            "correct": self._boolean("correct", response.correct) if visible else None,
            "score": None if not visible or score is None else float(score),
            "feedback": None
            if not visible or response.feedback is None
            else str(response.feedback),
            "misconception": (str(response.misconception) or None)
            if visible and response.misconception is not None
            else None,
        }


class RevealInputSerializer(FlatRequest, serializers.Serializer):
    part = StrictCharField(max_length=64, help_text="The `name` of the part to reveal.")
