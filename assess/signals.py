"""What assess tells the rest of the service, without importing it.

`progress_recorded` is sent after the commit of anything a certification stands on: a
learner's mastery changed (evidence applied), an attempt closed, a memo decided. The
certify app listens and issues what became due; assess does not know it exists.
"""

from __future__ import annotations

from django.db import transaction
from django.dispatch import Signal

# Sent with user_id (the learner), reason ("mastery", "attempt", "memo") and, for
# mastery, changes: {skill: (P before, P after)}, so listeners can skip what cannot
# matter to them without a query.
progress_recorded = Signal()

# Sent with attempt_id, quiz_id and user_id (the learner) after the commit that makes a
# closed attempt's grade visible to its learner (its release by the feedback policy) or
# changes a released grade (a regrade). The LTI app sends grades to LMS gradebooks from
# it: a grade never leaves before its learner may see it.
grade_released = Signal()

# Sent with quiz and learner inside attempt_start, before a new attempt is made (not when
# an open one resumes), under the lock on the learner's attempts. A receiver refuses by
# raising a service error (api_common.service_errors): certify's lesson-mastery gate on
# its tracks' exams raises MasteryRequired. Signal.send lets the exception through.
attempt_starting = Signal()

# Sent with quiz inside attempt_start of a certification exam, before its questions are
# drawn. Each receiver returns a set of template slugs to leave out of the slots' pools
# (certify: templates whose variants differ in difficulty, until fixed). A slot whose
# every template is withheld keeps its pool, since the exam must still be drawable; the
# psychometrics report names such templates.
certification_withholding = Signal()


# Sent with quiz, attempt_id, slots (in order) and withheld (the set above) inside
# attempt_start of a certification exam, before its questions are drawn. A receiver
# returns the form, one template slug per slot, or None to leave each slot's draw to its
# pool (certify assembles forms to the calibrated items' information at the cut, with
# exposure control, once the pools are calibrated). The first form returned is used.
certification_form = Signal()


def certification_form_for(*, quiz, attempt_id: int, slots, withheld) -> list[str] | None:
    """The form a receiver of certification_form assembled, if any."""
    for _, form in certification_form.send(
        sender="assess", quiz=quiz, attempt_id=attempt_id, slots=slots, withheld=withheld
    ):
        if form:
            return list(form)
    return None


def certification_withheld(*, quiz) -> frozenset[str]:
    """The union of what the receivers of certification_withholding withhold."""
    found: set[str] = set()
    for _, slugs in certification_withholding.send(sender="assess", quiz=quiz):
        found.update(slugs or ())
    return frozenset(found)


def progress_recorded_on_commit(
    *,
    user_id: int,
    reason: str,
    changes: dict[str, tuple[float, float]] | None = None,
    quiz_id: int | None = None,
) -> None:
    """Send progress_recorded once the caller's transaction commits (at once outside
    one): listeners read what was written, never a rolled-back change. An attempt's end
    ("attempt") names its quiz."""
    transaction.on_commit(
        lambda: progress_recorded.send(
            sender="assess", user_id=user_id, reason=reason, changes=changes, quiz_id=quiz_id
        )
    )


def grade_released_on_commit(*, attempt_id: int, quiz_id: int, user_id: int) -> None:
    """Send grade_released once the caller's transaction commits."""
    transaction.on_commit(
        lambda: grade_released.send(
            sender="assess", attempt_id=attempt_id, quiz_id=quiz_id, user_id=user_id
        )
    )
