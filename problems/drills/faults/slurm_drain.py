"""A node of the job drained by Slurm with its reason: "Kill task failed".

Slurm (slurm.schedmd.com/slurm.conf.html, UnkillableStepTimeout): when a job step's
processes cannot be killed within the timeout, slurmd reports it and slurmctld drains the
node with the reason "Kill task failed"; the usual cause on GPU nodes is a process stuck
in uninterruptible sleep in the driver, which still holds its GPU memory. The job is
requeued elsewhere, and the partition is a node short. `sinfo -R` lists it beside any
older drain (here the cluster's noise: a node drained weeks ago for its own reason),
`scontrol show node` gives the reason with user and time, and nvidia-smi on the node
shows a process on a GPU though Slurm runs nothing there. A stuck process does not go
away by resuming the node (the next job would find the GPU occupied): the node needs a
reboot, then a resume (SchedMD's troubleshooting guide, "Nodes are getting set to a
DRAIN state"; slurm.schedmd.com/troubleshoot.html).
"""

from __future__ import annotations

import datetime
import random
from dataclasses import replace

from problems.drills.actions import requeue
from problems.drills.cluster import Cluster
from problems.drills.faults.base import Planted, alert

KIND = "slurm-drain"
SLUG = "drill-slurm-drain"


def plant(state: Cluster, rng: random.Random) -> Planted:
    job = state.main_job
    host = rng.choice(job.nodes)
    at = state.now - datetime.timedelta(minutes=rng.randint(35, 90), seconds=rng.randint(0, 59))
    index = rng.randrange(8)
    state = requeue(state, job, {host})
    node = state.node(host)
    held = rng.randint(18_000, 60_000)  # MiB the stuck process still holds
    gpus = tuple(
        replace(g, fault="stuck", util=0, used_mib=held) if g.index == index else g
        for g in node.gpus
    )
    node = replace(
        node,
        gpus=gpus,
        slurm_state="drained",
        reason="Kill task failed",
        reason_user="root",
        reason_time=at,
    )
    state = state.with_node(node)
    free = sum(1 for n in state.nodes if n.slurm_state == "idle")
    page = alert(
        "SlurmPartitionCapacityLow",
        {"partition": "gpu", "severity": "page"},
        f"Partition gpu has {free} idle nodes and 2 unavailable for more than 30 minutes; "
        f"job {job.job_id} was requeued.",
        at + datetime.timedelta(minutes=30),
    )
    return Planted(
        state=state,
        alert=page,
        fault=KIND,
        location=host,
        remedy="reboot-node",
        expert_path=("sinfo-R", f"scontrol@{host}", f"nvidia-smi@{host}"),
        handling=frozenset({f"reboot@{host}", f"drain@{host}"}),
    )
