"""A thermally throttled GPU slowing a synchronous training job.

nvidia-smi(1), "Clocks Event Reasons" (docs.nvidia.com/deploy/nvidia-smi/): SW Thermal
Slowdown is active when the driver lowers clocks because the GPU is above its thermal
limit, HW Thermal Slowdown when the hardware does because it reached the slowdown
temperature (the -q capture prints GPU Slowdown Temp 89 C for H800). dcgm-exporter
publishes DCGM_FI_DEV_GPU_TEMP and DCGM_FI_DEV_SM_CLOCK per GPU, and dcgmi diag's
Targeted Power test fails with "thermal violations" (DCGM_FR_THERMAL_VIOLATIONS,
github.com/NVIDIA/DCGM, dcgm_errors.h). In data-parallel training every step waits for
the slowest rank at the all-reduce, so one GPU at ~60% clock slows the whole job by
about as much. The fix is the cooling (fans, blocked airflow, a failed fan tray), with
the node drained; no reset or reboot cools a GPU.
"""

from __future__ import annotations

import random
from dataclasses import replace

from problems.drills.cluster import Cluster
from problems.drills.faults.base import Planted, gpu_location, pick_gpu, throughput_drop

KIND = "thermal-throttle"
SLUG = "drill-thermal-throttle"


def plant(state: Cluster, rng: random.Random) -> Planted:
    job = state.main_job
    _, host, index = pick_gpu(state, rng)
    gpu = state.node(host).gpus[index]
    temp = rng.randint(87, 91)
    events = ("SW Thermal Slowdown",) + (("HW Thermal Slowdown",) if temp >= 89 else ())
    clock = int(gpu.max_sm_clock * rng.uniform(0.52, 0.68)) // 15 * 15
    gpu = replace(
        gpu,
        temp=temp,
        mem_temp=rng.randint(86, 93),
        sm_clock=clock,
        watts=int(gpu.cap * rng.uniform(0.45, 0.6)),
        clock_events=events,
        fault="thermal",
    )
    state = state.with_gpu(host, gpu)
    slow = round(job.step_s * gpu.max_sm_clock / clock, 2)
    state, page = throughput_drop(state, job, rng, slow)
    return Planted(
        state=state,
        alert=page,
        fault=KIND,
        location=gpu_location(host, index),
        remedy="drain-fix-cooling",
        expert_path=("dcgm-scrape", f"smi-q@{host}:{index}"),
        handling=frozenset({f"drain@{host}"}),
    )
