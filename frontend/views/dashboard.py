"""The learner's own dashboard."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from frontend import queries


@login_required
def dashboard(request):
    page = queries.dashboard_for_user(user=request.user)
    return render(request, "frontend/dashboard.html", {"page": page})
