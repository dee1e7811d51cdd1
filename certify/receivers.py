"""Listen to assess's progress and issue what became due, off the request if possible."""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)


def on_progress(sender, *, user_id: int, reason: str, **kwargs) -> None:
    """Queue the evaluation on a worker; if the broker is down, evaluate here rather
    than lose it (the learner then waits a few milliseconds more)."""
    from certify.services.certificates import certificates_issue_due
    from certify.tasks import issue_due_certificates

    try:
        issue_due_certificates.delay(user_id)
    except Exception:  # noqa: BLE001 - any broker failure: do the work in-process
        log.warning("broker unavailable; evaluating certificates for user %s inline", user_id)
        certificates_issue_due(user_id=user_id)
