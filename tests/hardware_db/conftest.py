"""Fixtures for hardware_db tests: a private, editable copy of the data files."""

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from hardware_db import catalog

EditFn = Callable[[str, Callable[[dict], None]], None]


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A copy of the packaged data that a test may break without affecting anyone else."""
    target = tmp_path / "data"
    shutil.copytree(catalog.DEFAULT_DATA_DIR, target)
    return target


@pytest.fixture
def edit(data_dir: Path) -> EditFn:
    """edit("accelerators.yaml", fn) loads the file, lets fn mutate the document, writes it back."""

    def _edit(filename: str, mutate: Callable[[dict], None]) -> None:
        path = data_dir / filename
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        mutate(document)
        path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")

    return _edit


def record(document: dict, slug: str) -> dict:
    return next(rec for rec in document["records"] if rec["slug"] == slug)


@pytest.fixture(autouse=True)
def _fresh_catalog():
    """Every test starts and ends with the packaged data and an empty cache."""
    catalog.use_data_dir(None)
    yield
    catalog.use_data_dir(None)
