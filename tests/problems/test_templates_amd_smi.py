"""amd-smi-placement: a reader written here (columns by the headers, none of the
template's code) reads the monitor table and the process list of 200 seeds the way an
engineer would, and must reach the graded answer; the layout follows AMD's documented
output, and a case worked by hand pins the slips."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from problems.engine import registry
from problems.engine.variants import Variant
from tests.problems.template_harness import slips, solve

SLUG = "amd-smi-placement"
MONITOR_HEAD = "GPU  POWER  GPU_TEMP  MEM_TEMP  GFX_UTIL  GFX_CLOCK  MEM_UTIL  MEM_CLOCK"
_MONITOR = re.compile(
    r"^ +(\d)  +(\d+) W +(\d+) °C +(\d+) °C +(\d+) % +(\d+) MHz +(\d+) % +(\d+) MHz$"
)


CAPTURES = Path(__file__).parent / "data" / "tool-output" / "amd-smi"


def read_monitor(text: str) -> dict[int, dict]:
    lines = text.splitlines()
    assert lines[:2] == ["$ amd-smi monitor -putm", MONITOR_HEAD]
    gpus = {}
    for line in lines[2:]:
        assert len(line) == len(MONITOR_HEAD), line  # right-aligned under the headers
        g, power, _t, _mt, util, clock, _mu, _mc = map(int, _MONITOR.match(line).groups())
        gpus[g] = {"power": power, "util": util, "clock": clock}
    assert sorted(gpus) == list(range(8))
    return gpus


def read_processes(text: str) -> list[dict]:
    lines = text.splitlines()
    assert lines[0] == "$ sudo amd-smi process --csv | column -t -s,"
    head = lines[1].split()
    assert head == ["gpu", "name", "pid", "gtt_mem", "cpu_mem", "vram_mem", "mem_usage",
                    "gfx", "enc"]  # fmt: skip
    starts = [lines[1].index(h) for h in head]  # column -t aligns every row under its head
    rows = []
    for line in lines[2:]:
        assert [line.index(c, at) for c, at in zip(line.split(), starts, strict=True)] == starts
        rows.append(dict(zip(head, line.split(), strict=True)))
    for r in rows:
        assert int(r["mem_usage"]) == int(r["gtt_mem"]) + int(r["cpu_mem"]) + int(r["vram_mem"])
        assert r["name"] == "pt_main_thread"
    return rows


def test_the_reader_reads_amds_own_captures():
    gpus = read_monitor((CAPTURES / "sample-1.txt").read_text())
    assert gpus[0] == {"power": 182, "util": 83, "clock": 1613}
    assert [g for g, m in gpus.items() if m["util"] <= 1] == [2, 3, 4, 5, 6, 7]
    rows = read_processes((CAPTURES / "sample-2.txt").read_text())
    assert [r["gpu"] for r in rows] == [str(i) for i in range(8)]


def read(markdown: str) -> tuple[int, str, dict, list]:
    block = re.search(r"```text\n(.*?)\n```", markdown, re.S).group(1)
    monitor, processes = block.split("\n\n")
    gpus, rows = read_monitor(monitor), read_processes(processes)
    # a rank is a process holding real memory (over 5 GB) on a GPU that is working
    ranks = [r for r in rows if int(r["vram_mem"]) > 5e9]
    working = {g for g, m in gpus.items() if m["util"] > 50 and m["clock"] > 1000}
    assert working == {int(r["gpu"]) for r in ranks}
    per_gpu = Counter(int(r["gpu"]) for r in ranks)
    listed = Counter(r["pid"] for r in rows)
    if any(n > 1 for n in listed.values()):
        verdict = "extra-contexts"
    elif any(n > 1 for n in per_gpu.values()):
        verdict = "one-device"
    elif len(working) < 8:
        verdict = "too-few-ranks"
    else:
        verdict = "as-intended"
    return len(working), verdict, gpus, rows


def test_reader_reaches_the_graded_answer_on_every_layout():
    seen = set()
    for seed in range(200):
        v = Variant.from_seed(SLUG, seed)
        n, verdict, gpus, _ = read(v.statement_markdown())
        assert (n, verdict) == (v.parts["gpus"].value, v.parts["verdict"].value), seed
        # every GPU, idle or not, draws over 100 W: the trap the idle-draw slip names
        assert all(m["power"] > 100 for m in gpus.values())
        seen.add(verdict)
    assert seen == {"as-intended", "one-device", "too-few-ranks", "extra-contexts"}


def test_idle_gpus_read_as_the_documented_capture():
    # AMD's capture: idle MI300X GPUs at 116-118 W, 0-1 %, 120-134 MHz
    for seed in range(60):
        _, _, gpus, _ = read(Variant.from_seed(SLUG, seed).statement_markdown())
        for m in gpus.values():
            if m["util"] <= 1:
                assert 116 <= m["power"] <= 118 and 120 <= m["clock"] <= 134
            else:
                assert m["util"] >= 94 and 520 <= m["power"] <= 750


def test_two_ranks_on_gpu_zero_by_hand():
    # layout one-device with 2 ranks: both PIDs on GPU 0, GPUs 1-7 idle -> 1 GPU,
    # one-device; counting the two processes gives 2, counting power draw gives 8.
    params = {"layout": "one-device", "ranks": 2, "sample": 41}
    parts = solve(SLUG, params)
    assert (parts["gpus"].value, parts["verdict"].value) == (1, "one-device")
    _, _, gpus, rows = read(Variant.from_params(SLUG, params).statement_markdown())
    assert [r["gpu"] for r in rows] == ["0", "0"]
    assert [g for g, m in gpus.items() if m["util"] > 50] == [0]
    assert slips(SLUG, params) == {
        ("idle-draw-as-work", "gpus"): 8,
        ("idle-draw-as-work", "verdict"): "as-intended",
        ("processes-as-gpus", "gpus"): 2,
    }


def test_extra_contexts_name_the_row_count_and_the_crowding_reading():
    v = Variant.from_params(SLUG, {"layout": "extra-contexts", "ranks": 8, "sample": 5})
    assert v.grade("gpus", "8").correct and v.grade("verdict", "Extra-contexts").correct
    assert v.grade("gpus", "15").misconception == "rows-as-gpus"
    assert v.grade("verdict", "one-device").misconception == "extra-contexts-as-one-device"


def test_too_few_ranks_names_the_idle_power_reading():
    v = Variant.from_params(SLUG, {"layout": "too-few-ranks", "ranks": 1, "sample": 3})
    assert v.parts["gpus"].value == 1
    wrong = v.grade("gpus", "8")
    assert not wrong.correct and wrong.misconception == "idle-draw-as-work"
    assert "defaults to 1" in v.solution_markdown()


@pytest.mark.parametrize(
    "params",
    [
        {"layout": "spread", "ranks": 4, "sample": 1},
        {"layout": "too-few-ranks", "ranks": 8, "sample": 1},
        {"layout": "one-device", "ranks": 3, "sample": 1},
    ],
)
def test_ranks_that_do_not_fit_the_layout_are_refused(params):
    with pytest.raises(ValueError):
        registry.get(SLUG).parse_params(params)
