"""Column-aligned tool output, read with one reader per kind that parses the real captures
in data/tool-output and the generated statements alike: nccl-tests' result table,
`nvidia-smi topo -m`, `squeue` and kubectl's tables (get, and the Events of describe),
compared on their headers, where the columns end or start, the units and the cell
vocabulary; and kubectl's event ages, which vary and hang together."""

from __future__ import annotations

import re

from tests.problems.tool_output import blocks, capture

SEEDS = range(60)

# --------------------------------------------------------------------------- nccl-tests


def read_nccl(text: str) -> dict:
    lines = text.splitlines()
    head = [i for i, line in enumerate(lines) if line.startswith("#       size")][0]
    heads = [line.rstrip() for line in lines[head - 1 : head + 2]]
    rows = []
    for line in lines[head + 2 :]:
        if line.startswith("#"):
            break
        cells = line.split()
        assert len(cells) == 13, line
        ends = tuple(m.end() for m in re.finditer(r"\S+", line))
        rows.append((cells, ends))
    tail = [line.rstrip() for line in lines if line.startswith("# Out of") or "# Avg bus" in line]
    return {"heads": heads, "rows": rows, "tail": tail}


def test_nccl_tests_tables_read_like_the_captures():
    caps = [read_nccl(capture("nccl-tests", n)) for n in (1, 2)]
    assert caps[0]["heads"] == caps[1]["heads"]
    ends = {e for cap in caps for _, e in cap["rows"]}
    assert len(ends) == 1  # every captured row ends its columns at the same places
    for seed in SEEDS:
        _, texts = blocks("nccl-tests-readout", seed)
        for node in texts[0].split("\n\n"):
            gen = read_nccl(node)
            assert gen["heads"] == caps[0]["heads"], seed
            assert {e for _, e in gen["rows"]} == ends, seed
            assert re.fullmatch(r"# Out of bounds values : \d+ (OK|FAILED)", gen["tail"][0])
            assert re.fullmatch(r"# Avg bus bandwidth    : [\d.]+", gen["tail"][1])


# ---------------------------------------------------------------------- nvidia-smi topo


def read_topo(text: str) -> dict:
    lines = [line.expandtabs(8) for line in text.splitlines() if not line.startswith("$")]
    head = lines[0]
    names = re.findall(r"\S+(?: \S+)*", head)
    starts = [m.start() for m in re.finditer(r"\S+(?: \S+)*", head)]
    cells = set()
    for line in lines[1:]:
        if not re.match(r"^(GPU|NIC)\d", line):
            break
        cells |= set(line.split()[1:])
    legend = [line for line in lines if re.match(r"^  (X|SYS|NODE|PHB|PXB|PIX|NV#) +=", line)]
    return {
        "names": names,
        "starts": dict(zip(names, starts, strict=True)),
        "cells": cells,
        "legend": legend,
    }


def test_topo_matrix_reads_like_the_captures():
    tabs, spaces = read_topo(capture("topo", 1)), read_topo(capture("topo", 2))
    vocab = {"X", "SYS", "NODE", "PHB", "PXB", "PIX"}
    for seed in SEEDS:
        _, texts = blocks("topo-matrix", seed)
        gen = read_topo(texts[0])
        assert gen["names"][-3:] == tabs["names"][-3:] == spaces["names"][-3:]
        for t in (gen, tabs):  # a device column per tab stop, as captured
            for k, name in enumerate(t["names"]):
                if re.fullmatch(r"(GPU|NIC)\d", name):
                    assert t["starts"][name] == 8 * (k + 1), (seed, name)
            # the last three columns, a tab stop past their text
            s = t["starts"]
            assert s["NUMA Affinity"] - s["CPU Affinity"] == s["GPU NUMA ID"] - s["NUMA Affinity"]
        assert all(c in vocab or re.fullmatch(r"NV\d+|[\d,-]+|N/A", c) for c in gen["cells"])
        assert gen["legend"] == spaces["legend"], seed


# ----------------------------------------------------------------------------- squeue


def read_squeue(text: str) -> list[tuple[int, ...]]:
    """For each squeue row, where its right-aligned fields end (all but NODELIST)."""
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if "JOBID" in line and "PARTITION" in line)
    ends = [m.end() for m in re.finditer(r"\S+", lines[head])][:-1]
    rows = []
    for line in lines[head + 1 :]:
        if not line.strip():
            break
        rows.append(tuple(m.end() for m in re.finditer(r"\S+", line))[: len(ends)])
        assert rows[-1] == tuple(ends), line
    return rows


def test_squeue_columns_end_where_their_headers_end():
    assert read_squeue(capture("slurm-k8s", 1))
    for seed in SEEDS:
        _, texts = blocks("slurm-pending-job", seed)
        assert read_squeue(texts[0]), seed


# ---------------------------------------------------------------------------- kubectl

AGE = r"\d+[smhd](\d+[smh])?"
EVENT_AGE = re.compile(rf"^({AGE})( \(x(\d+) over ({AGE})\))?$")


def read_kubectl(lines: list[str]) -> list[dict]:
    """Every table in the lines (a header row of upper-case words, or an Events block),
    as rows of cells cut at the header's column starts."""
    tables, k = [], 0
    while k < len(lines):
        line = lines[k]
        if re.match(r"^ *(NAME|Type) ", line):
            starts = [m.start() for m in re.finditer(r"(?<!\S)\S", line)]
            names = [line[a:b].strip() for a, b in zip(starts, [*starts[1:], None], strict=True)]
            rows = []
            k += 1
            while k < len(lines) and lines[k].strip() and not lines[k].startswith(("$", "[")):
                row = lines[k]
                rows.append(
                    [row[a:b].strip() for a, b in zip(starts, [*starts[1:], None], strict=True)]
                )
                k += 1
            tables.append({"names": names, "starts": starts, "rows": rows})
            continue
        k += 1
    return tables


def _kubectl_tables(text: str) -> list[dict]:
    return read_kubectl(text.splitlines())


def test_kubectl_tables_read_like_the_capture():
    get, events = _kubectl_tables(capture("slurm-k8s", 2))
    assert get["names"] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert events["names"] == ["Type", "Reason", "Age", "From", "Message"]
    assert events["rows"][0] == ["----", "------", "----", "----", "-------"]
    assert EVENT_AGE.match(events["rows"][1][2])
    for seed in SEEDS:
        _, texts = blocks("k8s-pending-pod", seed)
        for table in [t for text in texts for t in _kubectl_tables(text)]:
            if table["names"][0] == "Type":
                assert table["names"] == events["names"] and table["starts"][0] == 2
                assert table["rows"][0] == events["rows"][0]
                assert all(EVENT_AGE.match(r[2]) for r in table["rows"][1:]), seed
            if table["names"][:2] == ["NAME", "READY"]:
                assert table["names"] == get["names"]
                assert all(re.fullmatch(AGE, r[-1]) for r in table["rows"]), seed


def _seconds(age: str) -> int:
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    return sum(int(n) * units[u] for n, u in re.findall(r"(\d+)([smhd])", age))


def test_k8s_event_ages_vary_and_hang_together():
    seen = set()
    for seed in range(120):
        v, texts = blocks("k8s-pending-pod", seed)
        minutes = int(re.search(r"(\d+) minutes later", v.statement_markdown()).group(1))
        for table in [t for text in texts for t in _kubectl_tables(text)]:
            if table["names"][0] == "Type":
                for row in table["rows"][1:]:
                    m = EVENT_AGE.match(row[2])
                    last, count, first = m.group(1), m.group(4), m.group(5)
                    seen.add(row[2])
                    assert count and _seconds(first) // 60 == minutes, (seed, row[2])
                    assert _seconds(last) <= _seconds(first)
                    assert int(count) >= minutes // 6, (seed, row[2])  # at least every 5 min
            elif table["names"][:2] == ["NAME", "READY"]:
                assert {_seconds(r[-1]) // 60 for r in table["rows"]} == {minutes}, seed
    assert len(seen) > 60
