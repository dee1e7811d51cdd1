"""`manage.py problems validate|generate|check FILE.yaml`: output, exit codes, one line per
problem."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = Path(__file__).parent / "data" / "team-kv-budget.yaml"


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("problems", *args, stdout=out)
    return out.getvalue()


def manage(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "problems", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_validate_a_valid_file_is_one_line_and_exit_0():
    proc = manage("validate", str(EXAMPLE))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        f"{EXAMPLE}: valid (team-kv-budget v1, 4 parameters, 2 parts)"
    ]
    assert proc.stderr == ""


def test_validate_an_invalid_file_is_exit_2_and_one_line_per_problem(tmp_path):
    data = yaml.safe_load(EXAMPLE.read_text())
    data["parts"][0]["answer"] = "2 * layer"
    data["parts"][0]["unit"] = "bytez"
    data["params"]["tokens"]["range"][1] = "__import__('os')"
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data))
    proc = manage("validate", str(bad))
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert lines[0].startswith("params.tokens.range[1]: calling '__import__' is not allowed")
    assert lines[1:] == [
        "parts[0].unit: unknown unit 'bytez'",
        "parts[0].answer: unknown name 'layer'",
    ]


def test_validate_refuses_a_built_in_template_s_slug(tmp_path):
    data = yaml.safe_load(EXAMPLE.read_text())
    data["slug"] = "weights-memory"
    path = tmp_path / "taken.yaml"
    path.write_text(yaml.safe_dump(data))
    err = io.StringIO()
    with pytest.raises(SystemExit) as exit_:
        call_command("problems", "validate", str(path), stderr=err)
    assert exit_.value.code == 2
    assert err.getvalue().splitlines() == ["slug: 'weights-memory' is taken by another template"]


def test_validate_a_missing_file_names_it(tmp_path):
    err = io.StringIO()
    with pytest.raises(SystemExit) as exit_:
        call_command("problems", "validate", str(tmp_path / "nope.yaml"), stderr=err)
    assert exit_.value.code == 2
    assert err.getvalue().startswith("(file): cannot read ")


def test_generate_from_a_file_prints_what_a_slug_would():
    lines = run("generate", str(EXAMPLE), "--seeds", "0-2", "--with-answers", "--json").splitlines()
    assert len(lines) == 3
    first = json.loads(lines[0])
    assert first["slug"] == "team-kv-budget" and first["seed"] == 0
    assert set(first["params"]) == {"model", "tokens", "batch", "gpu"}
    assert first["answers"]["kv"]["unit"] == "GiB"
    assert [p["name"] for p in first["parts"]] == ["kv", "fits_batch"]
    assert json.loads(run("generate", str(EXAMPLE), "--seed", "0", "--json")) == {
        k: v for k, v in first.items() if k not in ("answers", "solution")
    }


def test_generate_from_an_invalid_file_is_exit_2(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("slug: x\n")
    with pytest.raises(CommandError) as err:
        run("generate", str(bad), "--seed", "0")
    assert err.value.returncode == 2
    assert "slug: must be 3-60 lowercase letters, digits and hyphens" in str(err.value)


def test_check_a_file_passes():
    out = run("check", str(EXAMPLE), "--variants", "30")
    assert "team-kv-budget  kv    k-or-v-only" in out
    assert out.splitlines()[-1].startswith("checked 30 variants: 0 failures, 0 slips under 90%")


def test_check_a_file_fails_on_an_indistinguishable_slip(tmp_path):
    data = yaml.safe_load(EXAMPLE.read_text())
    # A "slip" within the part's tolerance of the right answer can never be told apart.
    data["parts"][0]["misconceptions"][0]["answer"] = "1.001 * (" + data["parts"][0]["answer"] + ")"
    path = tmp_path / "close.yaml"
    path.write_text(yaml.safe_dump(data))
    out = io.StringIO()
    with pytest.raises(CommandError) as err:
        call_command("problems", "check", str(path), "--variants", "20", "--json", stdout=out)
    assert err.value.returncode == 1
    report = json.loads(out.getvalue())
    assert report["failures"] == []
    (below,) = report["distinguishability"]["below"]
    assert (below["misconception"], below["applies"], below["distinguishable"]) == (
        "k-or-v-only",
        20,
        0,
    )
