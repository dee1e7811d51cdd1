"""Every worked answer of the contract, through the Python API and the batch CLI."""

import io
import json
import math

import pytest
from django.core.management import call_command

from problems.engine.variants import Variant
from tests.problems.conftest import CASES_FILE, SHARED_CASES, load_cases

CASES = load_cases()


def assert_matches(case: dict, value, unit: str) -> None:
    assert unit == case["unit"], case["id"]
    if case["kind"] == "numeric":
        assert math.isclose(float(value), case["value"], rel_tol=1e-9, abs_tol=1e-12), case["id"]
    else:
        assert value == case["value"], case["id"]
        assert type(value) is type(case["value"]), case["id"]


def test_vendored_cases_match_the_shared_contract():
    if not SHARED_CASES.exists():
        pytest.skip("../shared is not beside this checkout")
    assert CASES_FILE.read_text() == SHARED_CASES.read_text()


def test_there_are_cases_for_every_core_slug():
    assert len(CASES) >= 100
    assert len({c["slug"] for c in CASES}) == 22


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_python_api(case):
    variant = Variant.from_params(case["slug"], case["params"])
    part = variant.parts[case["part"]]
    assert part.kind == case["kind"]
    assert_matches(case, part.value, part.unit)
    exact = case["value"] if case["kind"] != "numeric" else repr(case["value"])
    result = variant.grade(case["part"], str(exact))
    assert result.valid and result.correct and result.score == 1.0, case["id"]


def _run_batch(tmp_path, action: str, records: list[dict]) -> list[dict]:
    path = tmp_path / f"{action}.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    out = io.StringIO()
    call_command("problems", action, "--batch", str(path), stdout=out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_batch_solve(tmp_path):
    results = _run_batch(
        tmp_path, "solve", [{"slug": c["slug"], "params": c["params"]} for c in CASES]
    )
    assert len(results) == len(CASES)
    for case, result in zip(CASES, results, strict=True):
        assert result["slug"] == case["slug"]
        got = result["parts"][case["part"]]
        assert_matches(case, got["value"], got["unit"])


def test_batch_grade_exact_answers(tmp_path):
    records = [
        {
            "slug": c["slug"],
            "params": c["params"],
            "part": c["part"],
            "answer": f"{c['value']} {c['unit']}".strip()
            if c["kind"] == "numeric"
            else str(c["value"]),
        }
        for c in CASES
    ]
    results = _run_batch(tmp_path, "grade", records)
    for case, result in zip(CASES, results, strict=True):
        assert result["valid"] and result["correct"], (case["id"], result)
        assert result["slug"] == case["slug"] and result["part"] == case["part"]
        assert result["misconception"] is None
