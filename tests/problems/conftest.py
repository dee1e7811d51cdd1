import json
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
SHARED_CASES = Path(__file__).resolve().parents[3] / "shared" / "spec" / "reference-cases.jsonl"
CASES_FILE = DATA / "reference-cases.jsonl"


def load_cases() -> list[dict]:
    return [json.loads(line) for line in CASES_FILE.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="session")
def reference_cases() -> list[dict]:
    return load_cases()
