"""The Xid codes xid-triage draws, in the words of NVIDIA's Xid catalog and GPU debug
guidelines (rewritten): what each means, the first action, the explanation a solution
gives and the named slips for each code. Data only; registers no template.

First actions follow the catalog's "Resolution Bucket (Immediate Action)" column
(docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html; the same buckets ship in
NVIDIA's NVSentinel as xiderrorsmapping.csv): 13 and 31 RESTART_APP, with the
application debugging (WORKFLOW_XID_13/31, CHECK_APP/CUDA) as the investigatory step
that follows; 94 RESTART_APP; 95 RESET_GPU; 79 RESTART_BM; 74 WORKFLOW_NVLINK_ERR.

The per-part columns come from the same catalog page (read 2026-12-04; its columns
"Applies to A100 / H100 / B100 / GB200", the two resolution buckets, "Xid 154 linkage"):
APPLIES holds its YES/NO for each code drawn here, by generation (A100 Ampere, H100
Hopper, B100 and GB200 Blackwell; where B100 and GB200 agree, as they do for every code
here). Xid 74 (NVLINK_ERROR) is marked NO for B100 and GB200; Blackwell's fifth-
generation NVLink reports through Xids 144-150 (NVLINK_SAW_ERROR ... NVLINK_MSE_ERROR),
marked NO for A100 and H100, with the bucket WORKFLOW_NVLINK5_ERR. xid-triage draws 145
(NVLINK_RLW_ERROR) for a Blackwell link fault, with the subcode RLW_REMAP and error
status 0x40 that the catalog's 144-150 decode table lists as fatal, RESET_GPU. Xid 154
(GPU_RECOVERY_ACTION_CHANGED, all four parts) follows other Xids from driver R565 on
(the linkage column of 48, 63, 64, 74, 79, 94, 95 and 144-150) and states the recovery
the driver now requires, one of None, Drain P2P, Drain and Reset, GPU Reset Required,
Node Reboot Required; the number before each is NVML's nvmlDeviceGpuRecoveryAction_t
(1 GPU reset, 2 node reboot). RECOVERY_154 gives it only where the code's bucket says
which (RESET_GPU, RESTART_BM, and the 95 that ends a 48's sequence)."""

from __future__ import annotations

from problems.templates import _row_remap

EVENTS: dict[str, str] = {
    "graphics-exception": "a graphics/compute engine exception raised by the running kernel",
    "mmu-fault": "a GPU memory-management (page) fault: an access to an unmapped address",
    "double-bit-ecc": "an uncorrectable (double-bit) ECC error in GPU memory",
    "row-remap-pending": "a bad memory row was recorded for remapping; it takes effect at reset",
    "row-remap-failed": "the GPU could not remap a bad memory row",
    "nvlink-error": "a fatal error on one of the GPU's NVLinks",
    "off-the-bus": "the GPU stopped answering on PCIe",
    "contained-ecc": "an uncorrectable error the GPU contained to the process that hit it",
    "uncontained-ecc": "an uncorrectable error the GPU could not contain to one process",
}
# The catalog's "Applies to" columns for the codes the log prints, by generation.
_ALL = frozenset({"ampere", "hopper", "blackwell"})
APPLIES: dict[int, frozenset[str]] = {
    **{code: _ALL for code in (13, 31, 45, 48, 63, 64, 79, 94, 95, 154)},
    74: frozenset({"ampere", "hopper"}),
    145: frozenset({"blackwell"}),
}
# "Resolution Bucket (Immediate Action)" for each code drawn, and the first action that
# bucket is in this template's words (WORKFLOW_XID_48: the sequence's uncontained 95 says
# reset; IGNORE: the 63 needs nothing now, its reset waits for a window).
BUCKET: dict[int, str] = {
    13: "RESTART_APP",
    31: "RESTART_APP",
    48: "WORKFLOW_XID_48",
    63: "IGNORE",
    64: "RESET_GPU",
    74: "WORKFLOW_NVLINK_ERR",
    79: "RESTART_BM",
    94: "RESTART_APP",
    95: "RESET_GPU",
    145: "WORKFLOW_NVLINK5_ERR",
}
BUCKET_ACTION: dict[str, str] = {
    "RESTART_APP": "restart-app",
    "WORKFLOW_XID_48": "reset-gpu",
    "IGNORE": "reset-at-window",
    "RESET_GPU": "reset-gpu",
    "WORKFLOW_NVLINK_ERR": "check-nvlink",
    "WORKFLOW_NVLINK5_ERR": "check-nvlink",
    "RESTART_BM": "reboot-node",
}
# Xid 154's "to" value after each drawn code, where the catalog's bucket names it.
RECOVERY_154: dict[int, tuple[int, str]] = {
    48: (1, "GPU Reset Required"),
    95: (1, "GPU Reset Required"),
    145: (1, "GPU Reset Required"),
    79: (2, "Node Reboot Required"),
}
LINKED_154_FROM_BRANCH = 565  # the catalog's linkage column: "GPU driver R565"


def applies(code: int, generation: str) -> bool:
    """Whether NVIDIA's catalog marks this Xid as applying to parts of that generation."""
    return generation in APPLIES[code]


ACTIONS: dict[str, str] = {
    "debug-app": "hold the application back and hand it to its owner to debug "
    "(compute-sanitizer finds a bad access) before it runs again; the GPU needs nothing",
    "restart-app": "restart the application that was killed; the GPU needs no reset and "
    "other work on it carries on",
    "reset-at-window": "nothing has to stop now: keep the GPU in service and reset it at "
    "the next maintenance window, when its current work ends",
    "reset-gpu": "stop all work on that GPU now, reset it (`nvidia-smi -r`) and run a short "
    "diagnostic before it takes work again",
    "check-nvlink": "read the NVLink error counters and the fabric manager log, then reset "
    "and run the NVLink diagnostics (reseat if the link keeps failing)",
    "reboot-node": "drain the whole node and power-cycle it, then run diagnostics before it "
    "rejoins",
    "rma-gpu": "drain and take the GPU out of service for replacement (RMA)",
}
MEANING: dict[int, tuple[str, str]] = {
    13: ("graphics-exception", "restart-app"),
    31: ("mmu-fault", "restart-app"),
    48: ("double-bit-ecc", "reset-gpu"),
    63: ("row-remap-pending", "reset-at-window"),
    64: ("row-remap-failed", "rma-gpu"),
    74: ("nvlink-error", "check-nvlink"),
    145: ("nvlink-error", "check-nvlink"),
    79: ("off-the-bus", "reboot-node"),
    94: ("contained-ecc", "restart-app"),
    95: ("uncontained-ecc", "reset-gpu"),
}

_DEBUG_NEXT = (
    "NVIDIA's Xid catalog gives restarting the application as the immediate action: the "
    "GPU needs no reset, and a rare transient (or a driver or hardware fault showing up "
    "this way) does not recur. The second step, if the restarted job faults the same way, "
    "is to debug the application (compute-sanitizer's memcheck finds the faulting access; "
    "cuda-gdb stops on it)."
)
EXPLAIN: dict[int, str] = {
    13: "a graphics engine exception. The SM warp exception names the cause, an out-of-"
    "range or misaligned address in the kernel that was running: almost always a bug in "
    "the application or a library it calls. " + _DEBUG_NEXT,
    31: "a GPU memory page fault (MMU fault): the process touched a virtual address that "
    "is not mapped, an illegal address from the program's side, not a memory cell going "
    "bad. " + _DEBUG_NEXT,
    48: "an uncorrectable double-bit ECC error in the framebuffer (HBM). The lines that "
    "follow it tell the rest: Xid 63 records a spare row for the bad address (it takes "
    "effect at the next reset), and Xid 95 says the error could not be contained to the "
    "process that touched it (Uncontained, RST: Yes). Any process on that GPU may have "
    "read bad data: stop its work and reset it, which also activates the remap. One DBE "
    "whose remap was recorded is not yet a reason to replace the board.",
    63: "the row remapper recorded a spare row to replace a failing one; the message says "
    "it activates at the next reset. This is the repair working, not a failure, and "
    "NVIDIA's Xid catalog lists no immediate action for it. " + _row_remap.WHY,
    64: "the row remapper could not record a replacement (its table or the bank's spare "
    "rows are used up). The GPU can no longer protect itself from that row, and a reset "
    "cannot help: drain it and replace the GPU.",
    74: "a fatal NVLink error on one link. Check the link before anything else: its error "
    "counters, the fabric manager log, then a reset and the NVLink diagnostics; reseat or "
    "replace only if it keeps failing.",
    145: "a fatal error on one of the GPU's fifth-generation NVLinks (RLW_REMAP, Fatal): "
    "Blackwell's link Xids are 144-150, where Hopper and Ampere log 74. NVIDIA's catalog "
    "sends all of them to its NVLink workflow: read the link's error counters and the "
    "fabric manager log, then reset (the Xid 154 after it says GPU Reset Required) and "
    "run the NVLink diagnostics; reseat or replace only if it keeps failing.",
    79: "the GPU fell off the bus: the driver can no longer reach it over PCIe. "
    "`nvidia-smi -r` talks to the GPU over that same bus, so a GPU reset cannot work; "
    "drain the node and power-cycle it, then run diagnostics (and RMA if it happens again).",
    94: "a contained uncorrectable error: the GPU confined the damage to the process that "
    "touched the memory (RST: No), which was killed. Restart that job; other work on the "
    "GPU is unaffected, and the reset that activates the row remap can wait for a "
    "convenient window.",
    95: "an uncontained uncorrectable error (RST: Yes): the GPU could not limit the "
    "damage to one process, so nothing running on it can be trusted. Drain the GPU and "
    "reset it before it takes work again.",
}

_APP_HW = (
    "Xid 13 and 31 come from the application's own memory accesses; nothing points at "
    "the hardware, and a reset or a new GPU would crash the same way."
)
_DEBUG_FIRST = (
    "Debugging is the second step. NVIDIA's Xid catalog gives restarting the application "
    "as the immediate action for Xid 13 and 31: the GPU is fine, the job is down, and "
    "compute-sanitizer comes in if the restarted job faults the same way."
)
SLIPS: dict[int, tuple[tuple[str, str, str, str], ...]] = {
    13: (
        ("action", "reset-gpu", "app-fault-blamed-on-gpu", _APP_HW),
        ("action", "rma-gpu", "app-fault-blamed-on-gpu", _APP_HW),
        ("action", "debug-app", "debug-before-restart", _DEBUG_FIRST),
    ),
    31: (
        ("action", "reset-gpu", "app-fault-blamed-on-gpu", _APP_HW),
        ("action", "rma-gpu", "app-fault-blamed-on-gpu", _APP_HW),
        ("action", "debug-app", "debug-before-restart", _DEBUG_FIRST),
        (
            "event",
            "double-bit-ecc",
            "page-fault-as-ecc",
            "An MMU fault is an access to an "
            "address with no mapping (a program error), not a memory cell returning bad data.",
        ),
    ),
    48: (
        (
            "action",
            "restart-app",
            "dbe-treated-as-contained",
            "Only a contained error (Xid 94) says the damage stayed in one process. The 95 "
            "after this DBE says Uncontained (RST: Yes): every process on the GPU is exposed, "
            "so stop the work and reset, which also activates the remap the 63 recorded.",
        ),
        (
            "action",
            "reset-at-window",
            "dbe-treated-as-contained",
            "Waiting is safe for a pending remap or a contained error; here the 95 says the "
            "DBE was not contained, so work on the GPU may already have read bad data.",
        ),
        (
            "action",
            "rma-gpu",
            "remap-is-not-failure",
            "The 63 after the DBE says the spare row was "
            "recorded: a reset applies it. Replace the GPU when remapping fails (Xid 64) or "
            "the errors recur.",
        ),
    ),
    63: (
        (
            "event",
            "row-remap-failed",
            "remap-recorded-vs-failed",
            "Xid 63 says a new row was "
            "marked for remapping: the repair was recorded. A failed remap is Xid 64.",
        ),
        ("action", "reset-gpu", *_row_remap.RESET_NOW),
        ("action", "rma-gpu", *_row_remap.REPLACE),
    ),
    64: (
        (
            "event",
            "row-remap-pending",
            "remap-recorded-vs-failed",
            "Xid 64 is the remapper's "
            "error: no spare row could be recorded. A pending remap is Xid 63.",
        ),
        (
            "action",
            "reset-gpu",
            "reset-after-failed-remap",
            "A reset activates remaps that "
            "were recorded; this one could not be recorded, so the bad row stays.",
        ),
    ),
    74: (
        (
            "action",
            "rma-gpu",
            "nvlink-rma-first",
            "Many NVLink faults clear after a reset or "
            "a reseat; read the link counters and run diagnostics before replacing the GPU.",
        ),
    ),
    79: (
        (
            "action",
            "reset-gpu",
            "reset-unreachable-gpu",
            "nvidia-smi -r reaches the GPU over "
            "PCIe, which is exactly what it fell off; only a node power cycle brings it back.",
        ),
    ),
    94: (
        (
            "event",
            "uncontained-ecc",
            "contained-vs-uncontained",
            "The line says Contained "
            "(RST: No): the error was confined to one process. Uncontained is Xid 95.",
        ),
        (
            "action",
            "reset-gpu",
            "contained-treated-as-uncontained",
            "A contained error only "
            "killed the process that touched the memory; the rest of the GPU's work goes on "
            "and the reset can wait for a maintenance window.",
        ),
        (
            "action",
            "debug-app",
            "contained-treated-as-app-bug",
            "The job was killed by a "
            "memory error, not by its own code; there is nothing to debug, only to restart.",
        ),
    ),
    95: (
        (
            "event",
            "contained-ecc",
            "contained-vs-uncontained",
            "The line says Uncontained "
            "(RST: Yes): the GPU could not confine the error. Contained is Xid 94.",
        ),
        (
            "action",
            "restart-app",
            "uncontained-restart-only",
            "Uncontained means every "
            "process on the GPU may have seen bad data; drain it and reset before reuse.",
        ),
    ),
}
SLIPS[145] = SLIPS[74]  # the same NVLink workflow; Blackwell's code for the same fault
