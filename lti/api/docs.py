"""What the schema tells a client author about the LMS grade-sync operations. Kept apart
from the views so they stay thin; tests/lti/test_score_sync_api.py holds the statuses to
the views."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiTypes

_WHO = (
    "For the quiz's instructors and staff; 404 for everyone else (a learner, another "
    "course's instructor), as if the quiz did not exist."
)

SCORES = (
    "The quiz's LMS grade passback: one row per learner per LMS course the quiz was "
    "launched from (an LMS course that offered the score service), saying what the LMS "
    "gradebook should hold (`score_given` of `score_maximum`) and whether it does: "
    "`pending` (to send, or being retried), `sent` (`sent_score_given` is what the LMS "
    "holds, `sent_at` when it took it) or `failed` with the `reason` (`permanent` when "
    "the LMS refused the score, e.g. a learner no longer in the LMS course; otherwise "
    "the retries ran out). Failed rows first, then pending, then sent, each by learner "
    "name. `?state=` keeps one state; any other value is a 400 naming `state`. " + _WHO
)
SUMMARY = (
    "How many of the quiz's LMS scores are pending, sent and failed, and `unsent` "
    "(pending plus failed: not yet in an LMS gradebook). All zero for a quiz never "
    "launched from an LMS with the score service. " + _WHO
)
RESEND = (
    "Send the quiz's unsent LMS scores again: failed rows go back to pending (with a new "
    "timestamp, so the LMS takes them as the latest) and are queued; pending rows are "
    "queued again as they are (a lost message); sent rows are left alone. Without `ids`, "
    "every unsent row of the quiz; with `ids`, only those of them (ids of sent rows or "
    "of another quiz's rows are ignored). Answers how many rows were queued. Delivery is "
    "once per row, so a second resend does no harm. 400 naming `ids` when it is not a "
    "list of at most 1000 positive integers (an item's error names its position, e.g. "
    "`ids.2`). " + _WHO
)

QUIZ_ID = OpenApiParameter(
    "id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The quiz's id."
)

RESEND_EXAMPLES = [
    OpenApiExample("Every failed score", value={}, request_only=True),
    OpenApiExample("Some rows", value={"ids": [12, 15]}, request_only=True),
]
