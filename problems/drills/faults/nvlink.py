"""A fatal NVLink error on one GPU (Xid 74; Xid 145 on Blackwell) slowing collectives.

NVIDIA's Xid catalog (docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html):
Xid 74 NVLINK_ERROR applies to A100 and H100 with the immediate action
WORKFLOW_NVLINK_ERR; Blackwell reports its links through Xids 144-150, of which 145
(NVLINK_RLW_ERROR, RLW_REMAP Fatal) goes to RESET_GPU, with Xid 154 "GPU Reset Required"
from R565 (problems/templates/incidents/_xid_catalog.py). The link then shows
"<inactive>" in `nvidia-smi nvlink -s`, dcgmi diag reports NVLink errors
(DCGM_FR_NVLINK_ERROR_CRITICAL), and NCCL's rings through that GPU lose bandwidth, so the
node is slow in every collective it joins. The catalog's workflow: read the link's
counters, then reset the GPU (the link retrains) and run the NVLink diagnostics; reseat
or replace only if it recurs. A reboot would also reset it, at the cost of the node.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import replace

from problems.drills.cluster import Cluster, XidRecord
from problems.drills.faults.base import Planted, gpu_location, pick_gpu, throughput_drop
from problems.templates._era import GENERATION
from problems.templates.incidents._xid_log import PLATFORMS

KIND = "nvlink-error"
SLUG = "drill-nvlink-error"
NODES = 8  # a four-node job, so the pair sweep can single a node out


def plant(state: Cluster, rng: random.Random) -> Planted:
    job = state.main_job
    _, host, index = pick_gpu(state, rng)
    link = rng.randrange(PLATFORMS[state.platform][3])
    code = 145 if GENERATION[state.accelerator] == "blackwell" else 74
    at = state.now - datetime.timedelta(minutes=rng.randint(35, 80), seconds=rng.randint(0, 59))
    gpu = replace(state.node(host).gpus[index], nvlink_down=link, fault="nvlink")
    state = state.with_gpu(host, gpu)
    node = state.node(host)
    record = XidRecord(code, index, at, rng.getrandbits(16), link)
    state = state.with_node(replace(node, xids=(*node.xids, record)))
    slow = round(job.step_s * rng.uniform(1.35, 1.6), 2)
    state, page = throughput_drop(state, job, rng, slow)
    return Planted(
        state=state,
        alert=page,
        fault=KIND,
        location=gpu_location(host, index),
        remedy="reset-gpu",
        expert_path=("nccl-pairs", f"dmesg@{host}"),
        handling=frozenset({f"drain@{host}", f"reset-gpu@{host}:{index}", f"reboot@{host}"}),
    )
