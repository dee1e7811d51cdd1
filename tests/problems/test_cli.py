"""The command-line contract: output shapes, exit codes and one-line errors."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from problems.engine import registry

ROOT = Path(__file__).resolve().parents[2]
PARAMS = {"n_params": 8030000000.0, "precision": "fp8", "unit": "GiB"}


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


def test_list_json_names_all_core_templates():
    rows = json.loads(run("list", "--json"))
    slugs = {r["slug"] for r in rows}
    assert {"weights-memory", "kv-cache-total", "nccl-busbw", "gb-gib"} <= slugs
    assert len(slugs) >= 22


def test_solve_json_shape():
    data = json.loads(run("solve", "weights-memory", "--params", json.dumps(PARAMS), "--json"))
    assert data["slug"] == "weights-memory"
    assert isinstance(data["version"], int)
    assert data["parts"]["weights"]["unit"] == "GiB"
    assert abs(data["parts"]["weights"]["value"] - 7.4785202741622925) < 1e-12


def test_grade_json_names_the_gb_gib_slip():
    args = ["grade", "weights-memory", "--params", json.dumps(PARAMS), "--part", "weights"]
    data = json.loads(run(*args, "--answer", "8.03", "--json"))
    assert data == {
        "slug": "weights-memory",
        "part": "weights",
        "valid": True,
        "correct": False,
        "score": 0.0,
        "parsed": {"value": 8.03, "unit": "GiB"},
        "misconception": "gb-vs-gib",
        "feedback": data["feedback"],
    }
    assert "GiB" in data["feedback"]


@pytest.mark.parametrize(
    "answer", ["__import__('os').system('echo hi')", "2+2", "nan", "inf", "9" * 400]
)
def test_grade_unreadable_answers_are_invalid_not_errors(answer):
    args = ["grade", "weights-memory", "--params", json.dumps(PARAMS), "--part", "weights"]
    data = json.loads(run(*args, "--answer", answer, "--json"))
    assert data["valid"] is False
    assert data["error"]


def test_generate_hides_answers_unless_asked():
    plain = json.loads(run("generate", "kv-cache-total", "--seed", "7", "--json"))
    assert "answers" not in plain and "solution" not in plain
    full = json.loads(run("generate", "kv-cache-total", "--seed", "7", "--with-answers", "--json"))
    assert "total" in full["answers"]  # the contract's part; the template may add more
    assert full["params"] == plain["params"]


@pytest.mark.parametrize(
    ("params", "needle"),
    [
        ({"n_params": 8e9, "precision": "fp8"}, "missing parameter 'unit'"),
        ({**PARAMS, "extra": 1}, "unknown parameter 'extra'"),
        ({**PARAMS, "n_params": -5}, "parameter 'n_params'"),
        ({**PARAMS, "precision": "fp7"}, "parameter 'precision'"),
    ],
)
def test_bad_params_raise_exit_2(params, needle):
    with pytest.raises(CommandError) as err:
        run("solve", "weights-memory", "--params", json.dumps(params))
    assert err.value.returncode == 2
    assert needle in str(err.value)


def test_bad_slug_exit_status_and_single_stderr_line():
    proc = manage("solve", "no-such-template", "--params", "{}")
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "no-such-template" in lines[0]


def test_batch_error_lines_do_not_stop_the_run(tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_text(
        "\n".join(
            [
                json.dumps({"slug": "weights-memory", "params": PARAMS}),
                "this is not json",
                json.dumps({"slug": "nope", "params": {}}),
                json.dumps({"slug": "weights-memory", "params": {**PARAMS, "unit": "MB"}}),
                json.dumps({"slug": "weights-memory", "params": PARAMS}),
            ]
        )
    )
    lines = [json.loads(x) for x in run("solve", "--batch", str(path)).splitlines()]
    assert len(lines) == 5
    assert "parts" in lines[0] and "parts" in lines[4]
    assert all("error" in lines[i] for i in (1, 2, 3))


def test_check_passes_for_a_few_variants():
    assert "0 failures" in run("check", "--variants", "5")


def test_generate_seeds_json_is_one_line_per_seed_as_seed_gives():
    slug, extra = "kv-cache-total", ("--with-answers", "--json")
    pool = [json.loads(x) for x in run("generate", slug, "--seeds", "3-6", *extra).splitlines()]
    assert [row["seed"] for row in pool] == [3, 4, 5, 6]
    for row in pool:
        assert row == json.loads(run("generate", slug, "--seed", str(row["seed"]), *extra))
    plain = [json.loads(x) for x in run("generate", slug, "--seeds", "3-4", "--json").splitlines()]
    assert all("answers" not in row for row in plain)
    assert [row["params"] for row in plain] == [row["params"] for row in pool[:2]]


def test_generate_seeds_without_json_is_a_readable_listing():
    out = run("generate", "weights-memory", "--seeds", "0-2", "--with-answers")
    headers = [line for line in out.splitlines() if line.startswith("=== ")]
    version = registry.get("weights-memory").version
    assert headers == [f"=== weights-memory v{version} seed {n} ===" for n in range(3)]
    assert out.count("weights = ") == 3
    assert run("generate", "weights-memory", "--seeds", "7-7", "--json").count("\n") == 1


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--seeds", "5-2"], "reversed"),
        (["--seeds", "x"], "must be A-B"),
        (["--seeds", "3"], "must be A-B"),
        (["--seeds=-1-4"], "must be A-B"),
        (["--seeds", "1-2-3"], "must be A-B"),
        (["--seeds", "0-10000"], "at most 10,000"),
        (["--seed", "1", "--seeds", "0-1"], "not both"),
        ([], "needs --seed N or --seeds A-B"),
        (["--seed", "one"], "--seed must be a whole number"),
    ],
)
def test_generate_seed_errors_exit_2(args, needle):
    with pytest.raises(CommandError) as err:
        run("generate", "weights-memory", *args, "--json")
    assert err.value.returncode == 2
    assert needle in str(err.value)


def test_generate_seeds_error_is_one_stderr_line_and_nothing_on_stdout():
    proc = manage("generate", "weights-memory", "--seeds", "9-3", "--json")
    assert proc.returncode == 2 and proc.stdout == ""
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "9-3" in lines[0]


def test_generate_seeds_allows_exactly_the_maximum():
    from problems.management.commands.problems import MAX_SEEDS, _parse_seeds

    assert len(_parse_seeds(f"5-{5 + MAX_SEEDS - 1}")) == MAX_SEEDS
    assert list(_parse_seeds(" 2 - 4 ")) == [2, 3, 4]
