"""Listen to assess's progress and issue what became due, in the same request.

No broker on this road: an answer that completes a track gets its certificate whether
or not Redis is up (a publish to a dead Redis blocks for seconds while redis-py
retries). It stays cheap because a mastery change can only complete a track when a
skill rises across a track's threshold: every other answer is dismissed in memory after
one cached read of the thresholds. The end of an attempt is evaluated when its quiz is
a track's exam (a pass is a requirement of its own) or when its release moved a skill
across a threshold; any other attempt's end is dismissed the same way. A memo's approval
always evaluates.
"""

from __future__ import annotations

import logging

from django.core.cache import cache

log = logging.getLogger(__name__)

THRESHOLDS_KEY = "certify:thresholds"
TRACK_EXAMS_KEY = "certify:track-exams"
THRESHOLDS_TTL = 300  # seconds; load_tracks clears the keys at once


def track_thresholds() -> tuple[float, ...]:
    from certify.models import Track

    return cache.get_or_set(
        THRESHOLDS_KEY,
        lambda: tuple(sorted(set(Track.objects.values_list("mastery_threshold", flat=True)))),
        THRESHOLDS_TTL,
    )


def track_exam_ids() -> frozenset[int]:
    """The quizzes that are some track's certification exam (cached like the thresholds)."""
    from certify.models import Track

    return cache.get_or_set(
        TRACK_EXAMS_KEY,
        lambda: frozenset(Track.objects.values_list("exam_id", flat=True)),
        THRESHOLDS_TTL,
    )


def _dismissed(reason: str, changes, quiz_id) -> bool:
    """True when this progress cannot have completed a track (see the module docstring)."""
    if reason == "mastery":
        return changes is not None and not may_complete(changes, track_thresholds())
    if reason == "attempt" and quiz_id is not None and quiz_id not in track_exam_ids():
        return not changes or not may_complete(changes, track_thresholds())
    return False


def may_complete(changes: dict[str, tuple[float, float]], thresholds) -> bool:
    """Pure: did any skill rise across any threshold (before < t <= after)?"""
    return any(before < t <= after for before, after in changes.values() for t in thresholds)


def on_progress(sender, *, user_id: int, reason: str, changes=None, quiz_id=None, **kwargs) -> None:
    """Issue the certificates the learner has earned. Runs after the commit of what was
    recorded, so a failure here must not turn a saved answer into an error page: it is
    logged with its traceback and the next progress (or an exam or memo) tries again."""
    from certify.services.certificates import certificates_issue_due

    if _dismissed(reason, changes, quiz_id):
        return
    try:
        certificates_issue_due(user_id=user_id)
    except Exception:
        log.exception("certificate evaluation failed for user %s (%s)", user_id, reason)
