"""Reading a response's content security policy in tests."""

from __future__ import annotations

HEADER = "Content-Security-Policy"


def csp_directives(response) -> dict[str, str]:
    """The policy's directives by name, each with its sources as one string ("" if the
    response has no policy at all)."""
    directives = {}
    for directive in response.get(HEADER, "").split(";"):
        name, _, sources = directive.strip().partition(" ")
        if name:
            directives[name.lower()] = " ".join(sources.split())
    return directives


def frame_ancestors(response) -> str | None:
    return csp_directives(response).get("frame-ancestors")
