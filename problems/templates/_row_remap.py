"""What to do about a pending row remap: one guidance, from NVIDIA's documentation, for
every template that shows one (xid-triage's Xid 63, gpu-memory-errors' Pending: Yes).

The sources, as read for issue 34:

- NVIDIA GPU Memory Error Management, "Error Recovery and Response Flags"
  (docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/error-recovery-and-response-flags.html):
  the row-remapping pending flag "indicates that row-remapping will happen at the next GPU
  reset. Even with the flag set, unaffected applications can continue running without
  affecting accuracy and performance, and new workloads can be launched."
- The same guide, "Response to Uncorrectable Contained ECC Errors": dynamic page offlining
  keeps new allocations off the faulty page, "additional workloads can be launched on this
  GPU without requiring a GPU reset", and "when GPU reset occurs as a part of the regular
  GPU/VM service window, row remapping fixes the memory in hardware".
- NVML, nvmlDeviceGetRemappedRows: "A pending remapping won't affect future work on the
  GPU since error-containment and dynamic page blacklisting will take care of that."
- NVIDIA's Xid catalog (docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html):
  Xid 63, the remap recorded, has IGNORE as its immediate action.

So nothing has to stop: keep the GPU in service and reset it at the next maintenance
window, when its current work ends; draining it now is a named slip, and so is replacing
a GPU whose remap was recorded (replacement is for a remap that failed, Xid 64 or
Remapping Failure Occurred: Yes, per NVIDIA's RMA policy). Data only; registers no
template.
"""

from __future__ import annotations

# The action, in each template's own menu word (both normalise to "resetatwindow").
ACTION_WORDS = ("reset-at-window", "reset at window")

WHY = (
    "NVIDIA's memory error management guide says that while a remap is pending, "
    "unaffected applications keep running and new work can start, because error "
    "containment and dynamic page offlining keep the bad row out of use; the spare row "
    "takes effect at the next GPU reset, which belongs in the regular maintenance window. "
    "So keep the GPU in service and reset it at the next maintenance window, when its "
    "current work ends."
)

# (code, feedback) for the named slips on the action.
RESET_NOW = (
    "pending-remap-is-not-urgent",
    "A pending remap does not endanger running or new work: NVIDIA's memory error "
    "management guide says unaffected applications keep running and new work can start "
    "while it is pending, since containment and page offlining keep the bad row out of "
    "use. Draining now costs the work on the GPU for nothing; the reset can wait for the "
    "next maintenance window.",
)
NEVER_RESET = (
    "pending-needs-reset",
    "Pending means the spare row is not in use until the GPU is reset. Keeping the GPU in "
    "service is right, but the reset has to be scheduled, at the next maintenance window.",
)
REPLACE = (
    "remap-is-not-failure",
    "The remap was recorded, with no failure: the GPU repairs itself with a spare row at "
    "its next reset. Replacement is for a remap that failed.",
)
