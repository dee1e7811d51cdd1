"""A full checkpoint volume: the job stalls at its checkpoint with ENOSPC.

The job saves checkpoints to the shared NFS volume /checkpoints. When it fills, the
checkpoint write fails: torch.save raises PytorchStreamWriter's "file write failed" and,
closing the archive, "unexpected pos" (problems/drills/tools/df.py, which cites the
public reports), and the rank that writes (rank 0) exits; `df -h` shows the volume at
100% with nothing available (GNU coreutils df: Use% is used / (used + available),
rounded up). Every node shows the same volume, so the location is the volume, not a
node. The fix is space (prune old checkpoints or grow the volume), then requeue; no
reboot, reset or drain touches it.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import replace

from problems.drills.cluster import Cluster
from problems.drills.faults.base import Planted, alert
from problems.drills.tools.df import render_torch_save_enospc

KIND = "volume-full"
SLUG = "drill-volume-full"
VOLUME = "/checkpoints"


def volume_location(target: str) -> str:
    return f"volume:{target}"


def plant(state: Cluster, rng: random.Random) -> Planted:
    job = state.main_job
    nodes = []
    for n in state.nodes:
        mounts = tuple(
            replace(m, used=m.size - rng.randint(0, 2**20) * 4096, avail=0)
            if m.target == VOLUME
            else m
            for m in n.mounts
        )
        nodes.append(replace(n, mounts=mounts))
    full = next(m for m in nodes[0].mounts if m.target == VOLUME)
    nodes = [
        replace(n, mounts=tuple(full if m.target == VOLUME else m for m in n.mounts)) for n in nodes
    ]
    state = replace(state, nodes=tuple(nodes))
    pos = rng.randint(2**33, 2**36)
    trace = render_torch_save_enospc(rng.randint(40, 900), pos, rng.randint(2**20, 2**26))
    step = job.progress_step
    log = (
        f"[rank0] saving checkpoint step {step} to {VOLUME}/{job.name}/step_{step:07d}.pt",
        *(f"[rank0]: {line}" if line else "[rank0]:" for line in trace.splitlines()),
        f"srun: error: {job.nodes[0]}: task 0: Exited with exit code 1",
    )
    state = state.with_job(replace(job, log=log))
    since = state.now - datetime.timedelta(minutes=rng.randint(2, 10))
    page = alert(
        "TrainingJobStalled",
        {"job_id": job.job_id, "name": job.name, "user": job.user, "severity": "page"},
        f"No training step logged by job {job.job_id} for 15 minutes.",
        since,
    )
    return Planted(
        state=state,
        alert=page,
        fault=KIND,
        location=volume_location(VOLUME),
        remedy="free-space",
        expert_path=(f"job-log@{job.job_id}", f"df@{job.nodes[0]}"),
    )
