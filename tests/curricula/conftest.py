"""Builders for curriculum data files, real and synthetic."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from curricula.schema import CORE_TEMPLATE_SLUGS, DEFAULT_DATA_DIR, slugify_title

LEARN = "learn-ai-infrastructure.yaml"
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def lesson_doc(
    title: str,
    *,
    templates: tuple[str, ...] | list[str] = ("weights-memory",),
    status: str = "ready",
    minutes: int | None = 10,
    slug: str | None = None,
) -> dict[str, Any]:
    return {
        "slug": slug or slugify_title(title),
        "title": title,
        "minutes": minutes,
        "status": status,
        "objectives": [{"text": "Work out the number.", "terms": ["number"], "tested_by": []}],
        "key_ideas": "- Weights take $P \\times b$ bytes.",
        "skills": ["a-skill"],
        "templates": list(templates),
    }


def course_doc(
    title: str, lessons: list[dict[str, Any]], *, order: int = 1, module_title: str = "Only"
) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "slug": slugify_title(title),
        "title": title,
        "order": order,
        "summary": "A course for tests.",
        "modules": [
            {
                "slug": slugify_title(module_title),
                "title": module_title,
                "summary": "A module for tests.",
                "lessons": lessons,
            }
        ],
    }


def write_courses(directory: Path, *docs: dict[str, Any]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for doc in docs:
        text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
        (directory / f"{doc['slug']}.yaml").write_text(text, encoding="utf-8")
    return directory


def find_lesson(doc: dict[str, Any], slug: str) -> dict[str, Any]:
    for module in doc["modules"]:
        for lesson in module["lessons"]:
            if lesson["slug"] == slug:
                return lesson
    raise KeyError(slug)


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A private copy of the packaged data files, safe to edit."""
    target = tmp_path / "data"
    shutil.copytree(DEFAULT_DATA_DIR, target)
    return target


@pytest.fixture
def edit(data_dir: Path) -> Callable[[str, Callable[[dict], Any]], Path]:
    """edit(file_name, change): load one copied file, let `change` mutate it, write it back."""

    def _edit(name: str, change: Callable[[dict], Any]) -> Path:
        path = data_dir / name
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)  # noqa: S506
        change(doc)
        text = yaml.dump(doc, Dumper=_DUMPER, sort_keys=False, allow_unicode=True)
        path.write_text(text, "utf-8")
        return data_dir

    return _edit


@pytest.fixture
def core_templates() -> frozenset[str]:
    return frozenset(CORE_TEMPLATE_SLUGS)
