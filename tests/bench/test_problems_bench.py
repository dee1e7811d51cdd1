"""The engine bench's figures: median and p95 per timing, every column for a template,
and the targets held on the medians the issue names."""

import pytest

from bench import problems_bench
from bench.problems_bench import COLUMNS, Timing, bench_template, over_target
from problems.engine import registry

pytestmark = pytest.mark.db_independent


def test_median_and_p95_are_read_in_microseconds():
    timing = Timing.of([n / 1e6 for n in range(1, 101)])  # 1..100 µs
    assert timing.median_us == pytest.approx(50.5)
    assert timing.p95_us == pytest.approx(95)


def test_each_template_gets_every_column(monkeypatch):
    monkeypatch.setattr(problems_bench, "SEEDS", 5)
    timings = bench_template(registry.get("kv-cache-total"))
    assert set(timings) == set(COLUMNS)
    assert all(0 < t.median_us <= t.p95_us for t in timings.values())
    # the answer rebuilds, solves and grades: it cannot cost less than its grade
    assert timings["answer"].median_us > timings["grade"].median_us


@pytest.mark.parametrize(
    ("gen", "grade", "over"),
    [(1999, 199, False), (2000, 10, True), (10, 200, True)],
)
def test_the_targets_are_held_by_the_medians(gen, grade, over):
    fast = Timing(1.0, 1e6)  # a p95 far over is not a miss: the targets are medians
    timings = {"gen+stmt": Timing(gen, gen), "solve": fast, "grade": Timing(grade, grade)}
    assert over_target({**timings, "answer": fast}) is over
