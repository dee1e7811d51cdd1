"""Certification pages: the learner's tracks and what is left, the public verification
page of a certificate, and the managers' teams with their readiness matrix, CSV export
and revocation.

The verification page is public (its id is an unguessable token) and shows only what a
rota planner needs: valid or not, whose, which track, the dates. Evidence, scores,
mastery, email and the revocation reason stay private. A team is found through the orgs
gate (another organisation's team, or a non-manager, gets 404); a revocation is the
service's decision (403 for anyone but the holder's manager).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from api_common.http import missing_is_404
from api_common.service_errors import InvalidInput, NotPermitted
from certify import selectors as certs
from certify.requirements import Readiness, Status
from certify.services.certificates import certificate_revoke
from frontend.views.csv_download import csv_download
from orgs import selectors as orgs
from orgs.sso import organizations_sso_for

T = "frontend/certify/"
SHORT = {"mastery": "skills", "exam": "exam", "memo": "memo"}


def _date(moment) -> str:
    return moment.date().isoformat() if moment else ""


@dataclass(frozen=True)
class NextStep:
    text: str
    url: str = ""  # a link (GET)
    start_exam: int | None = None  # or a form posting to the exam's start


def next_step(cell: certs.Cell) -> NextStep:
    """The readiness's next step with where to do it: the lesson with most skills below
    the threshold, the exam's start, or the capstone."""
    standing, track = cell.standing, cell.track
    readiness = standing.readiness
    if standing.certified:
        return NextStep(
            f"Certified until {_date(standing.until)}: renew before then.",
            reverse("certificate-verify-page", args=[cell.certificate.pk]),
        )
    text = readiness.next_step
    unmet = {r.key for r in readiness.missing}
    below = {skill for skill, _, ok in readiness.skills if not ok}
    if "mastery" in unmet and readiness.track.lessons:
        lesson = max(readiness.track.lessons, key=lambda lesson: len(set(lesson.skills) & below))
        return NextStep(text, reverse("lesson-detail", args=[lesson.slug]))
    if "exam" in unmet:
        retaking_later = text.startswith("Retake")
        return NextStep(text, start_exam=None if retaking_later else track.exam_id)
    if "memo" in unmet:
        return NextStep(text, reverse("capstone"))
    return NextStep(text)


def missing_summary(readiness: Readiness) -> str:
    """ "skills (3 of 12 mastered), exam" — the short form for the matrix and the CSV."""
    parts = []
    for r in readiness.missing:
        if r.key == "mastery":
            done = sum(1 for _, _, ok in readiness.skills if ok)
            parts.append(f"skills ({done} of {len(readiness.skills)} mastered)")
        else:
            parts.append(SHORT.get(r.key, r.key))
    return ", ".join(parts)


def cell_text(cell: certs.Cell) -> str:
    """One matrix cell in words (the CSV's status column says the same)."""
    standing = cell.standing
    cert = standing.certificate
    if standing.status == Status.CERTIFIED:
        return f"Certified until {_date(standing.until)}"
    # An ended certificate says what renews it: the readiness's next step (a revoked
    # one's pass is spent, so that is a new exam at least).
    readiness = standing.readiness
    todo = readiness.next_step if readiness.missing else "every requirement is met again."
    if standing.status == Status.EXPIRED:
        return f"Expired {_date(cert.expires_at)}. To renew: {todo}"
    if standing.status == Status.REVOKED:
        return f"Revoked {_date(cert.revoked_at)}".strip() + f". To certify again: {todo}"
    readiness = standing.readiness
    met = len(readiness.requirements) - len(readiness.missing)
    return (
        f"In progress: {met} of {len(readiness.requirements)} met, "
        f"missing: {missing_summary(readiness)}"
    )


# ------------------------------------------------------------------------- learner


@login_required
def certify_home(request):
    cells = certs.standings_for_user(user=request.user)
    rows = [
        (cell, next_step(cell), [(s, p) for s, p, ok in cell.standing.readiness.skills if not ok])
        for cell in cells
    ]
    context = {"rows": rows}
    return render(request, T + "home.html", context)


@login_required
@missing_is_404
def certify_track(request, slug: str):
    track = certs.track_get(slug=slug)
    cell = certs.standing_for(user=request.user, track=track)
    context = {"cell": cell, "track": track, "step": next_step(cell)}
    return render(request, T + "track.html", context)


# -------------------------------------------------------------------- verification


def holder_name(user) -> str:
    return certs.holder_public_name(user)


@missing_is_404
def certificate_verify(request, pk: str):
    """Public: anyone with the link checks a certificate (a deleted account's, as
    revoked history naming no one)."""
    cert = certs.certificate_get_public(pk=pk)
    own = request.user.is_authenticated and request.user.pk == cert.holder_id
    context = {
        "cert": cert,
        "state": cert.state(timezone.now()),
        "holder": holder_name(cert.holder),
        "own": own,
    }
    return render(request, T + "verify.html", context)


@require_POST
@login_required
@missing_is_404
def certificate_revoke_view(request, pk: str):
    cert = certs.certificate_get_public(pk=pk)
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(back, {request.get_host()}, request.is_secure()):
        back = reverse("certificate-verify-page", args=[cert.pk])
    try:
        certificate_revoke(actor=request.user, certificate=cert, reason=request.POST.get("reason"))
    except NotPermitted:
        raise PermissionDenied from None
    except InvalidInput as err:
        messages.error(request, str(err))
    else:
        messages.success(
            request, f"Certificate “{cert.track.title}” of {holder_name(cert.holder)} revoked."
        )
    return redirect(back)


# --------------------------------------------------------------------------- teams


def _managers_only(user) -> None:
    """Non-managers get the same 404 as the API: no hint that teams exist."""
    if not orgs.user_is_manager(user=user):
        raise Http404


@login_required
def team_list(request):
    _managers_only(request.user)
    teams = orgs.teams_for_manager(user=request.user).order_by("organization__name", "name")
    sign_on = organizations_sso_for(user=request.user).order_by("name")
    managed = orgs.organizations_managed_by(user=request.user).order_by("name")
    context = {"teams": teams, "sign_on": sign_on, "managed": managed}
    return render(request, T + "teams.html", context)


@dataclass(frozen=True)
class MatrixRow:
    user: object
    cells: list[certs.Cell]


def _matrix(team) -> tuple[list, list[MatrixRow]]:
    tracks = list(team.tracks.all()) or list(certs.tracks_all())
    tracks.sort(key=lambda t: (t.order, t.slug))
    members = orgs.team_member_users(team=team)
    cells = certs.standings(user_ids=[u.pk for u in members], tracks=tracks)
    rows = [MatrixRow(u, [cells[(u.pk, t.pk)] for t in tracks]) for u in members]
    return tracks, rows


@login_required
@missing_is_404
def team_detail(request, pk: int):
    team = orgs.team_get_for_manager(user=request.user, pk=pk)
    tracks, rows = _matrix(team)
    shown = [(row.user, [(cell, cell_text(cell)) for cell in row.cells]) for row in rows]
    context = {"team": team, "tracks": tracks, "rows": shown}
    return render(request, T + "team.html", context)


def readiness_csv_rows(rows: list[MatrixRow]) -> list[list[str]]:
    out = [["username", "name", "track", "status", "until", "certificate", "missing requirements"]]
    for row in rows:
        for cell in row.cells:
            standing = cell.standing
            out.append(
                [
                    row.user.get_username(),
                    row.user.get_full_name(),
                    cell.track.slug,
                    standing.status.value,
                    _date(standing.until),
                    cell.certificate.pk if cell.certificate else "",
                    # A holder's exam pass is spent on the certificate: what
                    # a renewal needs is not "missing" while it is valid.
                    "" if standing.certified else missing_summary(standing.readiness),
                ]
            )
    return out


@login_required
@missing_is_404
def team_readiness_csv(request, pk: int):
    team = orgs.team_get_for_manager(user=request.user, pk=pk)
    _, rows = _matrix(team)
    name = f"readiness-{team.organization.slug}-{team.slug}.csv"
    return csv_download(name, readiness_csv_rows(rows))
