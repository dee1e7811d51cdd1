"""docs/operators/settings.md names every environment variable the settings read, with the
default the code gives it.

The variables are found by parsing the settings modules (config/settings.py,
config/account_settings.py, config/wsgi.py's WARM_UP and config/metrics_dir.py's
METRICS_DIR) for environment reads: `os.environ.get("NAME", ...)`, `os.environ["NAME"]`,
`env_bool`/`_env_bool`/`env_list` ("NAME", ...), and dj-database-url's `config()`, which
reads DATABASE_URL. A new setting read from the environment fails here until the page
has its row.
"""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [
    "config/settings.py",
    "config/account_settings.py",
    "config/wsgi.py",
    "config/metrics_dir.py",
]
PAGE = ROOT / "docs" / "operators" / "settings.md"
HELPERS = {"env_bool", "_env_bool", "env_list"}

pytestmark = pytest.mark.db_independent  # reads files only


def _literal(node) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str | bool | int | float):
        value = node.value
        return ("1" if value else "0") if isinstance(value, bool) else str(value)
    return None


def environment_reads(source: str) -> dict[str, str | None]:
    """{variable: its literal default, or None where the default is computed}."""
    found: dict[str, str | None] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ":
            name = _literal(node.slice)
            if name:
                found.setdefault(name, None)
        if not isinstance(node, ast.Call):
            continue
        func = ast.unparse(node.func)
        if func == "dj_database_url.config":
            found["DATABASE_URL"] = None
        if func in {"os.environ.get", "os.getenv"} or func in HELPERS:
            name = _literal(node.args[0]) if node.args else None
            if name is None:
                continue
            default = _literal(node.args[1]) if len(node.args) > 1 else None
            found.setdefault(name, default)
    return found


def all_reads() -> dict[str, str | None]:
    reads: dict[str, str | None] = {}
    for path in SOURCES:
        for name, default in environment_reads((ROOT / path).read_text()).items():
            reads.setdefault(name, default)
    return reads


def page_rows() -> dict[str, str]:
    """{variable: its default cell} from the page's tables."""
    rows = re.findall(r"^\| `([A-Z][A-Z0-9_]+)` \| ([^|]*) \|", PAGE.read_text(), re.M)
    return {name: default.strip() for name, default in rows}


def test_the_parser_finds_what_the_settings_read():
    reads = all_reads()
    # A few known reads of each kind, so a parser that finds nothing cannot pass.
    assert reads["SECRET_KEY"] == ""  # os.environ.get("SECRET_KEY", "")
    assert reads["DEBUG"] == "1"  # env_bool("DEBUG", True)
    assert reads["ALLOWED_HOSTS"] == "localhost,127.0.0.1,[::1]"  # env_list
    assert reads["SIGNUP_OPEN"] == "1"  # account_settings' _env_bool
    assert reads["WARM_UP"] == "1"  # config/wsgi.py
    assert "DATABASE_URL" in reads  # dj_database_url.config()
    assert len(reads) >= 30


def test_every_variable_is_on_the_page():
    documented = page_rows()
    missing = sorted(set(all_reads()) - set(documented))
    assert missing == [], f"docs/operators/settings.md lacks {missing}"
    unknown = sorted(set(documented) - set(all_reads()))
    assert unknown == [], f"docs/operators/settings.md documents what nothing reads: {unknown}"


def test_each_literal_default_is_the_one_on_the_page():
    documented = page_rows()
    wrong = {
        name: (default, documented.get(name))
        for name, default in all_reads().items()
        if default not in (None, "") and f"`{default}`" not in documented.get(name, "")
    }
    assert wrong == {}, "code default vs the page's default cell"
