"""One training rank bound to the CPUs of the other socket than its GPU's: a NUMA /
CPU-affinity misbinding that makes that rank, and so the whole job, slow.

On a two-socket GPU server each GPU and its HCA hang off one socket's PCIe root;
`nvidia-smi topo -m` prints, per GPU, the CPUs and NUMA node closest to it in its "CPU
Affinity" and "NUMA Affinity" columns (nvidia-smi(1), docs.nvidia.com/deploy/nvidia-smi/;
DGX H100: GPU0-3 at 0-55,112-167 on node 0, GPU4-7 at 56-111,168-223 on node 1, as the
capture in vllm-project/vllm issue 13855 shows). Launchers bind each rank there: Slurm's
`srun --cpu-bind=ldoms` or `map_ldom:...` (slurm.schedmd.com/srun.html, "--cpu-bind";
`--cpu-bind=verbose` reports each task's mask as it starts), or a wrapper running
`numactl --cpunodebind=N --membind=N` (numactl(8)) for the GPU's node N, often from a
static local-rank-to-CPU table (NVIDIA/srt-slurm pull request 339 replaced one with a
look-up of the GPU each task really owns).

When one rank gets the wrong N, its Python process (data loading, collation, kernel
launches) runs on the far socket and its pinned host buffers live in the far socket's
memory, so every host-to-device copy and every launch crosses the socket interconnect
(UPI / xGMI); on an A100 pod with EPYC hosts, unbound copies ran at 4-12 GB/s against up
to 24 GB/s bound (deepspeedai/DeepSpeed issue 1576). What that costs a step depends on
how host-bound the step is (a compute-bound benchmark can show no difference:
kubernetes/kubernetes issue 93989); the drill's job has a host-bound input pipeline, and
its figures (the step 1.3-1.65 times longer, the GPU at 38-60% utilisation and 30-42% of
its power limit, cluster.straggler) are chosen for that case, not measured.

That rank's GPU waits on its host: lower utilisation and power than its peers, clocks
and temperature normal, no Xid, links and HCAs healthy, which is what sets it apart from
a thermal, NVLink, InfiniBand or power-cap straggler. In synchronous data-parallel
training every step waits for the slowest rank at the all-reduce, so the job's step time
rises with it, while the peers' GPUs still read busy: nvidia-smi's utilisation is the
share of time some kernel was running (nvidia-smi(1), "utilization.gpu"), and NCCL's
kernels run while they wait. `taskset -cp PID` (taskset(1)) on the rank's PID (from
nvidia-smi's process list) shows the far socket's CPUs. The binding is in the job's
launch line: a drain, reboot, GPU reset or plain requeue starts it the same way again
(the rank at that place in the job misbound on whichever node now holds it); the fix is
a corrected binding and a requeue.
"""

from __future__ import annotations

import random
from dataclasses import replace

from problems.drills.cluster import Cluster, straggler
from problems.drills.faults.base import Planted, gpu_location, pick_gpu, throughput_drop

KIND = "numa-misbinding"
SLUG = "drill-numa-misbinding"
# Boards whose host the drills print truly (two 56-core sockets; render/affinity.py)
PLATFORMS = ("hgx-h100-a", "hgx-h100-b", "hgx-b200")


def plant(state: Cluster, rng: random.Random) -> Planted:
    position, host, index = pick_gpu(state, rng)
    job = replace(state.main_job, misbound=(position, index))
    state = state.with_job(job).with_gpu(host, straggler(state.node(host).gpus[index]))
    # a rank on the far socket: its host-side step takes a third to two thirds longer
    slow = round(job.step_s * rng.uniform(1.3, 1.65), 2)
    state, page = throughput_drop(state, job, rng, slow)
    return Planted(
        state=state,
        alert=page,
        fault=KIND,
        location=gpu_location(host, index),
        remedy="fix-binding",
        expert_path=(f"nvidia-smi@{host}", f"topo@{host}", f"binding@{host}"),
    )
