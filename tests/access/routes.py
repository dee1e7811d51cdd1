"""The URL conf, walked: every named route (admin collapsed to its index) and the
methods each DRF view implements."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, get_resolver

ADMIN_ROWS = {"admin:index"}
METHODS = ("get", "post", "put", "patch", "delete")


def _walk(resolver, namespace=""):
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            yield from _walk(
                pattern, namespace + (f"{pattern.namespace}:" if pattern.namespace else "")
            )
        elif isinstance(pattern, URLPattern) and pattern.name:
            yield namespace + pattern.name, pattern.callback


def _routes() -> dict:
    routes = {}
    for name, callback in _walk(get_resolver()):
        if name.startswith("admin:") and name not in ADMIN_ROWS:
            continue
        routes.setdefault(name, callback)
    return routes


def route_names() -> set[str]:
    return set(_routes())


def api_methods() -> dict[str, list[str]]:
    """{route name: [METHOD, ...]} for the DRF views (a viewset's bound actions, an
    APIView's handlers); Django's own class-based views (sign-in) are left to their row."""
    out = {}
    for name, callback in _routes().items():
        cls = getattr(callback, "cls", None)
        if cls is None:
            continue
        actions = getattr(callback, "actions", None)
        # DRF adds "head" to a viewset's actions on its first request: left out, as
        # HEAD is GET's gate.
        methods = [m for m in METHODS if (m in actions if actions else hasattr(cls, m))]
        out[name] = [m.upper() for m in methods]
    return out
