"""The API's JSON renderer: DRF's, and once the body is written, the references that
only rendering needed are let go, so what a request built is freed when its response
is, not at the collector's next full pass.

Why: DRF ties a request's objects into reference cycles. `serializer.data` keeps its
serializer (`ReturnDict.serializer`, for the browsable API's forms), which keeps the
instance it wrote (a team's readiness: 600 standings, their certificates and people);
the view keeps its response (`view.response`) while the response's renderer context
keeps the view, and that context keeps the response itself. Reference counting never
frees a cycle: it waits for the cyclic collector, by then in its oldest generation, and
every full collection walks it again. A worker serving the team readiness API held nine
requests' worth of standings in that generation, and its collections took 12 ms a
request (bench/README.md, "the team's readiness"). Cutting those links after rendering
lets the response's data, serializer and instance go the moment the handler drops the
response.

DRF records these cycles itself (encode/django-rest-framework issues 5826 and 7250);
the browsable API's renderer, which reads `data.serializer`, keeps DRF's behaviour.
"""

from __future__ import annotations

from typing import Any

from rest_framework import renderers


def release(data: Any, renderer_context: dict | None) -> None:
    """Cut the links rendering needed: the written serializers (the output's, at the top
    and one level in, where a page wraps its results), and the view's and the context's
    holds on the response."""
    for value in (data, *(data.values() if isinstance(data, dict) else ())):
        serializer = getattr(value, "serializer", None)
        if serializer is not None:
            value.serializer = None
            _empty(serializer)
    context = renderer_context or {}
    context.pop("response", None)  # the response's own context: a cycle of one
    view = context.get("view")
    if view is not None:
        vars(view).pop("response", None)


def _empty(serializer) -> None:
    """Empty a written serializer (and a list's child): it holds its instance in more than
    one place (`instance`, and the arguments DRF keeps to copy it), and its fields point
    back at it (`parent`), a cycle of its own. Nothing reads it once the body is written."""
    child = getattr(serializer, "child", None)
    vars(serializer).clear()
    if child is not None:
        vars(child).clear()


class JSONRenderer(renderers.JSONRenderer):
    def render(self, data, accepted_media_type=None, renderer_context=None) -> bytes:
        body = super().render(data, accepted_media_type, renderer_context)
        release(data, renderer_context)
        return body
