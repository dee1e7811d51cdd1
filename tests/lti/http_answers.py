"""HTTP answers for the fake LMSs, built as requests builds a real one (the body a
urllib3 response not yet read), so the service reads them through lti/bounded_read.py
exactly as it reads a platform's."""

from __future__ import annotations

import io
import json

import requests
from urllib3 import HTTPResponse


def answer(status: int, body, *, url: str = "", request=None, headers=None) -> requests.Response:
    """`body`: bytes as they are, anything else as JSON (None: empty)."""
    data = body if isinstance(body, bytes) else b"" if body is None else json.dumps(body).encode()
    response = requests.Response()
    response.status_code = status
    response.headers["Content-Type"] = "application/json"
    response.headers.update(headers or {})
    response.raw = HTTPResponse(
        body=io.BytesIO(data), status=status, headers=dict(response.headers), preload_content=False
    )
    response.url = request.url if request is not None else url
    response.request = request
    return response
