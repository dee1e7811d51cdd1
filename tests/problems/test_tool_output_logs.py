"""Line-oriented tool output, read with one reader per kind that parses the real captures
in data/tool-output and the generated statements alike: `dcgmi dmon` (column starts,
entity and value widths, the first pass of N/A), the NVIDIA driver's kernel lines for
Xids (`dmesg -T` stamps, the GPU-at-PCI pair, each code's message format) and vLLM's
Prometheus text (HELP, TYPE and sample lines, labels, value format)."""

from __future__ import annotations

import re

from tests.problems.tool_output import blocks, capture

SEEDS = range(60)

# ------------------------------------------------------------------------ dcgmi dmon


def read_dmon(text: str) -> dict:
    lines = [line for line in text.splitlines() if line and not line.startswith(("$", "["))]
    lines = [line for line in lines if "dcgmi dmon" not in line]
    head = next(line for line in lines if line.startswith("#Entity"))
    fields = head.split()[1:]
    starts = [head.index(f) for f in fields]
    rows = []
    for line in lines[lines.index(head) + 2 :]:
        entity = line[: starts[0]].strip()
        cells = [line[a:b].strip() for a, b in zip(starts, [*starts[1:], None], strict=True)]
        assert re.fullmatch(r"GPU(-I)? \d+", entity), line
        assert all(re.fullmatch(r"N/A|\d+\.\d{3}", c) for c in cells), line
        rows.append((entity, cells))
    return {"fields": fields, "starts": starts, "id": lines[lines.index(head) + 1], "rows": rows}


def test_dcgmi_dmon_reads_like_the_capture():
    cap = read_dmon(capture("dcgmi-dmon", 1))
    widths = {b - a for a, b in zip(cap["starts"], cap["starts"][1:], strict=False)}
    assert cap["starts"][0] == 11 and widths == {13}
    for seed in SEEDS:
        _, texts = blocks("dcgm-dmon-activity", seed)
        gen = read_dmon(texts[0])
        assert gen["starts"] == cap["starts"][: len(gen["fields"])], seed
        assert gen["id"].split() == ["ID", "W"] and gen["fields"][-1] == "POWER"
        # the first pass, as captured: every profiling field N/A on every GPU
        first = gen["rows"][:8]
        assert [e for e, _ in first] == [e for e, _ in cap["rows"][:8]]
        assert all(cells[:-1] == ["N/A"] * 4 for _, cells in first), seed
        assert all("N/A" not in cells for _, cells in gen["rows"][8:]), seed


# ------------------------------------------------------------------- xid kernel lines

STAMP = r"\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ 1-3]\d \d\d:\d\d:\d\d 20\d\d\] "
LINES = {
    "load": r"NVRM: loading NVIDIA UNIX x86_64 Kernel Module  \d+\.\d+\.\d+  "
    r"[A-Z][a-z]{2} [A-Z][a-z]{2} [ 1-3]\d \d\d:\d\d:\d\d UTC 20\d\d$",
    "at": r"NVRM: GPU at PCI:0000:[0-9a-f]{2}:[0-9a-f]{2}: "
    r"GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
    "serial": r"NVRM: GPU Board Serial Number: \d{13}$",
    "xid": r"NVRM: Xid \(PCI:0000:[0-9a-f]{2}:[0-9a-f]{2}\): (\d+), "
    r"(pid=\d+, name=\S+|pid='<unknown>', name=<unknown>), (.*)$",
}
MESSAGES = {
    31: r"Ch [0-9a-f]{8}, intr 00000000\. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_\d+ faulted "
    r"@ 0x[0-9a-f]{4}_[0-9a-f]{8}\. Fault is of type FAULT_P[DT]E ACCESS_TYPE_VIRT_[A-Z]+",
    48: r"An uncorrectable double bit error \(DBE\) has been detected on GPU in the "
    r"framebuffer at physAddr 0x[0-9a-f]+ partition \d+, subpartition \d+\.",
    94: r"Contained: [A-Z ]+ \(0x[0-9a-f]+\)\. RST: No, D-RST: No",
}


def read_kernel(text: str) -> list[tuple[str, int | None, str]]:
    """(kind, Xid code or None, message) for each NVRM line; a capture's syslog prefix
    (`Dec  2 11:38:47 worker4 kernel: [  219.470994] `) or dmesg -T stamp is dropped."""
    out = []
    for line in text.splitlines():
        body = re.sub(r"^.*?kernel: \[ *[\d.]+\] |^" + STAMP, "", line)
        for kind, pattern in LINES.items():
            m = re.match(pattern, body)
            if m:
                code = int(m.group(1)) if kind == "xid" else None
                out.append((kind, code, m.group(3) if kind == "xid" else body))
    return out


def test_xid_lines_read_like_the_captures():
    cap = read_kernel(capture("xid", 1)) + read_kernel(capture("xid", 2))
    cap_kinds = {k for k, _, _ in cap}
    assert cap_kinds == {"load", "at", "serial", "xid"}
    for _, code, message in cap:
        if code in MESSAGES:
            assert re.fullmatch(MESSAGES[code], message), message
    seen = set()
    for seed in SEEDS:
        _, texts = blocks("xid-triage", seed)
        gen = read_kernel(texts[0])
        assert {k for k, _, _ in gen} == cap_kinds, seed
        for _, code, message in gen:
            if code in MESSAGES:
                assert re.fullmatch(MESSAGES[code], message), (seed, message)
                seen.add(code)
    assert seen == set(MESSAGES)


# ------------------------------------------------------------------------ vllm /metrics

METRIC = re.compile(r'^(vllm:\w+)\{((?:\w+="[^"]*",?)*)\} (\S+)$')
# vLLM's V0 engine (vllm/engine/metrics.py) where its text differs from V1's
V0_HELP = {"vllm:num_requests_running": "Number of requests currently running on GPU."}


def read_metrics(text: str) -> dict:
    helps, types, samples = {}, {}, {}
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name, _, doc = line[7:].partition(" ")
            helps[name] = doc
        elif line.startswith("# TYPE "):
            name, _, kind = line[7:].partition(" ")
            types[name] = kind
        elif line.startswith("vllm:"):
            m = METRIC.match(line)
            assert m, line
            labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
            assert float(m.group(3)) >= 0 and re.fullmatch(r"\d+\.\d+(e[+-]\d\d)?", m.group(3))
            samples[m.group(1)] = (labels, m.group(3))
    return {"help": helps, "type": types, "samples": samples}


def test_vllm_metrics_read_like_the_captures():
    v1 = read_metrics(capture("vllm-metrics", 1))
    assert v1["help"]["vllm:num_requests_running"] != V0_HELP["vllm:num_requests_running"]
    for seed in SEEDS:
        v, texts = blocks("vllm-metrics-diagnosis", seed)
        assert "V0 engine" in v.statement_markdown()
        for text in texts:
            gen = read_metrics(text)
            for name, (labels, _) in gen["samples"].items():
                if name in v1["samples"]:
                    assert set(labels) == set(v1["samples"][name][0]), name  # model_name
                    assert gen["type"][name] == v1["type"][name]
                    assert gen["help"][name] == V0_HELP.get(name, v1["help"][name]), name
