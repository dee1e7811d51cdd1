"""Listen to assess's progress and issue what became due, off the request if possible."""

from __future__ import annotations

import logging

from kombu.exceptions import OperationalError as BrokerOperationalError

log = logging.getLogger(__name__)

# What a publish raises when the broker cannot take the message (kombu wraps the
# transport's connection errors); a failure inside an in-process task is not one.
BROKER_ERRORS = (BrokerOperationalError, ConnectionError)


def on_progress(sender, *, user_id: int, reason: str, **kwargs) -> None:
    """Queue the evaluation on a worker; if the broker is down, evaluate here rather
    than lose it (the learner then waits a few milliseconds more)."""
    from certify.services.certificates import certificates_issue_due
    from certify.tasks import issue_due_certificates

    try:
        issue_due_certificates.delay(user_id)
    except BROKER_ERRORS:
        log.warning("broker unavailable; evaluating certificates for user %s inline", user_id)
        certificates_issue_due(user_id=user_id)
