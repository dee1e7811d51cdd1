"""What every fault module returns, and the vocabularies the learner chooses from.

A fault module has KIND (a key of FAULT_KINDS) and `plant(state, rng) -> Planted`: the
state with the fault and its symptoms in it, the alert the pager sends, the answer
(fault kind, location, first remedy), the expert path (the fewest looks that show the
fault) and the disruptive actions that are part of handling it (never counted as
unneeded). FAULT_KINDS lists every kind issue 39 names (since numa-misbinding, each has a
module), so the choice list is the same whichever kinds are implemented.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass, replace

from problems.drills.cluster import Cluster

FAULT_KINDS: dict[str, str] = {
    "gpu-off-bus": "GPU fallen off the bus",
    "uncorrectable-ecc": "Uncorrectable ECC error with a pending row remap",
    "nvlink-error": "NVLink errors on one GPU",
    "thermal-throttle": "Thermally throttled GPU",
    "ib-link-degraded": "InfiniBand port at a lower rate or flapping",
    "numa-misbinding": "NUMA / CPU-affinity misbinding",
    "kv-cache-exhaustion": "KV-cache exhaustion and preemptions",
    "slurm-drain": "Node drained in Slurm",
    "device-plugin": "Kubernetes device plugin not advertising GPUs",
    "volume-full": "Checkpoint volume full",
    "rack-power-cap": "Rack power cap throttling GPUs",
}

REMEDIES: dict[str, str] = {
    "reboot-node": "Drain the node and reboot it",
    "reset-gpu": "Drain the node and reset the GPU (nvidia-smi -r)",
    "reset-gpu-at-window": "Keep the GPU in service; reset it at the next maintenance window",
    "replace-gpu": "Drain the node and RMA the GPU",
    "drain-fix-cooling": "Drain the node and have its cooling (fans, airflow) checked",
    "drain-fix-link": "Drain the node and reseat or replace the port's cable or transceiver",
    "resume-node": "Resume the node in Slurm",
    "free-space": "Free space on the volume (prune old checkpoints) or grow it, then requeue",
    "requeue-job": "Requeue the job",
    "add-replicas": "Add replicas (or cap max-num-seqs) so each server's KV cache holds its batch",
    "lift-power-cap": "Have the rack's power cap (BMC / PDU policy) lifted or raised",
    "fix-binding": "Requeue the job with its CPU / NUMA binding corrected (srun --cpu-bind "
    "or numactl), each rank on the socket of its GPU and HCA",
    "no-action": "No action: the cluster is healthy",
}


@dataclass(frozen=True)
class Planted:
    state: Cluster
    alert: str
    fault: str
    location: str
    remedy: str
    expert_path: tuple[str, ...]
    handling: frozenset[str] = frozenset()  # disruptive actions that belong to the fix


def gpu_location(host: str, index: int) -> str:
    return f"{host}:gpu{index}"


def hca_location(host: str, hca: str) -> str:
    return f"{host}:{hca}"


def locations(state: Cluster) -> dict[str, str]:
    """{location id: label}: every node, every GPU and HCA of the job's nodes."""
    out: dict[str, str] = {n.hostname: n.hostname for n in state.nodes}
    for m in state.nodes[0].mounts:
        if m.fstype.startswith("nfs"):
            out[f"volume:{m.target}"] = f"shared volume {m.target} ({m.source})"
    racks: dict[str, list[str]] = {}
    for n in state.nodes:
        racks.setdefault(n.rack, []).append(n.hostname)
    for rack, hosts in racks.items():
        out[f"rack:{rack}"] = f"rack {rack} ({', '.join(hosts)})"
    if state.scheduler == "kubernetes":
        out.update({f"pod:{p.name}": f"pod {p.name}" for p in state.pods})
        return out
    for host in state.main_job.nodes:
        for g in state.node(host).gpus:
            out[gpu_location(host, g.index)] = f"{host} GPU {g.index} ({g.bus_id})"
        for h in state.node(host).hcas:
            out[hca_location(host, h.name)] = f"{host} {h.name} port 1"
    return out


def alert(name: str, labels: dict[str, object], summary: str, since) -> str:
    """An Alertmanager-style page: [FIRING:1] name (labels), summary, when it started."""
    text = " ".join(f"{k}={v}" for k, v in labels.items())
    return f"[FIRING:1] {name} ({text})\n{summary}\nStarted: {since:%Y-%m-%d %H:%M:%S} UTC"


def pick_gpu(state: Cluster, rng: random.Random) -> tuple[int, str, int]:
    """(node's position in the job, host, GPU index) for the fault: a GPU of the job's,
    never the one carrying the healthy noise (its correctable errors must stay noise)."""
    job = state.main_job
    while True:
        k, index = rng.randrange(len(job.nodes)), rng.randrange(8)
        if not state.node(job.nodes[k]).gpus[index].ecc_corr:
            return k, job.nodes[k], index


def throughput_drop(state: Cluster, job, rng: random.Random, slow: float) -> tuple[Cluster, str]:
    """A synchronous job slowed to `slow` seconds a step: its log's last steps at that
    pace, and the page its throughput alert sends (the state with the log, the alert).
    One place for the faults that show as a slow training job."""
    step = job.progress_step
    log = tuple(
        f"[rank0] step {step + 50 * i:>7} | loss {1.7 + i / 50:.4f} | {slow:.2f} s/step"
        for i in range(3)
    )
    state = state.with_job(replace(job, log=log))
    drop = round(100 * (1 - job.step_s / slow))
    page = alert(
        "TrainingThroughputDrop",
        {"job_id": job.job_id, "name": job.name, "user": job.user, "severity": "page"},
        f"Job {job.job_id} tokens/s is {drop}% below its 24h median for 30 minutes.",
        state.now - datetime.timedelta(minutes=rng.randint(3, 12)),
    )
    return state, page
