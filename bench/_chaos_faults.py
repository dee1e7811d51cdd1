"""The chaos run's processes and the faults it injects into them.

The stack is what compose runs, on loopback: gunicorn (its master respawns a killed
worker), two Celery workers (one per queue, as compose's `worker` and `review-worker`),
a private Redis and a private PostgreSQL (bench/_cluster.py). Every process is started
here and stopped by its PID; a SIGKILLed Celery worker is started again after a short
pause, as compose's restart policy would.

The schedule is drawn from the seed: each round holds each of the five faults once, in
a seeded order, at seeded times spread over the middle of the run (none in its first
tenth, so the learners are under way, nor in its last sixth, so the end sees the service
recovered).
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from bench._cluster import Cluster, Redis
from bench._server import ROOT

FAULTS = (
    "kill gunicorn worker",
    "SIGKILL celery worker",
    "restart redis",
    "restart postgresql",
    "pause postgresql 5 s",
)
PAUSE = 5.0  # seconds the database is stopped (SIGSTOP ... SIGCONT)
SUPERVISOR_DELAY = 3.0  # seconds before a killed Celery worker is started again


@dataclass
class Fault:
    kind: str
    planned: float  # seconds after the run's start
    start: float = 0.0  # time.time()
    end: float = 0.0
    detail: str = ""
    ready_after: float | None = None  # seconds from its end to /readyz's next 200


def schedule(seed: int, seconds: float) -> list[Fault]:
    rng = random.Random(seed)
    rounds = max(1, round(seconds / 300))
    kinds = []
    for _ in range(rounds):
        kinds += rng.sample(FAULTS, len(FAULTS))
    first, last = seconds * 0.1, seconds * 5 / 6
    slot = (last - first) / len(kinds)
    return [
        Fault(kind, first + i * slot + rng.uniform(0, slot * 0.6)) for i, kind in enumerate(kinds)
    ]


class Stack:
    def __init__(self, env: dict, cluster: Cluster, redis: Redis, work: Path, workers: int):
        self.env, self.cluster, self.redis, self.work = env, cluster, redis, work
        self.gunicorn_workers = workers
        self.gunicorn: subprocess.Popen | None = None
        self.celery: dict[str, subprocess.Popen] = {}
        self.lock = threading.Lock()
        self.port = 0

    def _log(self, name: str):
        return (self.work / f"{name}.log").open("ab")

    def start_gunicorn(self, port: int) -> None:
        self.port = port
        self.gunicorn = subprocess.Popen(
            [
                sys.executable, "-m", "gunicorn", "config.wsgi:application",
                "--config", "python:config.gunicorn", "--bind", f"127.0.0.1:{port}",
                "--workers", str(self.gunicorn_workers), "--timeout", "30",
                "--no-control-socket",
            ],
            cwd=ROOT, env=self.env, stdout=self._log("gunicorn"), stderr=subprocess.STDOUT,
        )  # fmt: skip

    def start_celery(self, queue: str) -> None:
        """One worker for `queue` in a session of its own, so that its SIGKILL (to the
        group, by the worker's PID) takes its pool process with it, as a container's
        death does."""
        proc = subprocess.Popen(
            [
                sys.executable, "-m", "celery", "-A", "config", "worker",
                "--pool", "prefork", "--concurrency", "1", "--queues", queue,
                "--hostname", f"chaos-{queue}@%h", "--without-gossip", "--without-mingle",
                "--loglevel", "WARNING",
            ],
            cwd=ROOT, env=self.env, stdout=self._log(f"celery-{queue}"),
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        with self.lock:
            self.celery[queue] = proc

    def stop(self) -> None:
        """Every process started here, by its PID: the workers (warm shutdown, then the
        group's SIGKILL), gunicorn (its master stops its workers)."""
        with self.lock:
            workers = list(self.celery.values())
        for proc in [*workers, self.gunicorn]:
            if proc is not None and proc.poll() is None:
                proc.terminate()
        for proc in workers:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            _reap_group(proc.pid)
        if self.gunicorn is not None:
            try:
                self.gunicorn.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.gunicorn.kill()
                self.gunicorn.wait()

    # -- the faults -------------------------------------------------------------------
    def inject(self, fault: Fault, rng: random.Random) -> None:
        fault.start = time.time()
        if fault.kind == "kill gunicorn worker":
            import psutil

            children = psutil.Process(self.gunicorn.pid).children()
            victim = rng.choice(children)
            os.kill(victim.pid, signal.SIGKILL)
            fault.detail = f"worker pid {victim.pid}"
        elif fault.kind == "SIGKILL celery worker":
            queue = rng.choice(sorted(self.celery))
            with self.lock:
                proc = self.celery[queue]
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            _reap_group(proc.pid)
            time.sleep(SUPERVISOR_DELAY)
            self.start_celery(queue)
            fault.detail = f"{queue} worker pid {proc.pid}, restarted after {SUPERVISOR_DELAY:g} s"
        elif fault.kind == "restart redis":
            old = self.redis.proc.pid
            self.redis.stop()
            self.redis.start()
            fault.detail = f"pid {old} -> {self.redis.proc.pid}"
        elif fault.kind == "restart postgresql":
            self.cluster.pg_ctl("-m", "fast", "-o", self.cluster.options, "restart")
            fault.detail = "pg_ctl restart -m fast"
        elif fault.kind == "pause postgresql 5 s":
            pids = self.cluster.pids()
            self.cluster.signal_all(signal.SIGSTOP)
            try:
                time.sleep(PAUSE)
            finally:
                self.cluster.signal_all(signal.SIGCONT)
            fault.detail = f"SIGSTOP/SIGCONT of {len(pids)} processes"
        fault.end = time.time()


def _reap_group(pgid: int) -> None:
    """A killed worker's pool process, if it outlived its parent for a moment."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def injector(stack: Stack, faults: list[Fault], seed: int, t0: float, log, ready):
    """A thread that injects each fault at its planned time (or as soon as the one before
    it is over), then times how long /readyz takes to answer 200 again (`ready()`),
    writing a line for each to `log`."""
    rng = random.Random(seed + 1)

    def run() -> None:
        for fault in faults:
            time.sleep(max(0.0, t0 + fault.planned - time.time()))
            try:
                stack.inject(fault, rng)
            except Exception as exc:  # recorded: the report says the fault went wrong
                fault.end = fault.end or time.time()
                fault.detail = f"injection failed: {type(exc).__name__}: {exc}"
            fault.ready_after = ready()
            log(f"t={fault.start - t0:6.1f} s  {fault.kind}: {fault.detail}")

    thread = threading.Thread(target=run, name="fault-injector", daemon=True)
    thread.start()
    return thread
