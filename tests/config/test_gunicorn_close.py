"""A sync worker closes a connection without waiting for the client to close it
(config/gunicorn.py): what the client already sent is read first, so the close never
resets the connection over unread bytes, and nothing blocks on the client."""

from __future__ import annotations

import inspect
import socket
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from gunicorn import util
from gunicorn.workers import sync

from config import gunicorn as settings_file
from config.gunicorn import close_without_waiting


class Probe(socket.socket):
    """The server's end of a connection, noting the timeout of every read it makes."""

    reads: list[float | None]

    def recv(self, size, *flags):
        self.reads.append(self.gettimeout())
        return super().recv(size, *flags)


@contextmanager
def connection() -> Iterator[tuple[socket.socket, Probe]]:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        client = socket.create_connection(listener.getsockname())
        accepted, _ = listener.accept()
        server = Probe(fileno=accepted.detach())
        server.reads = []
        try:
            yield client, server
        finally:
            client.close()
            server.close()


def test_the_sync_worker_closes_with_it():
    """Loading the settings file replaces the function the sync worker calls by name (a
    gunicorn that renamed it would fail here, not silently wait again)."""
    assert settings_file.close_without_waiting is util.close_graceful
    assert sync.util.close_graceful is close_without_waiting
    assert "util.close_graceful(client)" in inspect.getsource(sync.SyncWorker.handle)


def test_an_idle_client_that_keeps_its_socket_is_not_waited_for():
    with connection() as (client, server):
        server.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        close_without_waiting(server)
        assert server.fileno() == -1  # closed, the client still holding its end
        assert server.reads == [0.0]  # one read, not blocking: nothing had arrived
        received = b""
        while chunk := client.recv(4096):
            received += chunk
        assert received.endswith(b"\r\n\r\nok")  # the whole response, then the end


def test_bytes_the_client_sent_are_read_before_the_close_so_the_response_is_not_reset():
    """Closing a socket with unread bytes makes the kernel send a reset, which can cost
    the client the response it has not read yet; gunicorn's wait was for this."""
    with connection() as (client, server):
        client.sendall(b"x" * 10_000)  # a body the application never read
        _wait_readable(server)
        server.sendall(b"HTTP/1.1 413 Content Too Large\r\nContent-Length: 0\r\n\r\n")
        close_without_waiting(server)
        assert server.reads and all(timeout == 0.0 for timeout in server.reads)
        response = client.recv(4096)  # no ConnectionResetError
        assert response.startswith(b"HTTP/1.1 413") and client.recv(4096) == b""


def test_a_plain_close_would_have_reset_it():
    """The test above can fail: without the reads, the same exchange is reset."""
    with connection() as (client, server):
        client.sendall(b"x" * 10_000)
        _wait_readable(server)
        server.sendall(b"HTTP/1.1 413 Content Too Large\r\nContent-Length: 0\r\n\r\n")
        server.close()
        with pytest.raises(ConnectionResetError):
            client.recv(4096)
            client.recv(4096)


def _wait_readable(sock: socket.socket) -> None:
    """Until the client's bytes are in the server's buffer (no clock: a blocking peek)."""
    assert sock.recv(1, socket.MSG_PEEK)
    sock.reads.clear()
