"""Per-template timings of the engine's hot paths (a benchmark, not a test).

Targets: median generate + statement under 2 ms per variant, and grade under 0.2 ms,
for every template. Run with `make bench`; figures go in bench/README.md.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from problems.engine import registry  # noqa: E402
from problems.engine.grading import grade_part  # noqa: E402

GEN_TARGET_MS = 2.0
GRADE_TARGET_MS = 0.2
SEEDS = 300


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def bench_template(template) -> tuple[float, float]:
    gen: list[float] = []
    grade: list[float] = []
    for seed in range(SEEDS):
        t0 = time.perf_counter()
        params = template.generate(random.Random(seed))
        template.statement(params)
        gen.append(time.perf_counter() - t0)
        parts = template.solve(params)
        misconceptions = template.misconceptions(params)
        hints = template.factor_hints(params)
        for part in parts.values():
            wrong = part.value if isinstance(part.value, str) else repr(part.value * 1.3)
            mine = [m for m in misconceptions if m.part == part.name]
            t0 = time.perf_counter()
            grade_part(part, f"{wrong}", misconceptions=mine, hints=hints)
            grade.append(time.perf_counter() - t0)
    return median_ms(gen), median_ms(grade)


def main() -> int:
    templates = registry.all_templates()
    for t in templates:  # warm caches: catalog, unit table, regexes
        bench_template_warm = t.generate(random.Random(0))
        t.statement(bench_template_warm)
    failures = 0
    print(f"{'template':<24} {'gen+stmt ms':>12} {'grade ms':>10}")
    for t in templates:
        gen, grade = bench_template(t)
        flag = "" if gen < GEN_TARGET_MS and grade < GRADE_TARGET_MS else "  <-- over target"
        failures += bool(flag)
        print(f"{t.slug:<24} {gen:>12.4f} {grade:>10.4f}{flag}")
    print(f"{len(templates)} templates, {SEEDS} seeds each; {failures} over target")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
