"""A track's psychometrics report for staff (certify.report; the same figures as
GET /api/tracks/{slug}/psychometrics/). Anyone else gets 404, as for any object they may
not see."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render

from api_common.http import missing_is_404
from certify import selectors as certs
from certify.report import track_report


@login_required
@missing_is_404
def track_psychometrics(request, slug: str):
    if not request.user.is_staff:
        raise Http404("No report here.")
    report = track_report(track=certs.track_get(slug=slug))
    return render(request, "frontend/certify/psychometrics.html", {"report": report})
