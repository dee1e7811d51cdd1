"""gunicorn's settings file (Dockerfile: `--config python:config.gunicorn`): the master
wipes this container's metric files before it forks its workers (config.metrics_dir),
and a sync worker closes a connection without waiting for the client to close it.

gunicorn 27's sync worker ends every connection with `util.close_graceful`: it sends its
FIN, then waits up to 2 s for the client's, draining what the client sends meanwhile.
The wait is for a client that might still be sending, whose unread bytes would make the
kernel answer with a reset that can cut the response short (RFC 9112, 9.6). But a sync
worker serves nobody while it waits, and a client that reads its response and keeps the
socket open (an idle keep-alive client, a busy load generator, or someone who means it)
holds the worker the whole 2 s: one such client sending 1.5 requests a second would
hold all three of the Dockerfile's workers. Under the bench's bursts the workers spent
15% of their sampled time there (py-spy, bench/README.md).

`close_without_waiting` keeps what the wait is for and drops the wait: after the FIN it
reads whatever the client has already sent (so closing does not reset the connection
over unread bytes), without blocking, then closes. A body still arriving after that is
the one case left: the service reads the bodies it accepts, and the request-size guard
drains the ones it refuses (api_common/request_size.py).
"""

from __future__ import annotations

import contextlib
import socket

from gunicorn import util

from config.metrics_dir import wipe_process_dir

MAX_DRAIN = 65_536  # gunicorn's own cap on what a close reads


def close_without_waiting(sock: socket.socket, timeout: float = 2.0, max_drain: int = MAX_DRAIN):
    """gunicorn's close_graceful without the wait for the client's FIN (the module's
    docstring says why); `timeout` is accepted for its signature and not used."""
    try:
        try:
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            return
        sock.setblocking(False)
        drained = 0
        while drained < max_drain:
            try:
                data = sock.recv(4096)
            except OSError:  # BlockingIOError: nothing more has arrived
                break
            if not data:
                break
            drained += len(data)
    finally:
        with contextlib.suppress(OSError):
            sock.close()


util.close_graceful = close_without_waiting  # the sync worker calls util.close_graceful


def on_starting(server) -> None:
    wipe_process_dir()
