"""One guidance for a pending row remap (issue 34), from NVIDIA's documentation: the
GPU Memory Error Management guide says that with the row-remapping pending flag set,
"unaffected applications can continue running ... and new workloads can be launched",
and the remap takes effect at the next GPU reset, in the regular service window; the Xid
catalog's immediate action for Xid 63 is IGNORE. So: keep the GPU in service and reset
it at the next window. gpu-memory-errors used to key "drain and reset now", the very
answer xid-triage names as a slip."""

from __future__ import annotations

from problems.engine.grading import normalise_choice
from problems.engine.variants import Variant

XID_63 = {"platform": "dgx-a100", "xid": 63, "gpu": 3, "log_seed": 7}
MEM_PENDING = {"accelerator": "h100-sxm", "state": "pending", "gpu": 6, "sample": 4242}


def _variants() -> tuple[Variant, Variant]:
    return (
        Variant.from_params("xid-triage", XID_63),
        Variant.from_params("gpu-memory-errors", MEM_PENDING),
    )


def test_both_templates_key_the_same_action_for_a_pending_remap():
    xid, mem = _variants()
    keys = {normalise_choice(v.parts["action"].value) for v in (xid, mem)}
    assert keys == {normalise_choice("reset at window")}


def test_both_name_reset_now_as_the_same_slip_with_the_same_words():
    xid, mem = _variants()
    now_xid = xid.grade("action", "reset-gpu")
    now_mem = mem.grade("action", "reset GPU")
    assert now_xid.misconception == now_mem.misconception == "pending-remap-is-not-urgent"
    assert now_xid.feedback == now_mem.feedback
    replace_xid, replace_mem = xid.grade("action", "rma-gpu"), mem.grade("action", "replace GPU")
    assert replace_xid.misconception == replace_mem.misconception == "remap-is-not-failure"


def test_both_solutions_give_nvidias_reason():
    for v in _variants():
        assert "new work" in v.solution_markdown()
        assert "maintenance window" in v.solution_markdown()


def test_gpu_memory_errors_offers_the_reset_at_window_choice():
    _, mem = _variants()
    assert "**reset at window**" in mem.statement_markdown()
    assert mem.grade("action", "keep running").misconception == "pending-needs-reset"
