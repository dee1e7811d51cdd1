"""One engineer's certification page, for themselves, their managers and staff: each
track's standing with its requirements met and missing, the next step, the renewal date,
every certificate and every attempt at the track's exam. The gate is orgs'
person_get_for (anyone else, and an unknown name, 404 alike)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from assess.models import Attempt
from certify import selectors as certs
from certify.models import Certificate
from orgs import selectors as orgs


@dataclass(frozen=True)
class TrackView:
    cell: certs.Cell
    certificates: list[tuple[Certificate, str]]  # (certificate, its state now), newest first
    attempts: list[Attempt]  # the track exam's attempts, newest first
    renew_by: datetime | None  # a valid certificate's expiry: the renewal date

    @property
    def track(self):
        return self.cell.track


@dataclass(frozen=True)
class PersonPage:
    person: object
    own: bool
    tracks: list[TrackView]


def person_page(*, asker, username: str, now: datetime | None = None) -> PersonPage:
    """Raises User.DoesNotExist (404) unless the asker is the person, a manager of an
    organisation they belong to, or staff. Eight queries whatever their history: the
    gate, the standings (five), certificates and exam attempts."""
    now = now or timezone.now()
    person = orgs.person_get_for(asker=asker, username=username)
    cells = certs.standings_for_user(user=person, now=now)
    by_track: dict[int, list[Certificate]] = defaultdict(list)
    for cert in Certificate.objects.filter(holder=person).order_by("-issued_at", "-pk"):
        by_track[cert.track_id].append((cert, cert.state(now)))
    exam_track = {cell.track.exam_id: cell.track.pk for cell in cells}
    attempts: dict[int, list[Attempt]] = defaultdict(list)
    for attempt in Attempt.objects.filter(learner=person, quiz_id__in=list(exam_track)).order_by(
        "-started_at", "-pk"
    ):
        attempts[exam_track[attempt.quiz_id]].append(attempt)
    views = [
        TrackView(
            cell=cell,
            certificates=by_track[cell.track.pk],
            attempts=attempts[cell.track.pk],
            renew_by=cell.standing.until if cell.standing.certified else None,
        )
        for cell in cells
    ]
    return PersonPage(person=person, own=person.pk == asker.pk, tracks=views)
