"""Listen to assess: a released (or regraded) grade goes to the LMS gradebooks the
learner launched the quiz from. Runs after assess's commit; a failure here is logged
and must not turn the learner's finish into an error page (the grade is safe in
Burn-in, and the instructor's page shows no row to resend until the next release)."""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)


def on_grade_released(sender, *, quiz_id: int, user_id: int, **kwargs) -> None:
    from lti.grades import scores_queue

    try:
        scores_queue(quiz_id=quiz_id, user_id=user_id)
    except Exception:
        log.exception("LTI scores for quiz %s, user %s not queued", quiz_id, user_id)
