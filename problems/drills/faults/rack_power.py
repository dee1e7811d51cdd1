"""A rack power cap throttling every GPU in one rack.

When a rack's power budget is capped (the facility's PDU / DCIM policy, or out-of-band
through each node's BMC: DGX user guides, "Power capping" with the BMC's Redfish
interface), each GPU's enforced power limit drops below its default (NVML
nvmlDeviceGetEnforcedPowerLimit: "the minimum of various power limiters"), and the
driver holds clocks down to stay under it: nvidia-smi -q shows "SW Power Cap: Active"
under Clocks Event Reasons (nvidia-smi(1): the power-scaling algorithm is reducing the
clocks because the GPU draws too much power) with Current Power Limit below Default.
Every GPU of every node in the rack is affected, not one, which is what sets it apart
from a thermal problem; the job's ranks there are slow and the whole synchronous job
waits for them. Nothing on the nodes fixes it: the cap has to be lifted where it is set.
"""

from __future__ import annotations

import random
from dataclasses import replace

from problems.drills.cluster import Cluster
from problems.drills.faults.base import Planted, throughput_drop

KIND = "rack-power-cap"
SLUG = "drill-rack-power-cap"


def plant(state: Cluster, rng: random.Random) -> Planted:
    job = state.main_job
    host = rng.choice(job.nodes)
    rack = state.node(host).rack
    share = rng.uniform(0.5, 0.65)
    for node in state.nodes:
        if node.rack != rack:
            continue
        gpus = []
        for g in node.gpus:
            limit = int(g.cap * share) // 25 * 25
            busy = g.util > 0
            gpus.append(
                replace(
                    g,
                    limit=limit,
                    watts=limit - rng.randint(2, 15) if busy else g.watts,
                    sm_clock=int(g.max_sm_clock * rng.uniform(0.62, 0.75)) // 15 * 15
                    if busy
                    else g.sm_clock,
                    clock_events=("SW Power Cap",) if busy else g.clock_events,
                )
            )
        state = state.with_node(replace(node, gpus=tuple(gpus)))
    slow = round(job.step_s * rng.uniform(1.3, 1.55), 2)
    state, page = throughput_drop(state, job, rng, slow)
    return Planted(
        state=state,
        alert=page,
        fault=KIND,
        location=f"rack:{rack}",
        remedy="lift-power-cap",
        expert_path=("dcgm-scrape", f"smi-q@{host}:0"),
    )
