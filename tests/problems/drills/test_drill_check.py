"""`problems check` covers drills: the checks pass on the drills as they are, and each
catches what it is for when the evidence is broken (here by a reader that cannot read, a
reader that reads everything alike, and an output with a forged UUID)."""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from hypothesis import given, settings
from hypothesis import strategies as st

from problems.drills import check as drill_check
from problems.drills import registry

pytestmark = pytest.mark.db_independent


def test_every_drill_passes_its_checks():
    checked, failures = drill_check.check_drills(12)
    assert checked == 12 * len(registry.slugs()) and failures == []


def test_the_command_checks_drills_beside_templates():
    out = StringIO()
    call_command(
        "problems", "check", "--variants", "3", "--slug", "weights-memory",
        "--slug", "drill-gpu-off-bus", "--json", stdout=out,
    )  # fmt: skip
    report = json.loads(out.getvalue())
    assert report["ok"] and report["variants"] == 3 and report["drills"] == 3


def test_a_path_whose_evidence_does_not_name_the_fault_fails(monkeypatch):
    monkeypatch.setattr(drill_check, "read", lambda alert, outputs, locations: ("unknown", ""))
    _, failures = drill_check.check_drills(2, ["drill-slurm-drain"])
    assert failures and "the expert path reads as unknown at -, not slurm-drain" in failures[0]
    with pytest.raises(CommandError):
        call_command("problems", "check", "--variants", "1", "--slug", "drill-slurm-drain",
                     stdout=StringIO(), stderr=StringIO())  # fmt: skip


def test_two_fault_kinds_read_alike_are_reported(monkeypatch):
    monkeypatch.setattr(drill_check, "read", lambda a, o, loc: ("gpu-off-bus", "x"))
    _, failures = drill_check.check_drills(1, ["drill-gpu-off-bus", "drill-slurm-drain"])
    assert "drills of kinds ['gpu-off-bus', 'slurm-drain'] all read as gpu-off-bus" in failures


def test_a_malformed_uuid_is_reported(monkeypatch):
    real = drill_check.export

    def forged(drill):
        data = real(drill)
        data["actions"][0]["output"] += "\nGPU-abc-123"
        return data

    monkeypatch.setattr(drill_check, "export", forged)
    _, failures = drill_check.check_drills(1, ["drill-gpu-off-bus"])
    assert any("malformed UUID GPU-abc-123" in f for f in failures)


def test_a_binding_view_naming_a_process_or_gpu_nvidia_smi_lacks_is_reported(monkeypatch):
    real = drill_check.export

    def forged(drill):
        data = real(drill)
        for a in data["actions"]:
            if a["id"].startswith("binding@"):
                a["output"] = a["output"].replace(
                    "pid, gpu_bus_id", "pid, gpu_bus_id\n99999, 00000000:0A:00.0"
                )
        return data

    monkeypatch.setattr(drill_check, "export", forged)
    _, failures = drill_check.check_drills(1, ["drill-numa-misbinding"])
    assert any("PID 99999 is not a process nvidia-smi@" in f for f in failures)
    assert any("bus 0A is not a GPU of nvidia-smi@" in f for f in failures)


@given(
    st.lists(
        st.one_of(
            st.sampled_from(["GPU-", "xGPU-", "_GPU-", "éGPU-", " GPU-", "-GPU-", "GPU-GPU-"]),
            st.text(alphabet="0123456789abcdefABCDEF-gGxé_ \n", max_size=12),
        ),
        max_size=12,
    )
)
@settings(max_examples=300, deadline=None)
def test_the_uuid_scan_finds_what_the_word_bounded_expression_finds(pieces):
    """The scan without a leading \\b (60 times faster on nvidia-smi -q) finds the same
    runs, in order, as r"\\bGPU-[0-9a-fA-F-]+"."""
    text = "".join(pieces)
    assert drill_check._uuids(text) == re.findall(r"\bGPU-[0-9a-fA-F-]+", text)
