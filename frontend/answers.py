"""From a posted answer form to response_submit, and the drafts a reload must keep.

The page sends every part of a question at once, and autosave sends the same text again
and again; response_submit stores every new idempotency key. So the key is derived from
the question, the part, the text and the response it would follow: the same text sent
twice (a double click, a retried autosave, two racing requests) is one response and
costs one try, while changing an answer back to an earlier text (A, then B, then A) is
a fresh key and a new response that counts. A key is therefore never reused for another
answer; should the service still see one (IdempotencyMismatch), or refuse a part that
takes no more tries (Conflict: solved, revealed, out of tries, attempt over), the part
comes back refused with the service's message, for the page to say, and nothing is
stored.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from api_common.service_errors import Conflict, IdempotencyMismatch, UnreadableAnswer
from assess.models import Attempt, Question, Response
from assess.selectors.attempt_rows import question_responses
from assess.services.attempts import attempt_finish
from assess.services.responses import response_submit

FIELD_PREFIX = "part-"
MAX_DRAFT_CHARS = 256
MAX_DRAFTS = 300
SESSION_DRAFTS = "answer_drafts"
SESSION_ERRORS = "answer_errors"


def posted_texts(question: Question, data) -> dict[str, str]:
    """The question's parts found in a form post, by part name (unknown fields ignored)."""
    out = {}
    for part in question.answers:
        value = data.get(FIELD_PREFIX + part["name"])
        if value is not None:
            out[part["name"]] = str(value)[:MAX_DRAFT_CHARS]
    return out


def idempotency_key(question_id: int, part: str, previous_id: int, text: str) -> str:
    digest = hashlib.sha256(f"{question_id}|{part}|{previous_id}|{text}".encode()).hexdigest()
    return f"web-{digest[:48]}"


@dataclass(frozen=True)
class PartOutcome:
    part: str
    response: Response | None
    error: str = ""
    unchanged: bool = False
    refused: bool = False  # the service would not take it (error says why); not a typo


@dataclass(frozen=True)
class Submitted:
    outcomes: list[PartOutcome]
    # When the question's last answer was saved, these included (an autosave's "Saved
    # at", as QuestionView.saved_at says it): known from the read the submit makes anyway.
    saved_at: datetime | None


def answers_submit(*, attempt: Attempt, question: Question, texts: dict[str, str]) -> Submitted:
    """Submit each non-empty part that differs from its latest saved answer.

    Unreadable answers come back as errors (nothing stored, no try spent). A part the
    service refuses (Conflict, IdempotencyMismatch) comes back `refused`, so one closed
    part does not lose the answers to the others sent with it.
    """
    latest: dict[str, Response] = {}  # each part's latest saved answer
    for r in question_responses(question.pk):
        latest[r.part] = r
    outcomes = []
    for part, raw in texts.items():
        text = raw.strip()
        if not text:
            continue
        previous = latest.get(part)
        if previous is not None and previous.raw == text:
            outcomes.append(PartOutcome(part, previous, unchanged=True))
            continue
        key = idempotency_key(question.pk, part, previous.pk if previous else 0, text)
        try:
            result = response_submit(
                attempt=attempt, question=question, part=part, text=text, idempotency_key=key
            )
        except UnreadableAnswer as err:
            outcomes.append(PartOutcome(part, None, error=str(err)))
            continue
        except (Conflict, IdempotencyMismatch) as err:
            outcomes.append(PartOutcome(part, None, error=str(err), refused=True))
            continue
        outcomes.append(PartOutcome(part, result.response, unchanged=result.replayed))
    saves = [*latest.values(), *(o.response for o in outcomes if o.response is not None)]
    return Submitted(outcomes, max((r.created_at for r in saves), default=None))


# ------------------------------------------------------------------------------ drafts


def drafts_get(session) -> dict[str, str]:
    return dict(session.get(SESSION_DRAFTS, {}))


def drafts_save(session, question_id: int, texts: dict[str, str]) -> None:
    """Keep typed text per question and part; the oldest drafts go past MAX_DRAFTS.
    Nothing to keep touches nothing: a session marked modified is written back (one
    UPDATE) at the end of the request, and every autosave passes through here."""
    if not texts:
        return
    drafts = drafts_get(session)
    for part, text in texts.items():
        key = f"{question_id}:{part}"
        drafts.pop(key, None)  # re-insert so the newest is last
        drafts[key] = text[:MAX_DRAFT_CHARS]
    while len(drafts) > MAX_DRAFTS:
        drafts.pop(next(iter(drafts)))
    session[SESSION_DRAFTS] = drafts


def drafts_clear(session, question_id: int, parts) -> None:
    """Forget the drafts of these parts; the session is written only if one was kept."""
    drafts = drafts_get(session)
    gone = [drafts.pop(f"{question_id}:{part}", None) for part in parts]
    if any(text is not None for text in gone):
        session[SESSION_DRAFTS] = drafts


def errors_flash(session, question_id: int, outcomes: list[PartOutcome]) -> None:
    """Unreadable answers, kept for the page the no-JavaScript post redirects to."""
    errors = {f"{question_id}:{o.part}": o.error for o in outcomes if o.error and not o.refused}
    if errors:
        session[SESSION_ERRORS] = {**session.get(SESSION_ERRORS, {}), **errors}


def errors_pop(session) -> dict[str, str]:
    return session.pop(SESSION_ERRORS, {})


def attempt_expire_if_due(*, attempt: Attempt, now=None) -> Attempt:
    """Close the learner's own attempt once its deadline has passed, through the
    service, so the page can say the saved answers were submitted. A finish that lost a
    race to the expiry task (Conflict) just rereads the closed attempt."""
    now = now or timezone.now()
    if not (attempt.is_open and attempt.past_deadline(now)):
        return attempt
    try:
        return attempt_finish(attempt=attempt, now=now)
    except Conflict:
        return Attempt.objects.select_related("quiz", "learner").get(pk=attempt.pk)
