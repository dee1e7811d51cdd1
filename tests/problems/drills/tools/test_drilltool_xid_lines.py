"""Xid 74 and 79 lines match the dmesg -T captures and the xid-triage log's wording."""

import datetime
import re
from pathlib import Path

import pytest

from problems.drills.tools.xid_lines import (
    GpuIdentity,
    Xid74,
    Xid79,
    render_xid_log,
    xid74_lines,
    xid79_lines,
)

G3 = GpuIdentity(0x86, "GPU-3b6ec030-5adc-1847-e155-79f635584b4e", "1652923017935")
G5 = GpuIdentity(0xA8, "GPU-c24840ec-8de1-83d5-b126-08000173ae32", "1652923018111")
T = datetime.datetime(2026, 12, 4, 3, 54, 13)
LATER = datetime.timedelta(seconds=40)

EXPECTED = """\
[Fri Dec  4 03:54:13 2026] NVRM: GPU at PCI:0000:86:00: GPU-3b6ec030-5adc-1847-e155-79f635584b4e
[Fri Dec  4 03:54:13 2026] NVRM: GPU Board Serial Number: 1652923017935
[Fri Dec  4 03:54:13 2026] NVRM: Xid (PCI:0000:86:00): 74, pid='<unknown>', name=<unknown>, \
NVLink: fatal error detected on link 7(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)
[Fri Dec  4 03:54:53 2026] NVRM: Xid (PCI:0000:86:00): 74, pid='<unknown>', name=<unknown>, \
NVLink: fatal error detected on link 7(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)
[Fri Dec  4 03:57:13 2026] NVRM: GPU at PCI:0000:a8:00: GPU-c24840ec-8de1-83d5-b126-08000173ae32
[Fri Dec  4 03:57:13 2026] NVRM: GPU Board Serial Number: 1652923018111
[Fri Dec  4 03:57:13 2026] NVRM: Xid (PCI:0000:a8:00): 79, pid='<unknown>', name=<unknown>, \
GPU has fallen off the bus.
[Fri Dec  4 03:57:13 2026] NVRM: GPU 0000:a8:00.0: GPU has fallen off the bus.
[Fri Dec  4 03:57:13 2026] NVRM: A GPU crash dump has been created. If possible, please run
[Fri Dec  4 03:57:13 2026] NVRM: nvidia-bug-report.sh as root to collect this data before
[Fri Dec  4 03:57:13 2026] NVRM: the NVIDIA kernel module is unloaded."""


def test_log_exact_each_gpu_introduced_once_in_time_order():
    events = [
        Xid79(T + datetime.timedelta(minutes=3), G5),
        Xid74(T + LATER, G3, 7),
        Xid74(T, G3, 7),
    ]
    assert render_xid_log(events) == EXPECTED


def test_xid154_follows_79_from_r565():
    lines = xid79_lines(Xid79(T, G5), driver_branch=570)
    assert lines[-1] == (
        "[Fri Dec  4 03:54:13 2026] NVRM: Xid (PCI:0000:a8:00): 154, GPU recovery action "
        "changed from 0x0 (None) to 0x2 (Node Reboot Required)"
    )
    assert not any(": 154," in line for line in xid79_lines(Xid79(T, G5), driver_branch=550))


def test_link_registers_and_bounds():
    (line,) = xid74_lines(Xid74(T, G3, 17, (0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x10000)))
    assert line.endswith("on link 17(0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x10000)")
    with pytest.raises(ValueError):
        Xid74(T, G3, 18)
    with pytest.raises(ValueError):
        Xid74(T, G3, 1, (0, 0))


def test_lines_have_the_capture_shape():
    """Every line parses the way the xid capture (copied into tests/problems/data) does."""
    capture = Path(__file__).resolve().parents[2] / "data/tool-output/xid/sample-1.txt"
    shape = re.compile(
        r"^\[(Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\] NVRM: "
    )
    ours = render_xid_log([Xid74(T, G3, 7), Xid79(T, G5)]).splitlines()
    assert all(shape.match(line) for line in ours)
    theirs = [ln for ln in capture.read_text().splitlines() if "Xid" in ln or "GPU at" in ln]
    assert theirs and all(shape.match(line) for line in theirs)
    bus_ids = {
        m.group(1) for ln in ours for m in [re.search(r"PCI:0000:([0-9a-f]{2}):00", ln)] if m
    }
    assert bus_ids == {"86", "a8"}
