"""Small HTTP helpers shared by the page views of every app (frontend, accounts, invitations)."""

from __future__ import annotations

from functools import wraps

from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404


def missing_is_404(view):
    """Selectors raise DoesNotExist for what the user may not see; pages answer 404,
    never hinting that the object exists."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except ObjectDoesNotExist:
            raise Http404 from None

    return wrapped
