"""`manage.py problems drill SLUG --seeds A-B --json`: one JSON line per seed, the fields
issue 39 names, the same drill the engine generates."""

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from problems.drills import registry
from problems.drills.export import export


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("problems", *args, stdout=out)
    return out.getvalue()


def test_drill_json_is_one_line_per_seed_with_the_contract_fields():
    lines = run("drill", "drill-gpu-off-bus", "--seeds", "4-6", "--json").splitlines()
    assert len(lines) == 3
    rows = [json.loads(line) for line in lines]
    assert [r["seed"] for r in rows] == [4, 5, 6]
    for r in rows:
        assert set(r) == {"slug", "seed", "alert", "actions", "answer", "expert_path"}
        assert set(r["answer"]) == {"fault", "location", "remedy"}
        assert set(r["actions"][0]) == {"id", "label", "target", "minutes", "disruptive", "output"}
        ids = {a["id"] for a in r["actions"]}
        assert set(r["expert_path"]) <= ids
        assert any(a["disruptive"] for a in r["actions"])
    assert rows[1] == export(registry.generate("drill-gpu-off-bus", 5))


def test_drill_without_json_is_a_readable_listing():
    text = run("drill", "drill-slurm-drain", "--seeds", "1-1")
    assert text.startswith("=== drill-slurm-drain seed 1 ===")
    assert "expert path: sinfo-R" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("drill", "drill-nope", "--seeds", "1-2"), "no drill 'drill-nope'"),
        (("drill", "drill-gpu-off-bus", "--seeds", "5-2"), "reversed"),
        (("drill", "drill-gpu-off-bus", "--seeds", "x"), "--seeds must be A-B"),
    ],
)
def test_bad_drill_arguments_are_one_line_errors_with_status_2(args, message):
    with pytest.raises(CommandError) as err:
        run(*args)
    assert err.value.returncode == 2
    assert message in str(err.value)
