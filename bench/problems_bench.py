"""Per-template timings of the engine's hot paths (a benchmark, not a test).

Targets: median generate + statement under 2 ms per variant, and grade under 0.2 ms,
for every template. Run with `make bench`; figures go in bench/README.md.

Four timings per template, each as median and p95 in microseconds over SEEDS variants:

- gen+stmt: `generate()` and `statement()`, what drawing a question costs;
- solve: `solve()` with the variant's misconceptions, told apart from the right answer
  (`Variant.parts` and `Variant.misconceptions`), what grading needs first;
- grade: one `grade_part()` call on a wrong numeric answer (1.3 x the right one, the
  slowest path: it runs the part's misconceptions and the whole known-factor detector
  before giving up), the variant already solved;
- answer: what the service runs per answer (assess/services/responses.py): the variant
  rebuilt from the question's stored parameters, solved, and the same wrong answer graded
  (`Variant.from_params(...).grade(...)`), per part.

The grade target is held by the grade column, and the answer column says what an
answer costs the engine in all.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from problems.engine import registry  # noqa: E402
from problems.engine.grading import grade_part  # noqa: E402
from problems.engine.variants import Variant  # noqa: E402

GEN_TARGET_US = 2000.0
GRADE_TARGET_US = 200.0
SEEDS = 300
COLUMNS = ("gen+stmt", "solve", "grade", "answer")


@dataclass(frozen=True)
class Timing:
    median_us: float
    p95_us: float

    @classmethod
    def of(cls, seconds: list[float]) -> Timing:
        us = sorted(s * 1e6 for s in seconds)
        return cls(statistics.median(us), us[min(len(us) - 1, round(0.95 * (len(us) - 1)))])


def _wrong(value) -> str:
    return value if isinstance(value, str) else repr(value * 1.3)


def bench_template(template) -> dict[str, Timing]:
    samples: dict[str, list[float]] = {name: [] for name in COLUMNS}
    for seed in range(SEEDS):
        t0 = time.perf_counter()
        params = template.generate(random.Random(seed))
        template.statement(params)
        samples["gen+stmt"].append(time.perf_counter() - t0)

        variant = Variant(template, params)
        t0 = time.perf_counter()
        parts, misconceptions = variant.parts, variant.misconceptions
        samples["solve"].append(time.perf_counter() - t0)

        hints = template.factor_hints(params)
        stored = params.model_dump(mode="json")  # as the question row keeps them
        for part in parts.values():
            wrong = _wrong(part.value)
            mine = [m for m in misconceptions if m.part == part.name]
            t0 = time.perf_counter()
            grade_part(part, wrong, misconceptions=mine, hints=hints)
            samples["grade"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            Variant.from_params(template.slug, stored).grade(part.name, wrong)
            samples["answer"].append(time.perf_counter() - t0)
    return {name: Timing.of(values) for name, values in samples.items()}


def over_target(timings: dict[str, Timing]) -> bool:
    return (
        timings["gen+stmt"].median_us >= GEN_TARGET_US
        or timings["grade"].median_us >= GRADE_TARGET_US
    )


def main() -> int:
    templates = registry.all_templates()
    for t in templates:  # warm caches: catalog, unit table, regexes
        bench_template_warm = t.generate(random.Random(0))
        t.statement(bench_template_warm)
    failures = 0
    heads = "".join(f" {name} p50 | p95 |" for name in COLUMNS)
    print(f"| template |{heads}\n|---|" + "---:|---:|" * len(COLUMNS))
    for t in templates:
        timings = bench_template(t)
        flag = " <-- over target" if over_target(timings) else ""
        failures += bool(flag)
        cells = "".join(f" {timings[n].median_us:.1f} | {timings[n].p95_us:.1f} |" for n in COLUMNS)
        print(f"| {t.slug} |{cells}{flag}")
    print(f"\n{len(templates)} templates, {SEEDS} seeds each, microseconds; {failures} over target")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
