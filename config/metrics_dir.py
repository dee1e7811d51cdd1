"""Where this process's Prometheus metric files go (config.metrics): METRICS_DIR/<host
name> when METRICS_DIR is set, else nowhere (metrics in memory). Kept free of
prometheus_client, which reads PROMETHEUS_MULTIPROC_DIR once, when first imported: the
settings module calls configure_process() before any code imports it."""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path

ROOT_ENV = "METRICS_DIR"


def process_dir() -> Path | None:
    """This container's directory of metric files, or None (in-memory metrics)."""
    root = os.environ.get("METRICS_DIR", "")
    return Path(root) / socket.gethostname() if root else None


def configure_process() -> None:
    """Point prometheus_client at this container's directory (multiprocess mode)."""
    here = process_dir()
    if here is not None:
        here.mkdir(parents=True, exist_ok=True)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(here)


def wipe_process_dir() -> None:
    """At a container's start, before its processes fork (gunicorn's master, Celery's
    main process): files of an earlier run would be counted again."""
    here = process_dir()
    if here is not None:
        shutil.rmtree(here, ignore_errors=True)
        here.mkdir(parents=True, exist_ok=True)
