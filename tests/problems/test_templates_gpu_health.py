"""Hand-checked answers and slips for the gpu_health scenario templates, and, for each,
a small reader written here (regexes and columns, none of the templates' code) that
parses the generated tool output of 200 seeds and confirms that the fault it finds is
the graded answer, the fault-free case included."""

from __future__ import annotations

import re
import statistics

import pytest

from hardware_db import catalog
from problems.engine import registry
from problems.engine.variants import Variant
from tests.problems.template_harness import slips, solve

SEEDS = range(200)


def _block(markdown: str) -> list[str]:
    """The lines of the statement's one fenced text block."""
    body = re.search(r"```text\n(.*?)\n```", markdown, re.S)
    assert body, markdown
    return body.group(1).splitlines()


def _refused(slug: str, params: dict) -> None:
    with pytest.raises(ValueError):
        registry.get(slug).parse_params(params)


# ------------------------------------------------------------------- nvidia-smi-triage

_SMI_ROW = re.compile(
    r"^\| N/A\s+(\d+)C\s+P0\s+(\d+)W /\s+(\d+)W \|\s+(\d+)MiB /\s+(\d+)MiB \|\s+(\d+)%"
    r"\s+Default \|$"
)
_SMI_CSV = re.compile(
    r"^(\d), (\d+) MHz, (\d+) MHz, (\d+), (\d+\.\d\d) W, (\d+\.\d\d) W, 0x([0-9A-F]{16})$"
)


def read_triage(markdown: str) -> tuple[str, str, dict]:
    """(gpu, cause, per-GPU CSV readings) as an engineer would read the output."""
    lines = _block(markdown)
    table = [m.groups() for m in map(_SMI_ROW.match, lines) if m]
    rows = {}
    for m in map(_SMI_CSV.match, lines):
        if m:
            i, clock, top, temp, draw, limit, mask = m.groups()
            rows[int(i)] = {
                "clock": int(clock),
                "top": int(top),
                "temp": int(temp),
                "draw": float(draw),
                "limit": float(limit),
                "mask": int(mask, 16),
            }
    assert len(table) == 8 and sorted(rows) == list(range(8))
    for i, (temp, draw, cap, _used, _total, util) in enumerate(table):
        r = rows[i]  # the table and the query agree
        assert int(temp) == r["temp"] and int(cap) == r["limit"] and util == "100"
        assert abs(int(draw) - r["draw"]) <= 0.5
    assert all(len(line) == 91 for line in lines if line and line[0] in "+|")
    full = max(r["limit"] for r in rows.values())
    typical = statistics.median(r["draw"] for r in rows.values())
    found = (
        [(i, "power-cap") for i, r in rows.items() if r["limit"] < full]
        + [(i, "thermal") for i, r in rows.items() if r["mask"] & (0x20 | 0x40)]
        + [(i, "stalled") for i, r in rows.items() if r["draw"] < 0.5 * typical]
    )
    assert len(found) <= 1, found
    if not found:
        return "none", "none", rows
    return f"GPU {found[0][0]}", found[0][1], rows


def test_triage_reader_finds_the_graded_fault():
    causes = set()
    for seed in SEEDS:
        v = Variant.from_seed("nvidia-smi-triage", seed)
        gpu, cause, rows = read_triage(v.statement_markdown())
        assert (gpu, cause) == (v.parts["gpu"].value, v.parts["cause"].value), seed
        causes.add(cause)
        named = {(m.code, m.part): m.value for m in v.misconceptions}
        # the GPU at its full limit with SW power cap set is the one named for that slip
        full = max(r["limit"] for r in rows.values())
        at_limit = [i for i, r in rows.items() if r["mask"] == 0x4 and r["limit"] == full]
        assert len(at_limit) == 1, seed
        assert named[("power-cap-at-full-limit", "gpu")] == f"GPU {at_limit[0]}", seed
        if cause != "thermal":
            hottest = max(rows, key=lambda i: rows[i]["temp"])
            assert named[("hottest-not-throttled", "gpu")] == f"GPU {hottest}", seed
    assert causes == {"stalled", "thermal", "power-cap", "none"}


def test_triage_a100_power_cap_by_hand():
    # HGX A100, sample 777: GPU 3's power.limit is 225.00 W (every other GPU 400.00 W),
    # drawing 218.80 W at 1140 MHz with 0x4 -> GPU 3, power-cap. GPU 2 also shows 0x4,
    # but at 388.09 W of the full 400 W (power-cap-at-full-limit); GPU 5 is the warmest
    # at 79 C with 1410 MHz and no reason set (hottest-not-throttled).
    params = {"accelerator": "a100-sxm-80gb", "fault": "power-cap", "gpu": 3, "sample": 777}
    parts = solve("nvidia-smi-triage", params)
    assert (parts["gpu"].value, parts["cause"].value) == ("GPU 3", "power-cap")
    text = Variant.from_params("nvidia-smi-triage", params).statement_markdown()
    assert "3, 1140 MHz, 1410 MHz, 52, 218.80 W, 225.00 W, 0x0000000000000004" in text
    assert slips("nvidia-smi-triage", params) == {
        ("power-cap-at-full-limit", "gpu"): "GPU 2",
        ("hottest-not-throttled", "gpu"): "GPU 5",
        ("slow-clock-as-thermal", "cause"): "thermal",
    }


def test_triage_grades_choices_loosely_and_names_trusting_gpu_util():
    params = {"accelerator": "h100-sxm", "fault": "stalled", "gpu": 4, "sample": 9}
    v = Variant.from_params("nvidia-smi-triage", params)
    assert v.grade("gpu", "gpu 4").correct and v.grade("cause", "Stalled").correct
    wrong = v.grade("gpu", "none")
    assert not wrong.correct and wrong.misconception == "trusted-gpu-util"
    assert v.grade("cause", "power cap").misconception == "low-draw-as-cap"


def test_triage_refuses_a_gpu_that_does_not_match_the_fault():
    _refused("nvidia-smi-triage", {"accelerator": "h200", "fault": "none", "gpu": 2, "sample": 1})
    _refused(
        "nvidia-smi-triage", {"accelerator": "h200", "fault": "thermal", "gpu": None, "sample": 1}
    )


# ------------------------------------------------------------------- gpu-memory-errors

_FIELD = re.compile(r"^( *)(\S.*?)\s*: (.*)$")
_HEADER = re.compile(r"^( +)(\S.*\S)$")


def read_memory(markdown: str, banks: int) -> tuple[str, str, dict]:
    """(gpu, first action, per-GPU fields keyed by their section path)."""
    lines = _block(markdown)
    index = {bus: int(i) for i, bus in (re.findall(r"^(\d), (0000\S+)$", "\n".join(lines), re.M))}
    gpus: dict[int, dict] = {}
    current, path = None, []
    for line in lines:
        if line.startswith("GPU 0000"):
            current, path = gpus.setdefault(index[line[4:]], {}), []
            continue
        if current is None:
            continue
        field, header = _FIELD.match(line), _HEADER.match(line)
        if field:
            depth = len(field.group(1)) // 4
            current["/".join([*path[: depth - 1], field.group(2)])] = field.group(3)
        elif header:
            depth = len(header.group(1)) // 4
            path = [*path[: depth - 1], header.group(2)]
    assert sorted(gpus) == list(range(8))
    for g in gpus.values():
        hist = "Remapped Rows/Bank Remap Availability Histogram/"
        levels = ("Max", "High", "Partial", "Low", "None")
        assert sum(int(g[hist + k].split()[0]) for k in levels) == banks

    def volatile(g: dict) -> int:
        return sum(int(v) for k, v in g.items() if k.startswith("ECC Errors/Volatile/"))

    new = [i for i, g in gpus.items() if volatile(g) > 0]
    flagged = [
        i
        for i, g in gpus.items()
        if "Yes" in (g["Remapped Rows/Pending"], g["Remapped Rows/Remapping Failure Occurred"])
    ]
    assert len(new) <= 1 and set(flagged) <= set(new)
    if not new:
        return "none", "keep running", gpus
    g = gpus[new[0]]
    if g["Remapped Rows/Remapping Failure Occurred"] == "Yes":
        action = "replace GPU"
    elif g["Remapped Rows/Pending"] == "Yes":
        action = "reset at window"  # NVIDIA: new work may run; reset at the next window
    else:
        assert int(g["ECC Errors/Volatile/DRAM Uncorrectable"]) == 0
        action = "keep running"
    return f"GPU {new[0]}", action, gpus


def _banks(accelerator: str) -> int:
    return {"a100-sxm-80gb": 640, "h100-sxm": 2560}[accelerator]


def test_memory_reader_finds_the_graded_state():
    actions = set()
    for seed in SEEDS:
        v = Variant.from_seed("gpu-memory-errors", seed)
        gpu, action, gpus = read_memory(v.statement_markdown(), _banks(v.params.accelerator))
        assert (gpu, action) == (v.parts["gpu"].value, v.parts["action"].value), seed
        actions.add((gpu == "none", action))
        named = {(m.code, m.part): m.value for m in v.misconceptions}
        old = [i for i, g in gpus.items() if g["ECC Errors/Aggregate/DRAM Correctable"] != "0"]
        old = [i for i in old if g_is_history(gpus[i])]
        assert named[("aggregate-is-history", "gpu")] in {f"GPU {i}" for i in old}, seed
    assert actions == {
        (True, "keep running"),
        (False, "keep running"),
        (False, "reset at window"),
        (False, "replace GPU"),
    }


def g_is_history(g: dict) -> bool:
    """Aggregate errors, no volatile ones, nothing remapped."""
    quiet = all(v == "0" for k, v in g.items() if k.startswith("ECC Errors/Volatile/"))
    return quiet and g["Remapped Rows/Uncorrectable Error"] == "0"


def test_memory_h100_pending_by_hand():
    # HGX H100, sample 4242: bus BA:00.0 is GPU 6; its Volatile DRAM Uncorrectable is 2,
    # with one row remapped for an uncorrectable error, Pending: Yes -> GPU 6, reset at
    # the next window (NVIDIA: work continues while a remap is pending).
    # GPU 2 (3A:00.0) has 31 Aggregate DRAM Correctable and zero volatile counts
    # (aggregate-is-history); GPU 3 (5D:00.0) has one aggregate uncorrectable error and
    # its row remapped with Pending: No (applied-remap-is-healthy).
    params = {"accelerator": "h100-sxm", "state": "pending", "gpu": 6, "sample": 4242}
    parts = solve("gpu-memory-errors", params)
    assert (parts["gpu"].value, parts["action"].value) == ("GPU 6", "reset at window")
    assert slips("gpu-memory-errors", params) == {
        ("aggregate-is-history", "gpu"): "GPU 2",
        ("applied-remap-is-healthy", "gpu"): "GPU 3",
        ("pending-needs-reset", "action"): "keep running",
        ("restart-is-not-reset", "action"): "restart job",
        ("pending-remap-is-not-urgent", "action"): "reset GPU",
        ("remap-is-not-failure", "action"): "replace GPU",
    }


def test_memory_correctable_names_every_drastic_action():
    params = {"accelerator": "a100-sxm-80gb", "state": "correctable", "gpu": 0, "sample": 5}
    v = Variant.from_params("gpu-memory-errors", params)
    assert v.parts["action"].value == "keep running"
    for action in ("restart job", "reset at window", "reset GPU", "replace GPU"):
        assert v.grade("action", action).misconception == "correctable-is-not-fatal"


def test_memory_refuses_a_gpu_that_does_not_match_the_state():
    _refused(
        "gpu-memory-errors", {"accelerator": "h100-sxm", "state": "none", "gpu": 0, "sample": 1}
    )
    _refused(
        "gpu-memory-errors",
        {"accelerator": "h100-sxm", "state": "failure", "gpu": None, "sample": 1},
    )


# ------------------------------------------------------------------ dcgm-dmon-activity

_DMON = re.compile(r"^GPU (\d)\s+" + r"\s+".join([r"(\d\.\d{3})"] * 4) + r"\s+(\d+\.\d{3})$")


def read_dmon(markdown: str) -> tuple[str, str, dict]:
    """(odd GPU, its kind, per-GPU means by column name)."""
    lines = _block(markdown)
    header = next(line for line in lines if line.startswith("#Entity")).split()[1:]
    assert header == ["GRACT", "SMACT", "TENSO", "DRAMA", "POWER"]
    samples: dict[int, list[tuple[float, ...]]] = {}
    for m in map(_DMON.match, lines):
        if m:
            samples.setdefault(int(m.group(1)), []).append(tuple(map(float, m.groups()[1:])))
    assert sorted(samples) == list(range(8)) and all(len(s) == 3 for s in samples.values())
    means = {
        i: {name: statistics.fmean(s[k] for s in rows) for k, name in enumerate(header)}
        for i, rows in samples.items()
    }
    typical = statistics.median(m["TENSO"] for m in means.values())
    odd = [i for i, m in means.items() if m["TENSO"] < 0.4 * typical]
    assert len(odd) == 1
    m = means[odd[0]]
    kind = "stalled" if m["SMACT"] < 0.1 else "memory-bound"
    assert m["GRACT"] > 0.9 and (kind == "stalled" or m["DRAMA"] > 0.7)
    return f"GPU {odd[0]}", kind, means


def test_dmon_reader_finds_the_odd_gpu_and_the_throughput():
    kinds = set()
    for seed in SEEDS:
        v = Variant.from_seed("dcgm-dmon-activity", seed)
        text = v.statement_markdown()
        gpu, kind, means = read_dmon(text)
        assert gpu == v.parts["gpu"].value and kind == v.params.odd, seed
        kinds.add(kind)
        named = int(re.search(r"does GPU (\d)'s tensor pipe", text).group(1))
        peak = float(re.search(r"lists ([\d,.]+) TFLOP/s of dense", text).group(1).replace(",", ""))
        acc = catalog.accelerator(v.params.accelerator)
        assert peak == pytest.approx(acc.dense_flops[v.params.precision] / 1e12, rel=1e-12)
        expected = means[named]["TENSO"] * peak
        assert v.parts["tflops"].value == pytest.approx(expected, rel=1e-9), seed
    assert kinds == {"stalled", "memory-bound"}


def test_dmon_h100_memory_bound_by_hand():
    # HGX H100, BF16 (989.4 TFLOP/s dense, 1,979 sparse), sample 12345. GPU 2: SMACT
    # 0.898/0.885/0.898 like the rest but TENSO 0.090/0.069/0.075 and DRAMA about 0.88
    # -> memory-bound, GPU 2. GPU 5: TENSO 0.306, 0.328, 0.330 -> mean 0.964/3 = 0.321333;
    # x 989.4 = 317.9272 TFLOP/s. Slips: SMACT (0.572 + 0.541 + 0.567)/3 = 0.56 -> 554.064;
    # DRAMA (0.251 + 0.246 + 0.235)/3 = 0.244 -> 241.4136; sparse 0.321333 x 1979 =
    # 635.9187; percent 100 x 317.9272 = 31,792.72.
    params = {
        "accelerator": "h100-sxm",
        "precision": "bf16",
        "odd": "memory-bound",
        "odd_gpu": 2,
        "named_gpu": 5,
        "sample": 12345,
    }
    parts = solve("dcgm-dmon-activity", params)
    assert parts["gpu"].value == "GPU 2"
    assert parts["tflops"].value == pytest.approx(317.9272, rel=1e-9)
    named = slips("dcgm-dmon-activity", params)
    assert named[("sm-active-as-tensor", "tflops")] == pytest.approx(554.064, rel=1e-9)
    assert named[("drama-as-tensor", "tflops")] == pytest.approx(241.4136, rel=1e-9)
    assert named[("sparse-peak", "tflops")] == pytest.approx(0.964 / 3 * 1979, rel=1e-9)
    assert named[("percent-as-fraction", "tflops")] == pytest.approx(31792.72, rel=1e-9)
    assert named[("trusted-sm-active", "gpu")] == "none"


def test_dmon_refuses_inconsistent_params():
    good = {
        "accelerator": "h100-sxm",
        "precision": "bf16",
        "odd": "stalled",
        "odd_gpu": 1,
        "named_gpu": 2,
        "sample": 3,
    }
    registry.get("dcgm-dmon-activity").parse_params(good)
    _refused("dcgm-dmon-activity", {**good, "named_gpu": 1})
    _refused("dcgm-dmon-activity", {**good, "accelerator": "a100-sxm-80gb", "precision": "fp8"})


@pytest.mark.parametrize(
    ("slug", "field"), [("nvidia-smi-triage", "fault"), ("dcgm-dmon-activity", "odd")]
)
def test_a_stalled_single_gpu_run_is_not_blamed_on_a_collective(slug, field):
    # the sweep's runs and the replicas are single-GPU: no rank waits on a collective
    stalled = 0
    for seed in SEEDS:
        v = Variant.from_seed(slug, seed)
        if getattr(v.params, field) != "stalled":
            continue
        stalled += 1
        text = v.solution_markdown()
        assert not re.search(r"\branks?\b|(spinning|stuck) in a collective", text), seed
    assert stalled > 20


def test_dmon_healthy_replicas_read_within_a_few_percent_of_one_another():
    # eight replicas of one job: the healthy GPUs' means differ by a few percent, not 2x
    for seed in SEEDS:
        v = Variant.from_seed("dcgm-dmon-activity", seed)
        _, _, means = read_dmon(v.statement_markdown())
        healthy = [m for i, m in means.items() if i != v.params.odd_gpu]
        for field in ("SMACT", "TENSO", "DRAMA", "POWER"):
            values = [m[field] for m in healthy]
            assert max(values) / min(values) < 1.06, (seed, field, values)


def test_dmon_old_parameters_still_solve_as_they_were_shown():
    # questions stored before the replicas were matched keep their readings (generator 1)
    params = {
        "accelerator": "h100-sxm",
        "precision": "bf16",
        "odd": "memory-bound",
        "odd_gpu": 2,
        "named_gpu": 5,
        "sample": 12345,
    }
    assert solve("dcgm-dmon-activity", params)["tflops"].value == pytest.approx(317.9272)
    matched = solve("dcgm-dmon-activity", {**params, "generator": 2})["tflops"].value
    assert matched != pytest.approx(317.9272)


def test_dmon_first_pass_prints_na_for_the_profiling_fields():
    for seed in range(40):
        lines = _block(Variant.from_seed("dcgm-dmon-activity", seed).statement_markdown())
        first = lines[3:11]
        assert [line.split()[:2] for line in first] == [["GPU", str(i)] for i in range(8)]
        for line in first:
            cells = line.split()[2:]
            assert cells[:4] == ["N/A"] * 4 and float(cells[4]) > 0, (seed, line)
        assert lines[0].endswith("-c 4")
