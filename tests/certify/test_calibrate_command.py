"""`manage.py certify calibrate`: a file's fit printed as JSON, bad files refused with
exit 2 and the row or item named, and the database's responses calibrated and stored."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from certify.models import Calibration
from certify.services import calibration as service

REF = Path(__file__).resolve().parent / "data" / "irt-reference"


def _run(*args) -> dict:
    from io import StringIO

    out = StringIO()
    call_command("certify", "calibrate", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


@pytest.mark.db_independent
def test_a_file_is_fitted_and_printed_in_the_documented_shape(tmp_path):
    path = tmp_path / "r.csv"
    path.write_bytes(gzip.decompress((REF / "responses.csv.gz").read_bytes()))
    out = _run("--responses", str(path))
    assert set(out) == {"items", "log_likelihood"} and len(out["items"]) == 40
    first = out["items"]["item-000"]
    assert set(first) == {"discrimination", "difficulty", "se_difficulty", "n"}
    assert first["discrimination"] > 0 and first["n"] > 1000 and out["log_likelihood"] < 0


BAD = [
    ("person,item\np,i\n", "missing column(s) correct"),
    ("person,item,correct\np1,i1,1\np2,i1,yes\n", "row 3: correct is 'yes'"),
    ("person,item,correct\np1,i1,1\np1,i1,0\n", "row 3: a second answer of p1 to i1"),
    ("person,item,correct\np1,i1,1\n,i1,0\n", "row 3: person and item must not be empty"),
    ("person,item,correct\np1,i1,1\np2,i1,1\np1,i2,0\np2,i2,1\n", "item i1: all 2 answers"),
    ("person,item,correct\n", "no responses"),
]


@pytest.mark.db_independent
@pytest.mark.parametrize(("text", "named"), BAD, ids=[b[1][:20] for b in BAD])
def test_a_bad_file_exits_2_naming_the_row_or_item(tmp_path, text, named):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(CommandError) as err:
        _run("--responses", str(path))
    assert err.value.returncode == 2 and named in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.django_db
def test_the_database_is_calibrated_and_stored(monkeypatch):
    rng_rows = []
    import random

    rng = random.Random(3)
    for person in range(300):
        theta = rng.gauss(0, 1)
        for t, (a, b) in {"t-easy": (1.2, -1.0), "t-hard": (1.0, 1.0), "t-mid": (1.5, 0)}.items():
            p = 1 / (1 + 2.718281828 ** (-a * (theta - b)))
            rng_rows.append((person, t, int(rng.random() < p), len(rng_rows) + 1))
    rng_rows.append((0, "t-rare", 1, 0))  # under the minimum: left out, named
    monkeypatch.setattr(service, "calibration_responses_with_questions", lambda: rng_rows)
    out = _run()
    calibration = Calibration.objects.get()
    assert out["calibration"] == calibration.pk and out["items"] == 3
    assert out["left_out"] == {"t-rare": "1 responses (fewer than 30)"}
    items = {i.template_slug: i for i in calibration.items.all()}
    assert items["t-hard"].difficulty > items["t-mid"].difficulty > items["t-easy"].difficulty
    assert calibration.learners == 300 and calibration.responses == 900
    assert all(i.n == 300 and i.se_difficulty > 0 for i in items.values())


@pytest.mark.db_independent
def test_recalibration_is_scheduled_nightly_as_a_registered_task():
    from django.conf import settings

    from certify import tasks
    from config.celery import app

    entry = settings.CELERY_BEAT_SCHEDULE["certify-recalibrate"]
    assert entry["task"] == tasks.recalibrate.name == "certify.tasks.recalibrate"
    assert entry["task"] in app.tasks and entry["schedule"] == 86400.0


@pytest.mark.db_independent
def test_an_empty_file_is_refused_naming_the_missing_columns(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("")
    with pytest.raises(CommandError) as err:
        _run("--responses", str(path))
    assert err.value.returncode == 2 and "missing column(s) person, item, correct" in str(err.value)


@pytest.mark.db_independent
def test_manage_py_exits_2_with_one_line_on_stderr(tmp_path):
    """Through the real entry point: the exit status and a single stderr line (call_command
    above only shows the exception)."""
    path = tmp_path / "bad.csv"
    path.write_text("person,item,correct\np1,i1,1\np2,i1,2\n")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, str(root / "manage.py"), "certify", "calibrate", "--responses", str(path)],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings_test"},
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "row 3: correct is '2'" in lines[0]
    assert done.stdout == ""
