"""Fixtures shared by the settings-and-infrastructure tests."""

from __future__ import annotations

import socket
import threading

import pytest


@pytest.fixture
def silent_server():
    """A socket that accepts connections and never answers: a hung Redis."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held = []
    stop = threading.Event()

    def accept():
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()
