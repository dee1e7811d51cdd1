"""xid-triage: read one fault out of an 8-GPU node's kernel log, find the GPU that raised
it, say what its first Xid reported and pick the first thing to do.

Realism: the log is `dmesg -T` filtered for the NVIDIA driver, as engineers paste it
(_xid_log.py says where each line comes from): the module-load line of the era's driver
and the device-enable lines at boot (one per GPU, so every bus appears), then days later
the faulty GPU's "GPU at PCI / Board Serial Number" pair and its Xid line(s) in the
driver's own wording; an uncorrectable HBM error arrives as the sequence 48, 63, 95 that
error containment produces, never a bare 48; and when the fault kills the node-wide
training job, each peer GPU logs Xid 45 as its rank is cleaned up. The Xid line names
the GPU by PCI bus in lower case (`PCI:0000:b9:00`); the second block is `nvidia-smi
--query-gpu=index,name,pci.bus_id` recorded at bring-up, with the 8-digit domain and
upper case (`00000000:B9:00.0`), so the learner has to match the bus, not count lines.
A100, H100 and B200 boards are drawn, and each draws only the codes NVIDIA's Xid
catalog marks as applying to its generation (_xid_catalog.APPLIES): row remapping
(63/64) and error containment (94/95) on all three; an NVLink fault is Xid 74 on A100
and H100 but Xid 145 (NVLINK_RLW_ERROR, one of Blackwell's 144-150) on B200, where the
catalog marks 74 as not applying. From driver R565 on, the faults whose bucket names a
recovery are followed by Xid 154 (GPU recovery action changed), which every B200 log
shows (the fleet's Blackwell nodes run R570 or later).

Meanings and first actions follow NVIDIA's Xid catalog (its immediate-action column),
GPU debug guidelines and memory error management notes: 13 and 31 are almost always the
application's own bug, and the catalog's first action is to restart the application
(the GPU needs nothing), with debugging it (compute-sanitizer) the follow-up if it
faults again; 94 was contained to the process that touched the bad memory (restart
that job; the reset can wait); 63 records a spare row that activates at
the next reset, and containment keeps the bad row from new work meanwhile (reset when
the GPU's current work ends); 48 followed by 63 and an uncontained 95, and 95 alone,
need the work stopped and the GPU reset (which also activates the remap); 64 means the
remap itself failed (replace the GPU); 74 is an NVLink fault (check the link first); 79
means the GPU no longer answers on PCIe, so a GPU reset cannot reach it (drain and
power-cycle the node).

Discrimination: on the event part, 63 and 64 swapped (remap-recorded-vs-failed), 94
and 95 swapped (contained-vs-uncontained), an MMU page fault read as a memory hardware
error (page-fault-as-ecc). On the action part: an application fault blamed on the GPU
(app-fault-blamed-on-gpu) or debugged before the restart the catalog calls for
(debug-before-restart); a DBE whose 95 says uncontained handled as if contained
(dbe-treated-as-contained); a pending remap treated as an emergency
(pending-remap-is-not-urgent) or an RMA (remap-is-not-failure, also for a single DBE); a
failed remap "fixed" by a reset (reset-after-failed-remap); a contained error handled as
uncontained (contained-treated-as-uncontained) or as the job's own bug
(contained-treated-as-app-bug), and an uncontained one as contained
(uncontained-restart-only); a reset tried on a GPU that fell off the bus
(reset-unreachable-gpu); an NVLink fault sent straight to RMA (nvlink-rma-first). On the
GPU index, counting rows from one (counted-from-one) and a peer that only logged the Xid
45 cleanup (peer-cleanup-blamed).
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field, model_validator

from hardware_db import catalog
from problems.engine.registry import register
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates.incidents._family import choice_part, fenced, menu
from problems.templates.incidents._xid_catalog import (
    ACTIONS,
    EVENTS,
    EXPLAIN,
    MEANING,
    SLIPS,
    applies,
)
from problems.templates.incidents._xid_log import PLATFORMS, QUIET, generation
from problems.templates.incidents._xid_log import bus_table as _bus_table
from problems.templates.incidents._xid_log import kernel_log as _kernel_log

Platform = Literal["dgx-a100", "hgx-h100-a", "hgx-h100-b", "hgx-b200"]
XidCode = Literal[13, 31, 48, 63, 64, 74, 79, 94, 95, 145]

XIDS: tuple[int, ...] = (13, 31, 48, 63, 64, 74, 79, 94, 95, 145)


def xids_for(platform: str) -> tuple[int, ...]:
    """The codes drawn for a platform: those the catalog applies to its generation."""
    return tuple(x for x in XIDS if applies(x, generation(platform)))


class XidParams(Params):
    platform: Platform
    xid: XidCode
    gpu: int = Field(ge=0, le=7)
    log_seed: int = Field(ge=0, le=2**31 - 1)

    @model_validator(mode="after")
    def _catalog_applies(self):
        if self.xid not in xids_for(self.platform):
            raise ValueError(
                f"NVIDIA's Xid catalog does not apply Xid {self.xid} to {self.platform}'s GPUs"
            )
        return self


def kernel_log(p: XidParams) -> str:
    return _kernel_log(p.platform, p.xid, p.gpu, p.log_seed)


def bus_table(p: XidParams) -> str:
    return _bus_table(p.platform)


def _era_note(p: XidParams) -> str:
    note = ""
    if generation(p.platform) == "blackwell":
        note += " On Blackwell the link code is 145 (one of 144-150) rather than 74."
    if "): 154, " in kernel_log(p):
        note += (
            " The Xid 154 line (drivers from R565 on) states the recovery the driver now "
            "requires for the fault before it (GPU Reset Required, Node Reboot Required): "
            "a summary on the same GPU, not a fault of its own."
        )
    return note


@register
class XidTriage(Template):
    slug = "xid-triage"
    title = "Triage an Xid from a node's kernel log"
    family = "incidents"
    lessons = ("troubleshooting-gpu-clusters", "from-symptoms-to-device-evidence")
    skills = ("xid-errors", "incident-triage", "gpu-telemetry")
    difficulty = 3
    version = 3  # issue 34: B200 boards with Blackwell-era Xids (145, 154), per the catalog
    Params = XidParams

    def generate(self, rng: random.Random) -> XidParams:
        platform = rng.choice(tuple(PLATFORMS))
        return XidParams(
            platform=platform,
            xid=rng.choice(xids_for(platform)),
            gpu=rng.randint(0, 7),
            log_seed=rng.randint(0, 2**31 - 1),
        )

    def solve(self, p: XidParams) -> dict[str, Part]:
        event, action = MEANING[p.xid]
        return {
            "gpu": Part("gpu", p.gpu, kind=Kind.INTEGER, tolerance=Exact(), label="GPU index"),
            "event": choice_part("event", event, tuple(EVENTS), "What happened"),
            "action": choice_part("action", action, tuple(ACTIONS), "First action"),
        }

    def statement(self, p: XidParams) -> str:
        acc = catalog.accelerator(PLATFORMS[p.platform][0])
        if p.xid == 63:  # a remap recorded from correctable errors kills nothing
            why = "A routine health sweep flagged an 8-GPU server"
        else:
            why = "A training job died overnight on an 8-GPU server"
        return (
            f"{why} with {acc.prose_name} GPUs. The on-call engineer pulled the "
            "NVIDIA driver's kernel messages:\n\n"
            + fenced(kernel_log(p))
            + "\n\nand the node's GPU inventory, recorded by `nvidia-smi` at bring-up:\n\n"
            + fenced(bus_table(p))
            + "\n\n1. Which GPU (its `nvidia-smi` index) raised the error?\n"
            "2. What did the faulty GPU's first Xid report? Answer with one of these words:\n\n"
            + menu(EVENTS)
            + "\n\n3. What should the on-call engineer do first? One of:\n\n"
            + menu(ACTIONS)
        )

    def solution(self, p: XidParams) -> str:
        bus = PLATFORMS[p.platform][2][p.gpu]
        event, action = MEANING[p.xid]
        peers = (
            ""
            if p.xid in QUIET
            else " The Xid 45 lines a second later, one on every other GPU, are the driver "
            "cleaning up the job's other ranks after the launcher killed them (preemptive "
            "channel removal): consequences of the fault, not faults of their own."
        )
        return (
            f"Skip the boot lines: the burst starts with `Xid (PCI:0000:{bus:02x}:00): "
            f"{p.xid}` on one GPU.{peers} The part in brackets is the GPU's PCI address "
            "(domain, bus, device); the number after the colon is the Xid code. In the "
            f"inventory the same GPU is `00000000:{bus:02X}:00.0` (nvidia-smi writes an "
            "8-digit domain, upper-case hex and the function), which is the row with index "
            f"**{p.gpu}**. Indices start at 0, so read the index column rather than counting "
            "rows.\n\n"
            f"Xid {p.xid}: {EXPLAIN[p.xid]} So the event is **{event}** and the first "
            f"action is **{action}**.\n\n"
            "How the codes in this family differ: 13 and 31 come from the program's own "
            "accesses; 48 is the raw double-bit error, 63 records the row that will replace "
            "the bad one at the next reset and 64 says that replacement failed; 94 was "
            "contained to one process, 95 was not; 74 is a link, 79 the whole device gone "
            f"from PCIe; 45 is the cleanup of a killed process.{_era_note(p)}"
        )

    def misconceptions(self, p: XidParams) -> list[Misconception]:
        out = []
        if p.gpu < 7:
            out.append(
                Misconception(
                    "counted-from-one",
                    "gpu",
                    p.gpu + 1,
                    "That counts the inventory rows from one. nvidia-smi numbers GPUs from 0: "
                    "find the row whose bus id matches the Xid's and read its index.",
                )
            )
        if p.xid not in QUIET:
            for peer in range(8):
                if peer not in (p.gpu, p.gpu + 1):
                    out.append(
                        Misconception(
                            "peer-cleanup-blamed",
                            "gpu",
                            peer,
                            f"GPU {peer} only logged Xid 45, the driver cleaning up a rank "
                            "the launcher killed after the fault: find the GPU whose Xid "
                            "came first and is not a 45.",
                        )
                    )
        for part, value, code, feedback in SLIPS.get(p.xid, ()):
            out.append(Misconception(code, part, value, feedback))
        return out
