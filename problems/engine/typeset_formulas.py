"""Write problems/engine/formula_tex.json: every template's formulas typeset by sympy
(`make formulas`, after adding or changing a formula). Kept apart from formula_tex,
which serving processes import: this module imports the registry and the solutions, and
formula_tex is imported by them."""

from __future__ import annotations

import json
import sys

from problems.engine import registry
from problems.engine.formula_tex import PATH, fingerprint, typeset
from problems.engine.solutions import Formula, declared


def entry_of(formula: Formula) -> dict:
    printed = typeset(formula)
    return {
        "lhs": formula.lhs,
        "given": dict(formula.names),
        "build": fingerprint(formula.build),
        "symbolic": printed.symbolic,
        "names": printed.names,
        "skeleton": printed.skeleton,
    }


def template_formulas() -> list[Formula]:
    """Every formula the problems package declares, by origin (imports every template;
    formulas declared elsewhere, by tests, are not the file's)."""
    registry.all_templates()
    ours = (f for f in declared() if f.origin.startswith("problems."))
    return sorted(ours, key=lambda f: f.origin)


def current_entries() -> dict[str, dict]:
    """Every template's formulas typeset afresh, by origin."""
    return {f.origin: entry_of(f) for f in template_formulas()}


def render_file(entries: dict[str, dict]) -> str:
    return json.dumps(entries, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def main(argv: list[str]) -> int:
    """Write formula_tex.json; with --check, only say whether it is current."""
    text = render_file(current_entries())
    if "--check" in argv:
        current = PATH.exists() and PATH.read_text(encoding="utf-8") == text
        if not current:
            print(f"{PATH} is stale: run `make formulas`", file=sys.stderr)
        return 0 if current else 1
    PATH.write_text(text, encoding="utf-8")
    print(f"wrote {PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
