"""Grade passback: what each LMS gradebook should hold, sending it, and its state.

When assess releases a grade (grade_released: the learner may now see it), every LMS
context the learner launched the quiz from, and that offered the score service, gets a
ScoreSync row with the counted attempt's points; only a changed score goes back to
pending. The row is committed before anything is queued, so a broker that is down loses
nothing: the beat's requeue finds pending rows. The Celery task (lti.tasks.post_score)
delivers one row under its lock: a second delivery of a sent row does nothing.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import Sum
from django.utils import timezone
from lti_tool.models import LtiMembership

from assess.models import Quiz
from assess.selectors.grades import counted_attempt
from config.celery import queue
from lti import ags
from lti.models import LineItem, ScoreSync
from lti.platform_client import Permanent, Transient

STALE_AFTER = timedelta(minutes=10)  # a pending row untouched this long is queued again


def line_item_remember(*, context, quiz: Quiz, url: str) -> None:
    """Keep the line item the launch's AGS claim names for this link (the one a deep
    link created), unless the context already has one for the quiz."""
    if url:
        LineItem.objects.get_or_create(context=context, quiz=quiz, defaults={"url": url})


def _targets(*, quiz_id: int, user_id: int):
    """(context, LMS user) pairs to send the learner's grade on the quiz to: contexts
    that launched a link to the quiz, that the learner is a member of, and that gave us
    the score service."""
    return (
        LtiMembership.objects.filter(
            user__auth_user_id=user_id,
            context__resource_links__burnin_quiz__quiz_id=quiz_id,
            context__can_publish_scores=True,
        )
        .values_list("context_id", "user_id")
        .distinct()
    )


def _next_timestamp(previous: datetime | None, now: datetime) -> datetime:
    """AGS platforms ignore a score not newer than the last: keep ours rising."""
    if previous is not None and now <= previous:
        return previous + timedelta(microseconds=1)
    return now


def _back_to_pending(sync: ScoreSync, now: datetime) -> None:
    """A score to send afresh: a newer timestamp, no reason, no tries spent."""
    sync.timestamp = _next_timestamp(sync.timestamp, now)
    sync.state, sync.permanent, sync.reason, sync.tries = ScoreSync.State.PENDING, False, "", 0


def scores_queue(*, quiz_id: int, user_id: int) -> list[int]:
    """Brings the learner's ScoreSync rows for the quiz in line with their counted
    attempt; returns the ids that must be sent (their task is queued after commit)."""
    targets = list(_targets(quiz_id=quiz_id, user_id=user_id))
    if not targets:
        return []
    quiz = Quiz.objects.annotate(total_points=Sum("slots__points")).get(pk=quiz_id)
    attempt = counted_attempt(quiz=quiz, learner_id=user_id)
    maximum = float(quiz.total_points or 0)
    if attempt is None or maximum <= 0:
        return []
    given = min(max(float(attempt.points or 0.0), 0.0), maximum)
    now = timezone.now()
    due = []
    with transaction.atomic():
        for context_id, lti_user_id in targets:
            sync = (
                ScoreSync.objects.select_for_update()
                .filter(context_id=context_id, quiz_id=quiz_id, lti_user_id=lti_user_id)
                .first()
            )
            if sync is None:
                sync = ScoreSync(context_id=context_id, quiz_id=quiz_id, lti_user_id=lti_user_id)
            elif (
                sync.score_given == given
                and sync.score_maximum == maximum
                and (sync.state != ScoreSync.State.FAILED)
            ):
                continue  # unchanged: sent already, or on its way
            sync.learner_id = user_id
            sync.attempt = attempt
            sync.score_given, sync.score_maximum = given, maximum
            _back_to_pending(sync, now)
            try:
                with transaction.atomic():
                    sync.save()
            except IntegrityError:  # created by a racing release: it will send the score
                continue
            due.append(sync.pk)
        transaction.on_commit(lambda: enqueue(due))
    return due


NOT_QUEUED = (
    "Not queued: the task broker was unavailable. It is queued again within "
    f"{STALE_AFTER.seconds // 60} minutes."
)


def enqueue(sync_ids) -> None:
    """Queue delivery; with the broker down the rows stay pending for the requeue, and
    say so (a pending row with no reason would look in flight when it is not). The
    reason leaves `updated_at` alone, so the requeue still finds the row stale."""
    for sync_id in sync_ids:
        if not queue("lti.tasks.post_score", sync_id, what=f"score {sync_id}"):
            ScoreSync.objects.filter(pk=sync_id, state=ScoreSync.State.PENDING).update(
                reason=NOT_QUEUED
            )


def _line_item_url(sync: ScoreSync) -> str:
    existing = LineItem.objects.filter(context=sync.context, quiz=sync.quiz).first()
    if existing is not None:
        return existing.url
    url = ags.find_line_item(sync.context, sync.quiz_id)
    if url is None:
        link = sync.quiz.lti_links.filter(resource_link__context=sync.context).first()
        url = ags.create_line_item(
            sync.context,
            quiz_id=sync.quiz_id,
            label=sync.quiz.title,
            maximum=sync.score_maximum,
            resource_link_id=link.resource_link.id_on_platform if link else "",
        )
    item, _ = LineItem.objects.get_or_create(
        context=sync.context, quiz=sync.quiz, defaults={"url": url}
    )
    return item.url


def score_deliver(*, sync_id: int) -> str:
    """Sends one pending score; returns the row's state. Raises Transient (after
    recording the reason) when a retry may help. The row stays locked while the LMS is
    called, so two deliveries of one row send it once."""
    failure = None
    with transaction.atomic():
        sync = (
            ScoreSync.objects.select_for_update(of=("self",))
            .select_related("context__deployment__registration", "lti_user", "quiz")
            .filter(pk=sync_id)
            .first()
        )
        if sync is None or sync.state != ScoreSync.State.PENDING:
            return sync.state if sync else "missing"
        sync.tries += 1
        try:
            url = _line_item_url(sync)
            ags.post_score(
                sync.context,
                url,
                user_id=sync.lti_user.sub,
                given=sync.score_given,
                maximum=sync.score_maximum,
                timestamp=sync.timestamp,
            )
        except Permanent as exc:
            sync.state, sync.permanent, sync.reason = ScoreSync.State.FAILED, True, exc.reason
        except Transient as exc:
            sync.reason, failure = exc.reason, exc
        else:
            sync.state, sync.reason = ScoreSync.State.SENT, ""
            sync.sent_score_given, sync.sent_at = sync.score_given, timezone.now()
        sync.save()
    if failure is not None:
        raise failure
    return sync.state


def score_give_up(*, sync_id: int, reason: str) -> None:
    """Retries spent: failed, not permanent (a resend may well work later)."""
    ScoreSync.objects.filter(pk=sync_id, state=ScoreSync.State.PENDING).update(
        state=ScoreSync.State.FAILED, permanent=False, reason=reason, updated_at=timezone.now()
    )


def scores_resend(*, quiz: Quiz, sync_ids=None) -> int:
    """The instructor's resend of every unsent score of the quiz (or those of
    `sync_ids`): failed rows go back to pending with a new timestamp; pending rows (a
    retry waiting, a lost message) are queued again as they are. Sent rows are left
    alone. Delivery is once per row under its lock, so a second queueing is harmless.
    Returns how many rows were queued."""
    now = timezone.now()
    rows = ScoreSync.objects.filter(quiz=quiz).exclude(state=ScoreSync.State.SENT)
    if sync_ids is not None:
        rows = rows.filter(pk__in=list(sync_ids))
    ids = []
    with transaction.atomic():
        for sync in rows.select_for_update():
            if sync.state == ScoreSync.State.FAILED:
                _back_to_pending(sync, now)
                sync.save()
            ids.append(sync.pk)
        transaction.on_commit(lambda: enqueue(ids))
    return len(ids)


def scores_requeue_stale(*, now: datetime | None = None) -> int:
    """Queue again every pending row untouched for STALE_AFTER (a message lost, a broker
    down at the release); the beat calls this. Delivery is idempotent per row."""
    now = now or timezone.now()
    ids = list(
        ScoreSync.objects.filter(
            state=ScoreSync.State.PENDING, updated_at__lt=now - STALE_AFTER
        ).values_list("pk", flat=True)[:500]
    )
    enqueue(ids)
    return len(ids)
