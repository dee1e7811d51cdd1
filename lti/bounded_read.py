"""An LMS's answer read within a size and a time, whatever the LMS does.

requests' timeout bounds each wait for the next bytes, not the whole answer, and a
response is read to its end however long it is: an LMS that sends its headers and then
one byte a second held a roster task 45 s and a launch's key-set fetch 20 s, and would
have gone on as long as it kept sending. Here the body is read in chunks of at most one
socket read each (urllib3's `read1`), so a deadline checked between them bounds the
whole read to the deadline plus one read timeout, and the size is counted as it comes.
"""

from __future__ import annotations

import time

import requests

CHUNK = 65_536


class BodyRefused(Exception):
    """The answer was larger, or slower, than the caller allows."""


class TooLarge(BodyRefused):
    pass


class TooSlow(BodyRefused):
    pass


def read_body(response: requests.Response, *, max_bytes: int, seconds: float) -> bytes:
    """The whole body of a response requested with `stream=True`, or TooLarge / TooSlow
    once it passes `max_bytes` or `seconds`; the connection is closed either way. The
    body becomes the response's content, so `response.json()` and `.text` read it."""
    deadline = time.monotonic() + seconds
    body, size = [], 0
    try:
        while chunk := response.raw.read1(CHUNK, decode_content=True):
            size += len(chunk)
            if size > max_bytes:
                raise TooLarge(f"larger than {max_bytes:,} bytes")
            if time.monotonic() > deadline:
                raise TooSlow(f"not sent within {seconds:g} s")
            body.append(chunk)
    finally:
        response.close()
    response._content = b"".join(body)  # requests' own store of a read body
    response._content_consumed = True
    return response._content
