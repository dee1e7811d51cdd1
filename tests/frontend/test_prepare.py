"""manage.py prepare: what `make run` (and the docs' demo server) loads before serving,
in one process: migrated, then the catalog, the courses, the tracks and the demo data,
idempotent, stopping at the first step that fails."""

import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from certify.models import Track
from curricula.models import Course
from frontend.management.commands import prepare
from hardware_db.models import Accelerator

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.django_db


def _counts() -> tuple[int, int, int, int]:
    return (
        Accelerator.objects.count(),
        Course.objects.count(),
        Track.objects.count(),
        get_user_model().objects.count(),
    )


def test_prepare_loads_what_make_run_serves_and_again_adds_nothing(capsys):
    call_command("prepare")
    first = capsys.readouterr().out
    loaded = _counts()
    assert all(loaded) and loaded[3] == 6  # the six demo accounts
    assert "learner-demo-pass" in first and "instructor-demo-pass" in first
    call_command("prepare")
    assert _counts() == loaded
    assert "[exists]" in capsys.readouterr().out


def test_a_failing_step_stops_the_ones_after_it(monkeypatch):
    steps = (("load_hardware",), ("no_such_command",), ("load_curricula",))
    monkeypatch.setattr(prepare, "STEPS", steps)
    with pytest.raises(CommandError, match="no_such_command"):
        call_command("prepare")
    assert Accelerator.objects.exists() and not Course.objects.exists()


def test_make_run_and_the_docs_server_load_with_it():
    makefile = (ROOT / "Makefile").read_text()
    load = re.search(r"^load:.*\n((?:\t.*\n)+)", makefile, re.M)
    assert load and load.group(1).split("\n")[0].strip() == "$(BIN)/python manage.py prepare"
    assert re.search(r"^run: load$", makefile, re.M)
    server = (ROOT / "tools/docs/server.py").read_text()
    assert '"manage.py", "prepare"' in server
