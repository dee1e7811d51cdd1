"""The database is unreachable (dropped connection, restart, failover): a clean 503.

A request whose query fails with OperationalError or InterfaceError has had its
transaction rolled back (the atomic block around every write aborts with it), so nothing
it did is stored and the client may simply send it again: 503 with Retry-After says
so, where a 500 would say "a bug". Two places produce it:

- the API's exception handler (api_common/errors.py) for errors inside a DRF view,
  in the API's error format with code `service_unavailable`;
- `server_error`, the project's handler500, for the rest (a page, or the middleware
  around a view): the 503 page, or the API's JSON body under /api/. Any other
  exception still gets Django's 500 page.

How fast it fails is set by DATABASE_CONNECT_TIMEOUT (settings): a server that is down
refuses at once; one that does not answer costs at most that many seconds.
"""

from __future__ import annotations

import sys

from django.db import InterfaceError, OperationalError
from django.http import JsonResponse
from django.views import defaults

UNAVAILABLE = (OperationalError, InterfaceError)
RETRY_AFTER = 5  # seconds: a restart or failover is usually over by then
CODE = "service_unavailable"
DETAIL = "The database is unavailable for a moment; nothing was saved. Try again shortly."


def database_unavailable(exc: BaseException | None) -> bool:
    return isinstance(exc, UNAVAILABLE)


def _unavailable_response(request):
    if request.path.startswith("/api/"):
        body = {"type": "server_error", "errors": [{"code": CODE, "detail": DETAIL, "attr": None}]}
        response = JsonResponse(body, status=503)
    else:
        response = defaults.server_error(request, template_name="503.html")
        response.status_code = 503
    response["Retry-After"] = str(RETRY_AFTER)
    return response


def server_error(request, template_name: str = "500.html"):
    """handler500: a 503 when the exception being handled is the database's."""
    if database_unavailable(sys.exc_info()[1]):
        return _unavailable_response(request)
    return defaults.server_error(request, template_name=template_name)
