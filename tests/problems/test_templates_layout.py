"""The template library's layout: one template per module, in the package of its family.

The registry finds templates by walking problems.templates, so nothing else keeps the
tree readable: these tests make sure a slug can be found by its family's folder, that
helper modules (`_family.py`, `_common.py`) stay helpers, and that no module grows back
into a family-sized file.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import problems.templates as templates_pkg
from problems.engine import registry

MAX_LINES = 400  # about 400 lines: past that, a module becomes a package (architecture.md)


def _module_names() -> list[str]:
    prefix = f"{templates_pkg.__name__}."
    return [info.name for info in pkgutil.walk_packages(templates_pkg.__path__, prefix=prefix)]


def _registered_by_module() -> dict[str, list[str]]:
    by_module: dict[str, list[str]] = {}
    for template in registry.all_templates():
        by_module.setdefault(type(template).__module__, []).append(template.slug)
    return by_module


def test_each_template_module_registers_one_template_of_its_package_family():
    by_module = _registered_by_module()
    names = _module_names()
    for name in names:
        module = importlib.import_module(name)
        leaf = name.rsplit(".", 1)[1]
        if hasattr(module, "__path__") or leaf.startswith("_"):
            assert name not in by_module, f"{name} is a package or helper but registers templates"
            continue
        slugs = by_module.get(name, [])
        assert len(slugs) == 1, f"{name} registers {slugs}: one template per module"
        family = name.split(".")[2]
        assert registry.get(slugs[0]).family == family, f"{slugs[0]} is not in {family}/"
    assert set(by_module) <= set(names), "a template registered outside problems.templates"


def test_each_family_package_says_what_it_covers():
    for name in _module_names():
        module = importlib.import_module(name)
        if hasattr(module, "__path__"):
            assert (module.__doc__ or "").strip(), f"{name}/__init__.py needs a docstring"


def test_no_template_module_past_about_400_lines():
    root = Path(templates_pkg.__file__).parent
    for path in sorted(root.rglob("*.py")):
        n = len(path.read_text().splitlines())
        assert n <= MAX_LINES, f"{path.relative_to(root)} has {n} lines: split it"
