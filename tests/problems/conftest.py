import json
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
SHARED_SPEC = Path(__file__).resolve().parents[3] / "shared" / "spec"
SHARED_CASES = SHARED_SPEC / "reference-cases.jsonl"
CASES_FILE = DATA / "reference-cases.jsonl"
# The second contract (templates-2.md) and its worked answers.
SHARED_CASES_2 = SHARED_SPEC / "reference-cases-2.jsonl"
CASES_FILE_2 = DATA / "reference-cases-2.jsonl"


def load_cases(contract: int = 1) -> list[dict]:
    path = CASES_FILE if contract == 1 else CASES_FILE_2
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="session")
def reference_cases() -> list[dict]:
    return load_cases()
