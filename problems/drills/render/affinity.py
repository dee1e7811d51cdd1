"""Where a node's GPUs sit on the host, and where the training ranks run: `nvidia-smi topo
-m` and the ranks' CPU binding (`nvidia-smi --query-compute-apps` then `taskset -cp` for
each of them), rendered from the same node, so a rank's PID, its GPU's bus id and that
GPU's CPU Affinity can be followed from one output to the next.

- The host is the one the drills' `scontrol show node` prints for every node: two
  sockets of 56 cores with two threads each (224 CPUs), one NUMA node a socket, Linux
  numbering the first thread of every core before the second: socket 0 owns 0-55 and
  112-167, socket 1 owns 56-111 and 168-223. GPUs 0-3 (and their HCAs mlx5_0-3) hang
  off socket 0, GPUs 4-7 off socket 1. That is DGX H100's layout, as `nvidia-smi topo
  -m` on one prints it (vllm-project/vllm issue 13855: CPU Affinity 0-55,112-167 and
  NUMA Affinity 0 for GPU0-3, 56-111,168-223 and 1 for GPU4-7; every GPU pair NV18,
  each GPU PXB to its own NIC, NODE to the others on its socket, SYS across). DGX B200
  has the same two 56-core sockets. DGX A100 really has two 64-core EPYCs split into
  eight NUMA nodes (rapidsai/dask-cuda issue 1358: GPU0 at 48-63,176-191, NUMA 3);
  the drills print the 2 x 56 host for it too, so that topo agrees with scontrol
  (TODO for the lead: a per-platform host in cluster.py and scontrol).
- The topo table is the fabric templates' (problems/templates/fabric/_topo.py: the path
  rule, tab stops expanded to 8 columns, the Legend and NIC Legend), its columns as in
  spec/tool-output/topo: the GPUs, the NICs, CPU Affinity, NUMA Affinity, GPU NUMA ID
  (N/A on these boards). nvidia-smi(1), "topo": the affinity columns name the CPUs and
  the NUMA node closest to each GPU (docs.nvidia.com/deploy/nvidia-smi/).
- The binding view: `nvidia-smi --query-compute-apps=pid,gpu_bus_id --format=csv`
  prints a header of the field names and one row a process, comma and space between
  fields (nvidia-smi(1), "--query-compute-apps"; the capture in NVIDIA/dcgm-exporter
  issue 94); `taskset -cp PID` prints "pid N's current affinity list: LIST" with the
  list in ranges (taskset(1), util-linux). PIDs are those nvidia-smi's Processes table
  shows. Each rank is started under `numactl --cpunodebind=N --membind=N` for its GPU's
  NUMA node (numactl(8); the launcher huggingface/accelerate added in its pull request
  2535 does the same), so a healthy rank's list is its GPU's CPU Affinity; a misbound
  one (Job.misbound) holds the other socket's CPUs.
"""

from __future__ import annotations

from types import SimpleNamespace

from problems.drills.cluster import Cluster, Gpu, Node
from problems.drills.render.smi import _mismatch, lost_line, process_pid
from problems.templates.fabric._family import TOPO_LEGEND
from problems.templates.fabric._topo import path

CORES = 56  # cores a socket (scontrol's CoresPerSocket); two threads each
GPUS_PER_SOCKET = 4


def socket_of(index: int) -> int:
    """The socket (and NUMA node) GPU `index` and HCA mlx5_`index` hang off."""
    return index // GPUS_PER_SOCKET


def socket_cpus(socket: int) -> str:
    """The CPU list of one socket, both threads of each core, as Linux numbers them."""
    first, second = socket * CORES, (2 + socket) * CORES
    return f"{first}-{first + CORES - 1},{second}-{second + CORES - 1}"


def misbound(state: Cluster, host: str, index: int) -> bool:
    """Whether the rank on GPU `index` of `host` is the one a running job binds wrongly."""
    return any(
        j.state == "R" and j.misbound and j.nodes[j.misbound[0]] == host and j.misbound[1] == index
        for j in state.jobs
    )


def rank_cpus(state: Cluster, node: Node, gpu: Gpu) -> str:
    """The CPU list the process on this GPU is bound to."""
    home = socket_of(gpu.index)
    return socket_cpus(1 - home if misbound(state, node.hostname, gpu.index) else home)


def _failure(state: Cluster, node: Node, prompt: str) -> str | None:
    """What nvidia-smi prints instead of its output when NVML cannot serve this node."""
    if node.kernel_driver:
        return _mismatch(prompt, state)
    lost = [g for g in node.gpus if not g.on_bus and g.fault != "gone"]
    return f"{prompt}\n{lost_line(lost[0])}" if lost else None


def topo(state: Cluster, node: Node) -> str:
    """`nvidia-smi topo -m`: the GPUs nvidia-smi enumerates and the eight HCAs."""
    prompt = f"root@{node.hostname}:~# nvidia-smi topo -m"
    failed = _failure(state, node, prompt)
    if failed:
        return failed
    gpus = [g for g in node.gpus if g.on_bus]
    p = SimpleNamespace(
        gpu=state.accelerator,
        gpu_socket=[socket_of(g.index) for g in gpus],
        gpu_group=[g.index for g in gpus],  # each GPU shares a PCIe switch with its HCA
        nic_socket=[socket_of(k) for k in range(len(node.hcas))],
        nic_group=list(range(len(node.hcas))),
        group_path="PXB",
    )
    names = [f"GPU{k}" for k in range(len(gpus))] + [f"NIC{k}" for k in range(len(node.hcas))]
    lines = ["\t" + "\t".join(names) + "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID"]
    for d in names:
        row = d + "\t" + "\t".join(" X " if d == e else path(p, d, e) for e in names)
        if d.startswith("GPU"):
            s = p.gpu_socket[int(d[3:])]
            row += f"\t{socket_cpus(s)}\t{s}\t\tN/A"
        lines.append(row)
    out = [prompt, *(line.expandtabs(8).rstrip() for line in lines)]
    out += ["", *TOPO_LEGEND.splitlines(), "", "NIC Legend:", ""]
    out += [f"  NIC{k}: {h.name}" for k, h in enumerate(node.hcas)]
    return "\n".join(out)


def binding(state: Cluster, node: Node) -> str:
    """The GPU processes (PID, bus id), then each one's CPU affinity list."""
    prompt = f"root@{node.hostname}:~# nvidia-smi --query-compute-apps=pid,gpu_bus_id --format=csv"
    running = [g for g in node.gpus if g.on_bus and g.used_mib]
    failed = _failure(state, node, prompt)
    if failed:  # NVML cannot list the processes; pgrep still finds them
        lines = [failed]
    else:
        lines = [prompt, "pid, gpu_bus_id"]
        lines += [f"{process_pid(node, g)}, {g.bus_id}" for g in running]
    lines.append(f"root@{node.hostname}:~# for p in $(pgrep -x python3); do taskset -cp $p; done")
    lines += [
        f"pid {process_pid(node, g)}'s current affinity list: {rank_cpus(state, node, g)}"
        for g in running
    ]
    return "\n".join(lines)
