"""The default `nvidia-smi` table as the templates print it, read with the same reader as
the real captures in data/tool-output/nvidia-smi, and compared field by field: the date
line after the command, the banner (width, where "Driver Version:" and "CUDA Version:"
start), the heading rows, each GPU row's separators, field order and units, and the
Processes box (its heading rows, a row per running process, "No running processes
found" when nothing runs)."""

from __future__ import annotations

import re

from problems.templates._era import DRIVERS
from problems.templates._nvidia_smi import layout_of
from tests.problems.tool_output import bars, blocks, capture, shape

SEEDS = range(60)
DATE = re.compile(r"^[A-Z][a-z]{2} [A-Z][a-z]{2} [ 1-3]\d \d\d:\d\d:\d\d 20\d\d {7}$")
PROCESS_ROW = re.compile(r"^\|\s+(\d+)\s+N/A\s+N/A\s+(\d+)\s+([CG])\s+(\S+)\s+(\d+)MiB \|$")
NAMES = re.compile(r"NVIDIA [A-Z][\w-]*( 80GB HBM3|-SXM4-80GB)?")


def read_smi(text: str) -> dict:
    """The parts of one `nvidia-smi` run, from the command (if shown) to the Processes box."""
    lines = text.splitlines()
    top = next(k for k, line in enumerate(lines) if "NVIDIA-SMI" in line) - 1
    banner = lines[top + 1]
    out: dict = {
        "width": len(banner),
        "at": (banner.index("Driver Version:"), banner.index("CUDA Version:")),
        "driver": re.search(r"Driver Version: (\S+)", banner).group(1),
        "rule": lines[top + 2],
        "heads": lines[top + 3 : top + 6],
        "command": next((line for line in lines[:top] if "nvidia-smi" in line), None),
        "date": lines[top - 1] if top > 0 else None,
    }
    rows, k = [], top + 7
    while k < len(lines) and lines[k].startswith("|"):
        rows.append(lines[k : k + 4])
        k += 4
    out["gpus"] = rows
    out["processes"] = None
    box = [i for i, line in enumerate(lines) if line.startswith("| Processes:")]
    if box:
        b = box[0]
        out["blank"] = len(lines[b - 2])
        end = next(i for i in range(b + 4, len(lines)) if lines[i].startswith("+"))
        body = lines[b + 4 : end]
        out["processes"] = {
            "width": len(lines[b]),
            "heads": lines[b + 1 : b + 3],
            "rows": [PROCESS_ROW.match(line) for line in body],
            "empty": body == ["|  No running processes found".ljust(len(lines[b]) - 1) + "|"],
        }
    return out


def _gpu_shapes(smi: dict) -> set[tuple[tuple[int, ...], str]]:
    """Each GPU-block line's separators and fields, the product name and the MIG mode
    (Disabled, or N/A on parts without MIG) left out."""
    out = set()
    for block in smi["gpus"]:
        for line in block:
            fields = re.sub(r"(Disabled|N/A) \|$", "MIG |", NAMES.sub("NAME", line))
            out.add((bars(line), shape(fields)))
    return out


def _same_table(gen: dict, cap: dict) -> None:
    for key in ("width", "at", "rule", "heads"):
        assert gen[key] == cap[key], key
    assert _gpu_shapes(gen) <= _gpu_shapes(cap)


def _layout(smi: dict) -> str:
    return layout_of(DRIVERS[smi["driver"]].branch)


CAPTURED = {"r550": read_smi(capture("nvidia-smi", 1)), "r535": read_smi(capture("nvidia-smi", 2))}


def test_the_reader_reads_both_captures():
    r550, r535 = CAPTURED["r550"], CAPTURED["r535"]
    assert (r550["width"], len(r550["gpus"]), r550["processes"]) == (91, 8, None)
    assert (r535["width"], len(r535["gpus"])) == (89, 8)
    assert DATE.match(r535["date"]) and r535["command"].endswith("$ nvidia-smi")
    assert r535["processes"]["empty"] and r535["blank"] == 89


def _generated():
    for seed in SEEDS:
        for slug in ("nvidia-smi-triage", "cuda-driver-compat"):
            _, texts = blocks(slug, seed)
            yield slug, seed, read_smi(texts[0])


def test_generated_nvidia_smi_matches_the_captured_layout_of_its_branch():
    seen = set()
    for slug, seed, smi in _generated():
        layout = _layout(smi)
        if layout in CAPTURED:
            _same_table(smi, CAPTURED[layout])
            seen.add(layout)
        assert all(len(line) == smi["width"] for b in smi["gpus"] for line in b), (slug, seed)
    assert seen == {"r535", "r550"}


def test_every_nvidia_smi_run_shows_its_date_and_a_processes_box():
    for slug, seed, smi in _generated():
        assert smi["command"] is not None and DATE.match(smi["date"] or ""), (slug, seed)
        box = smi["processes"]
        assert box is not None, (slug, seed)
        assert box["width"] == smi["width"] and smi["blank"] == 89 or _layout(smi) == "old"
        if _layout(smi) == "r535":
            assert box["heads"] == CAPTURED["r535"]["processes"]["heads"]
        assert box["empty"] or all(box["rows"]), (slug, seed)


def test_the_triage_sweep_lists_one_training_process_per_gpu():
    for seed in SEEDS:
        v, texts = blocks("nvidia-smi-triage", seed)
        smi = read_smi(texts[0])
        rows = [m.groups() for m in smi["processes"]["rows"]]
        assert [int(r[0]) for r in rows] == list(range(8)), seed
        assert len({r[1] for r in rows}) == 8 and {r[2] for r in rows} == {"C"}
        for (gpu, _, _, _, mib), block in zip(rows, smi["gpus"], strict=True):
            used = int(re.search(r"(\d+)MiB /", block[1]).group(1))
            assert 0 < used - int(mib) < 1024, (seed, gpu)  # the process holds nearly all


def test_an_idle_node_lists_no_process():
    for seed in SEEDS:
        _, texts = blocks("cuda-driver-compat", seed)
        assert read_smi(texts[0])["processes"]["empty"], seed


def test_r580_and_later_draw_a_plus_rule_under_the_banner():
    branches = set()
    for slug, seed, smi in _generated():
        branch = DRIVERS[smi["driver"]].branch
        assert smi["rule"][0] == ("+" if branch >= 580 else "|"), (slug, seed)
        branches.add(branch >= 580)
    assert branches == {True, False}
