"""What services raise when a request cannot be honoured; the API maps each to a status.

Services raise these rather than DRF exceptions so that a page, a command or a task can
call them too.
"""


class AssessError(Exception):
    """Base class; the message is meant for the learner or instructor."""


class Conflict(AssessError):
    """The attempt's or quiz's state forbids this now (HTTP 409)."""


class MasteryRequired(Conflict):
    """A certification exam asked for before the track's lesson-mastery requirement is
    met (HTTP 409, code `lesson_mastery_required`). `lessons`: the titles of the
    track's lessons still below its threshold, in the track's order."""

    code = "lesson_mastery_required"

    def __init__(self, message: str, lessons: tuple[str, ...]):
        super().__init__(message)
        self.lessons = lessons


class TooSoon(AssessError):
    """Allowed, but not yet: `retry_after` seconds from now (HTTP 429 with Retry-After)."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


class UnreadableAnswer(AssessError):
    """The reader could not read the answer; nothing was stored (HTTP 400)."""


class InvalidInput(AssessError):
    """The request names something that does not exist in it, e.g. an unknown part (400).
    `field` is the request field at fault, when there is one."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


class NotPermitted(AssessError):
    """The user may see the object but not do this to it (HTTP 403)."""


class IdempotencyMismatch(AssessError):
    """An idempotency key reused with a different body; the first result stands (422)."""
