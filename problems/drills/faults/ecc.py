"""An uncorrectable HBM error with a pending row remap: the Xid 48 -> 63 -> 95 sequence.

NVIDIA GPU Memory Error Management (docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/),
"User Visible Statistics" and "Row Remapping": Xid 48 is the uncorrectable (DBE) error,
Xid 63 records a spare row for its address ("reset gpu to activate"), Xid 95 says the
error was not contained to the process that touched it; nvidia-smi -q then shows DRAM
Uncorrectable 1 and Remapped Rows Pending: Yes. The Xid catalog
(docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html) gives 95 the bucket
RESET_GPU, and R565+ logs Xid 154 "GPU Reset Required": the job on the node is lost, so
take the node's work off it and reset the GPU now, which also activates the remap; no
replacement, the remap did not fail (problems/templates/_row_remap.py). The choice
"reset at the next window" is right for a remap found by a sweep with nothing lost, not
after an uncontained error.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import replace

from problems.drills.cluster import Cluster, XidRecord
from problems.drills.faults.base import Planted, alert, gpu_location, pick_gpu

KIND = "uncorrectable-ecc"
SLUG = "drill-uncorrectable-ecc"


def plant(state: Cluster, rng: random.Random) -> Planted:
    job = state.main_job
    rank_node, host, index = pick_gpu(state, rng)
    at = state.now - datetime.timedelta(minutes=rng.randint(6, 25), seconds=rng.randint(0, 59))
    gpu = state.node(host).gpus[index]
    gpu = replace(gpu, ecc_unc=1, remap_pending=True, fault="ecc", util=0)
    state = state.with_gpu(host, gpu)
    node = state.node(host)
    state = state.with_node(replace(node, xids=(XidRecord(48, index, at, rng.getrandbits(16)),)))
    rank = rank_node * 8 + index
    log = (
        f"[rank{rank}]: RuntimeError: CUDA error: uncorrectable ECC error encountered",
        f"srun: error: {host}: task {rank}: Exited with exit code 1",
    )
    state = state.with_job(replace(job, log=log))
    page = alert(
        "GpuEccDoubleBitError",
        {"Hostname": host, "severity": "page"},
        f"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL rose on {host} in the last 5 minutes.",
        at + datetime.timedelta(minutes=1),
    )
    return Planted(
        state=state,
        alert=page,
        fault=KIND,
        location=gpu_location(host, index),
        remedy="reset-gpu",
        expert_path=(f"dmesg@{host}", f"nvidia-smi@{host}", f"smi-q@{host}:{index}"),
        handling=frozenset({f"drain@{host}", f"reset-gpu@{host}:{index}", f"reboot@{host}"}),
    )
