"""One engineer's certification page (frontend/queries/people.py), linked from the
readiness matrix: for the engineer, their managers and staff; anyone else 404."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from api_common.http import missing_is_404
from frontend.queries.people import person_page


@login_required
@missing_is_404
def person_detail(request, username: str):
    page = person_page(asker=request.user, username=username)
    return render(request, "frontend/certify/person.html", {"page": page})
