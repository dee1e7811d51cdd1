"""The architecture's layers as tests: the import-linter contracts in pyproject.toml hold
and catch a wrong import, no module imports itself in a circle, and page views reach
models only through selectors and the page read layer (frontend/queries)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = [
    "frontend", "privacy", "lti", "certify", "invitations", "capstone", "authoring", "assess",
    "accounts",
    "orgs", "audit", "curricula", "problems", "hardware_db", "api_common", "config",
]  # fmt: skip
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

pytestmark = pytest.mark.db_independent


@pytest.fixture(scope="module")
def graph():
    sys.path.insert(0, str(ROOT))
    try:
        return grimp.build_graph(*PACKAGES, exclude_type_checking_imports=True, cache_dir=None)
    finally:
        sys.path.remove(str(ROOT))


def _lint_imports(root: Path = ROOT) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _circles(graph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph.modules):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append(
                        (child, iter(sorted(graph.find_modules_directly_imported_by(child))))
                    )
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_module_imports_itself_through_others(graph):
    assert _circles(graph) == []


def test_the_circle_finder_sees_a_circle(graph):
    wrong = {"importer": "hardware_db.catalog", "imported": "assess.services.attempts"}
    graph.add_import(**wrong)
    try:
        assert any("hardware_db.catalog" in c for c in _circles(graph))
    finally:
        graph.remove_import(**wrong)


def test_no_page_view_imports_a_model(graph):
    views = [m for m in graph.modules if m == "frontend.views" or m.startswith("frontend.views.")]
    offending = {
        (view, imported)
        for view in views
        for imported in graph.find_modules_directly_imported_by(view)
        if imported.endswith(".models") or ".models." in imported
    }
    assert views and offending == set()


def test_the_layer_contracts_hold():
    result = _lint_imports()
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"Contracts: [1-9]\d* kept, 0 broken", result.stdout), result.stdout


@pytest.mark.parametrize(
    ("package", "wrong"),
    [
        ("problems", "import assess.models"),  # the pure engine reaching the database
        ("api_common", "import accounts.selectors"),  # the shared base knowing an app
        ("hardware_db", "import problems.engine.registry"),
        ("assess", "import frontend.views"),  # a lower layer knowing a higher one
    ],
)
def test_a_wrong_import_breaks_a_contract(tmp_path, package, wrong):
    """On a copy of the source: the tree itself stays untouched while other tests run."""
    for name in PACKAGES:
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("*.pyc"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    assert _lint_imports(tmp_path).returncode == 0  # the copy as it is keeps them
    (tmp_path / package / "_scratch.py").write_text(f"{wrong}\n")
    result = _lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert re.search(r"Contracts: \d+ kept, [1-9]\d* broken", result.stdout), result.stdout
    assert f"{package}._scratch" in result.stdout
