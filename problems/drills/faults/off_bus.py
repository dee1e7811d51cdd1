"""A GPU fallen off the bus (Xid 79, GPU_HAS_FALLEN_OFF_THE_BUS).

NVIDIA's Xid catalog (docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html):
the GPU stopped answering on PCIe; the immediate action is RESTART_BM, a node reboot,
and from R565 the driver follows it with Xid 154 "Node Reboot Required". NVIDIA's GPU
debug guidelines (docs.nvidia.com/deploy/gpu-debug-guidelines) treat a GPU that does
not come back after the reboot as hardware (reseat, then RMA). While it is off the bus
nvidia-smi cannot open it ("Unable to determine the device handle for GPU ...:
Unknown Error"), and the training rank on it fails with a CUDA error while its peers
hang in the collective. Half of the plants are transient (a reboot brings the GPU back),
half hardware (it stays gone and Slurm drains the node for the missing GRES).
"""

from __future__ import annotations

import datetime
import random
from dataclasses import replace

from problems.drills.cluster import Cluster, XidRecord
from problems.drills.faults.base import Planted, alert, gpu_location, pick_gpu

KIND = "gpu-off-bus"
SLUG = "drill-gpu-off-bus"


def plant(state: Cluster, rng: random.Random) -> Planted:
    job = state.main_job
    rank_node, host, index = pick_gpu(state, rng)
    at = state.now - datetime.timedelta(minutes=rng.randint(18, 40), seconds=rng.randint(0, 59))
    node = state.node(host)
    gpu = node.gpus[index]
    fault = rng.choice(("off-bus-transient", "off-bus-hardware"))
    state = state.with_gpu(host, replace(gpu, on_bus=False, fault=fault, util=0))
    node = state.node(host)
    state = state.with_node(replace(node, xids=(XidRecord(79, index, at, rng.getrandbits(16)),)))
    rank = rank_node * 8 + index
    log = (
        f"[rank{rank}]: RuntimeError: CUDA error: unknown error",
        f"srun: error: {host}: task {rank}: Exited with exit code 1",
    )
    state = state.with_job(replace(job, log=log))
    page = alert(
        "TrainingJobStalled",
        {"job_id": job.job_id, "name": job.name, "user": job.user, "severity": "page"},
        f"No training step logged by job {job.job_id} for 15 minutes.",
        at + datetime.timedelta(minutes=15),
    )
    return Planted(
        state=state,
        alert=page,
        fault=KIND,
        location=gpu_location(host, index),
        remedy="reboot-node",
        expert_path=(f"job-log@{job.job_id}", f"dmesg@{host}", f"nvidia-smi@{host}"),
        handling=frozenset({f"drain@{host}", f"reboot@{host}"}),
    )
