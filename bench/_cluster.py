"""A private PostgreSQL cluster and a private Redis on loopback, for the runs that stop,
restart and pause them (tests/faults, bench/chaos.py): never the shared servers.

The cluster is initdb'd in a temporary directory owned by the `postgres` OS user (the
server refuses to run as root) and listens on a free port of 127.0.0.1; Redis runs from
its own directory on a free port. Each is stopped by its own PID file or process, never
by name.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import psycopg

from bench._server import free_port


class Missing(RuntimeError):
    """What a private server needs is not on this machine (the caller skips or fails)."""


def as_postgres(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["runuser", "-u", "postgres", "--", *args],
        capture_output=True,
        text=True,
        check=check,
        timeout=120,
    )


@dataclass
class Cluster:
    bin: Path
    data: Path
    port: int
    log: Path

    @property
    def options(self) -> str:
        root = self.data.parent
        return (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={root}"
            " -c fsync=off -c max_connections=50"
        )

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/burnin"

    def admin(self, sql: str, params=()) -> list:
        with psycopg.connect(
            host="127.0.0.1", port=self.port, user="postgres", dbname="burnin", autocommit=True
        ) as conn:
            cur = conn.execute(sql, params)
            return cur.fetchall() if cur.description else []

    def pg_ctl(self, *args: str) -> None:
        """pg_ctl on the cluster, the server's output always to its log file: a restart
        without `-l` would hand the new postmaster pg_ctl's stdout, our pipe, and
        subprocess.run would wait for that pipe to close as long as the server runs."""
        as_postgres(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-w",
            "-t",
            "60",
            *args,
        )

    def start(self) -> None:
        self.pg_ctl("-o", self.options, "start")

    def postmaster_pid(self) -> int:
        """The postmaster's PID, from the first line of its postmaster.pid."""
        return int((self.data / "postmaster.pid").read_text().splitlines()[0])

    def pids(self) -> list[int]:
        """The postmaster and every process it forked (backends, checkpointer, WAL
        writer...): what a pause must stop, since a stopped postmaster alone still lets
        its backends answer."""
        import psutil

        main = psutil.Process(self.postmaster_pid())
        return [main.pid, *(p.pid for p in main.children(recursive=True))]

    def signal_all(self, sig: int) -> None:
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)


def cluster_create(prefix: str = "burnin-pg-") -> Cluster:
    """A new cluster with a `burnin` database, started; Missing without the server
    binaries or runuser."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found or not shutil.which("runuser"):
        raise Missing("PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb) or runuser")
    bin_dir = Path(found[-1]).parent
    root = Path(tempfile.mkdtemp(prefix=prefix))
    os.chmod(root, 0o755)  # noqa: S103 - the postgres user must reach it
    shutil.chown(root, "postgres", "postgres")
    data = root / "data"
    as_postgres(str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres")
    cluster = Cluster(bin_dir, data, free_port(), root / "server.log")
    try:
        cluster.start()
        with psycopg.connect(
            host="127.0.0.1", port=cluster.port, user="postgres", dbname="postgres", autocommit=True
        ) as conn:
            conn.execute("CREATE DATABASE burnin")
    except BaseException:
        cluster_destroy(cluster)
        raise
    return cluster


def cluster_destroy(cluster: Cluster) -> None:
    """Stop the cluster (immediate: whatever state a fault left it in, a paused one
    resumed first) and remove its directory."""
    with contextlib.suppress(OSError, ValueError, ImportError):
        cluster.signal_all(signal.SIGCONT)
    pg_ctl = str(cluster.bin / "pg_ctl")
    as_postgres(pg_ctl, "-D", str(cluster.data), "-m", "immediate", "stop", check=False)
    shutil.rmtree(cluster.data.parent, ignore_errors=True)


class Redis:
    """A private redis-server on a free loopback port, with the image's default snapshot
    rules: like compose's redis:7, a SIGTERM (docker restart) writes the dataset to disk
    and the next start reads it back, so a restart keeps the queued messages."""

    def __init__(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise Missing("redis-server")
        self.binary = binary
        self.dir = Path(tempfile.mkdtemp(prefix="burnin-redis-"))
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30) -> None:
        self.proc = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.dir),
                "--logfile",
                str(self.dir / "redis.log"),
                "--save",
                "3600 1 300 100 60 10000",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.proc.returncode}")
            if self.ping():
                return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not answer")

    def ping(self) -> bool:
        import redis

        try:
            return bool(redis.Redis(port=self.port, socket_timeout=0.5).ping())
        except redis.RedisError:
            return False

    def stop(self) -> None:
        """SIGTERM by PID (Redis saves and exits), SIGKILL if it hangs."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def destroy(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
