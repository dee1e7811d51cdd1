"""An LMS's answer is read within a size and a time (lti/bounded_read.py), each checked
without a clock of the machine's: the answer moves a clock of its own."""

from __future__ import annotations

import socket
import threading

import pytest
import requests

from lti import bounded_read
from lti.bounded_read import TooLarge, TooSlow, read_body
from tests.lti.http_answers import answer


class Drip:
    """A body sent a few bytes at a time, each read taking `step` seconds of `clock`."""

    def __init__(self, chunks: list[bytes], clock: list[float], step: float) -> None:
        self.chunks, self.clock, self.step, self.reads = list(chunks), clock, step, 0

    def read1(self, amt=None, decode_content=None) -> bytes:
        self.reads += 1
        self.clock[0] += self.step
        return self.chunks.pop(0) if self.chunks else b""

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def clock(monkeypatch) -> list[float]:
    now = [0.0]
    monkeypatch.setattr(bounded_read.time, "monotonic", lambda: now[0])
    return now


def dripping(chunks: list[bytes], clock: list[float], step: float) -> requests.Response:
    response = requests.Response()
    response.status_code = 200
    response.raw = Drip(chunks, clock, step)
    return response


def test_a_whole_answer_is_read_and_kept_as_the_responses_content():
    response = answer(200, {"members": [{"user_id": "a"}]})
    assert read_body(response, max_bytes=1_000, seconds=5) == b'{"members": [{"user_id": "a"}]}'
    assert response.json() == {"members": [{"user_id": "a"}]}


def test_a_dripping_answer_is_cut_off_at_its_deadline(clock):
    """One byte a second, forever: refused once the clock passes the deadline, after
    as many reads as fit in it, not at the end of the body."""
    response = dripping([b"x"] * 1_000_000, clock, step=1.0)
    with pytest.raises(TooSlow, match="not sent within 20 s"):
        read_body(response, max_bytes=10**9, seconds=20)
    assert response.raw.reads == 21 and response.raw.closed


def test_an_answer_larger_than_allowed_is_refused_as_it_comes(clock):
    response = dripping([b"x" * 1_000] * 1_000, clock, step=0.0)
    with pytest.raises(TooLarge, match="larger than 10,000 bytes"):
        read_body(response, max_bytes=10_000, seconds=20)
    assert response.raw.reads == 11  # not the 1,000 chunks


@pytest.mark.timeout(60)
def test_a_real_dripping_server_is_cut_off():
    """Over a socket: headers, then a byte every 20 ms of a 100,000-byte body. Each read
    returns what one read of the socket brings (urllib3's read1), so the deadline is met;
    a read of 64 kB at a time would wait 20 minutes for its first chunk."""
    stop = threading.Event()
    with socket.create_server(("127.0.0.1", 0)) as server:

        def drip() -> None:
            conn, _ = server.accept()
            with conn:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
                while not stop.wait(0.02):
                    conn.sendall(b"x")

        thread = threading.Thread(target=drip, daemon=True)
        thread.start()
        host, port = server.getsockname()
        try:
            response = requests.get(f"http://{host}:{port}/keys", timeout=5, stream=True)
            with pytest.raises(TooSlow):
                read_body(response, max_bytes=10**6, seconds=0.3)
        finally:
            stop.set()
            thread.join()
