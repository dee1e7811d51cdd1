"""gunicorn's settings file (Dockerfile: `--config python:config.gunicorn`): the master
wipes this container's metric files before it forks its workers (config.metrics_dir)."""

from config.metrics_dir import wipe_process_dir


def on_starting(server) -> None:
    wipe_process_dir()
