"""The docs' demo server prepares what `make run` prepares, in one process
(tools/docs/server.py), and a step that fails stops it with the failure."""

import re
import subprocess
from pathlib import Path

import pytest

from tools.docs.server import STEPS, demo_env, prepare

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.db_independent


def _make_run_steps() -> list[tuple[str, ...]]:
    """The manage.py commands of the Makefile's migrate and load targets, in order."""
    steps = []
    for line in (ROOT / "Makefile").read_text().splitlines():
        found = re.match(r"\t\$\(BIN\)/python manage\.py (migrate|load_\w+)(.*)$", line)
        if found:
            steps.append((found[1], *found[2].split()))
    return steps


def test_the_steps_are_the_makefiles_before_it_serves():
    assert list(STEPS) == _make_run_steps()
    assert STEPS[0][0] == "migrate" and len(STEPS) >= 5


def test_a_failing_step_stops_the_rest(tmp_path):
    steps = (("check",), ("no_such_command",), ("migrate", "--noinput"))
    with pytest.raises(subprocess.CalledProcessError):
        prepare(demo_env(tmp_path), steps=steps)
    assert not (tmp_path / "db.sqlite3").exists()  # migrate never ran
