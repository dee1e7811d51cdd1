"""A private redis-server for fault tests: on a spare port, never the shared server the
rest of the suite uses, so a test may stop it, freeze it and start it again."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
import redis


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """One redis-server subprocess (no persistence) that a test drives:

    - stop(): the process is gone, connections are refused at once;
    - pause(): SIGSTOP, the process is frozen but the kernel still accepts connections,
      so a client waits for a reply that never comes (a hung server, a dropped route);
    - resume(): SIGCONT, it answers again, including what was sent meanwhile."""

    def __init__(self, workdir: Path):
        self.port = free_port()
        self.workdir = workdir
        self.proc: subprocess.Popen | None = None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                shutil.which("redis-server"), "--port", str(self.port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--daemonize", "no", "--dir", str(self.workdir),
            ],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        client = redis.Redis.from_url(self.url, socket_connect_timeout=0.5)
        try:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                try:
                    if client.ping():
                        return
                except redis.ConnectionError:
                    time.sleep(0.05)
            pytest.fail("the private redis-server did not answer within 10 s")
        finally:
            client.close()

    def pause(self) -> None:
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.proc.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)  # a frozen process cannot exit
            self.proc.terminate()
            self.proc.wait(timeout=10)
