"""The learner's own dashboard."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.utils import timezone

from certify.selectors import certificates_for_holder
from frontend import queries


@login_required
def dashboard(request):
    user = request.user
    page = queries.dashboard_for_user(user=user)
    now = timezone.now()
    certificates = [(c, c.state(now)) for c in certificates_for_holder(user=user)]
    context = {"page": page, "certificates": certificates}
    return render(request, "frontend/dashboard.html", context)
