"""The default `nvidia-smi` table as the templates print it, read with the same reader as
the real captures in data/tool-output/nvidia-smi, and compared field by field: the date
line after the command, the banner (width, where "Driver Version:" and "CUDA Version:"
start), the heading rows, each GPU row's separators, field order and units, and the
Processes box (its heading rows, a row per running process, "No running processes
found" when nothing runs)."""

from __future__ import annotations

import re

from problems.templates._era import DRIVERS, fleet_driver
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
        assert box["width"] == smi["width"] and smi["blank"] in (0, 89), (slug, seed)
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


# ---------------------------------------------------------------- nvidia-smi -q


FIELD = re.compile(r"^( *)(\S.*?)\s*: (.*)$")


def read_q(text: str) -> dict:
    """`nvidia-smi -q`: the header fields, where the colon sits, and per GPU the section
    paths in order with their values (a `[...]` cut in a capture is skipped)."""
    out: dict = {"colons": set(), "gpus": [], "header": {}}
    path: list[str] = []
    gpu = None
    for line in text.splitlines():
        if line.startswith("GPU 0000"):
            gpu, path = {"bus": line[4:], "fields": []}, []
            out["gpus"].append(gpu)
            continue
        m = FIELD.match(line)
        if m and gpu is None:
            out["header"][m.group(2)] = m.group(3)
            out["colons"].add(len(m.group(1)) + len(line[len(m.group(1)) :].split(":")[0]))
        elif gpu is not None and line.strip() and "[...]" not in line:
            depth = (len(line) - len(line.lstrip())) // 4
            assert (len(line) - len(line.lstrip())) % 4 == 0, line
            if m:
                out["colons"].add(line.index(" : ") + 1)
                gpu["fields"].append(("/".join([*path[: depth - 1], m.group(2)]), m.group(3)))
            else:
                path = [*path[: depth - 1], line.strip()]
    return out


def _remapped(q: dict) -> list[list[tuple[str, str]]]:
    return [[f for f in g["fields"] if f[0].startswith("Remapped Rows/")] for g in q["gpus"]]


def test_gpu_memory_errors_reads_like_the_captured_nvidia_smi_q():
    caps = [read_q(capture("nvidia-smi-q", n)) for n in (1, 2)]
    names = [[name for name, _ in rows] for cap in caps for rows in _remapped(cap)]
    assert names[0] == names[1] and len(names[0]) == 9
    for seed in range(40):
        _, texts = blocks("gpu-memory-errors", seed)
        q = read_q(texts[0].split("$ nvidia-smi -q", 1)[1])
        assert q["colons"] == {42} == caps[0]["colons"] == caps[1]["colons"], seed
        assert list(q["header"]) == ["Timestamp", "Driver Version", "CUDA Version", "Attached GPUs"]
        assert len(q["gpus"]) == int(q["header"]["Attached GPUs"]) == 8
        for rows in _remapped(q):
            assert [name for name, _ in rows] == names[0], seed
            assert all(v.endswith(" bank(s)") for n, v in rows if "Histogram" in n)


def test_gpu_memory_errors_driver_is_the_fleet_driver_of_its_date():
    for seed in range(60):
        v, texts = blocks("gpu-memory-errors", seed)
        q = read_q(texts[0].split("$ nvidia-smi -q", 1)[1])
        year = int(q["header"]["Timestamp"][-4:])
        driver = fleet_driver(v.params.accelerator, year)
        assert (q["header"]["Driver Version"], q["header"]["CUDA Version"]) == (
            driver.version,
            driver.cuda,
        ), seed
        if driver.branch >= 535:  # R535 on: "ECC Mode", SRAM uncorrectable split in two
            names = [name for name, _ in q["gpus"][0]["fields"]]
            assert "ECC Mode/Current" in names
            assert "ECC Errors/Volatile/SRAM Uncorrectable SEC-DED" in names


def test_the_bank_histogram_agrees_with_the_remap_counts():
    # eight reserved rows per bank: a bank at None has used all eight, a bank not at Max
    # has used at least one; every remap is in some bank
    for seed in range(200):
        _, texts = blocks("gpu-memory-errors", seed)
        q = read_q(texts[0].split("$ nvidia-smi -q", 1)[1])
        for rows in _remapped(q):
            f = {name.rsplit("/", 1)[1]: value for name, value in rows}
            remaps = int(f["Correctable Error"]) + int(f["Uncorrectable Error"])
            hist = {k: int(f[k].split()[0]) for k in ("Max", "High", "Partial", "Low", "None")}
            used = hist["High"] + hist["Partial"] + hist["Low"] + hist["None"]
            assert used <= remaps and (remaps == 0) == (used == 0), (seed, f)
            assert 8 * hist["None"] <= int(f["Uncorrectable Error"]), (seed, f)
            if f["Remapping Failure Occurred"] == "Yes":
                assert hist["None"] >= 1, (seed, f)


def test_the_triage_node_runs_the_fleet_driver_of_its_date():
    for seed in SEEDS:
        v, texts = blocks("nvidia-smi-triage", seed)
        smi = read_smi(texts[0])
        year = int(smi["date"].split()[-1])
        assert smi["driver"] == fleet_driver(v.params.accelerator, year).version, seed
