"""The simulated cluster a drill runs over: one frozen value drawn from a seed, from which
every tool's output is rendered (problems/drills/render), so the evidence agrees across
tools: the bus id an Xid line names is a GPU of that node's `nvidia-smi`, the node an
nccl-tests pair names is one whose HCAs `ibstat` shows, the job squeue lists runs on
nodes sinfo knows.

What is drawn, and where the facts come from:

- The platform is one of _xid_log.PLATFORMS (DGX A100, two HGX H100 baseboards, HGX
  B200): its accelerator, nvidia-smi name, the bus ids of real 8-GPU boards and the
  hostname prefix; the server's marketing name is the hardware catalog's (dgx-a100,
  dgx-h100, dgx-b200). The driver is the era table's fleet driver for the drawn year.
- A GPU's UUID is 128 random bits in 8-4-4-4-12 lower-case hex (_nvidia_smi.gpu_uuid);
  its serial the 13 digits spec/tool-output/xid and nvidia-smi-q print (1651..., 1652...).
- Each node has eight ConnectX HCAs for the compute fabric (mlx5_0..mlx5_7, one per GPU,
  as DGX H100 / A100 ship them), 400 Gb/s NDR on Hopper and Blackwell, 200 Gb/s HDR on
  DGX A100 (NVIDIA DGX user guides, "Network ports").
- Healthy noise: one healthy GPU somewhere carries a few correctable DRAM ECC errors (a
  normal count that asks for nothing), and one node outside the job has been drained for
  weeks with its own reason (an old ticket), so "a drained node" alone never identifies
  the fault.

Hidden truth (what a fault module plants and actions consult, never printed as such)
lives in `Gpu.fault`, `Node.ib_fault` and `Job.misbound`: tools only show its symptoms.
"""

from __future__ import annotations

import datetime
import random
import zlib
from dataclasses import dataclass, replace

from hardware_db import catalog
from problems.drills.tools.df import Mount
from problems.templates._era import fleet_driver, fleet_moment, fleet_years
from problems.templates._nvidia_smi import gpu_uuid
from problems.templates.incidents._xid_log import PLATFORMS

SERVER = {"dgx-a100": "dgx-a100", "hgx-h100-a": "dgx-h100", "hgx-h100-b": "dgx-h100"}
SERVER["hgx-b200"] = "dgx-b200"
# Board power limit (W), max SM clock (MHz), memory MiB as nvidia-smi prints them.
POWER = {"a100-sxm-80gb": 400, "h100-sxm": 700, "b200": 1000}
MAX_SM = {"a100-sxm-80gb": 1410, "h100-sxm": 1980, "b200": 1965}
MEMORY_MIB = {"a100-sxm-80gb": 81920, "h100-sxm": 81559, "b200": 183359}
IB_RATE = {"a100-sxm-80gb": 200, "h100-sxm": 400, "b200": 400}
HCA_TYPE = {"a100-sxm-80gb": ("MT4123", "20.39.1002"), "h100-sxm": ("MT4129", "28.39.1002")}
HCA_TYPE["b200"] = HCA_TYPE["h100-sxm"]
PARTITION = "gpu"
USERS = ("mchen", "apatel", "rkumar", "jsilva", "lnguyen", "okim")
JOB_NAMES = ("pretrain", "sft-run", "llama-ft", "moe-pt", "rlhf-ppo", "eval-sweep")
OLD_REASONS = (
    "PSU replaced, awaiting burn-in",
    "BMC unreachable, ticket 4471",
    "fan tray swap pending",
    "NVMe /raid errors, RMA open",
)


@dataclass(frozen=True)
class Gpu:
    """One GPU as the driver and NVML see it. `fault` is the hidden cause ("" healthy)."""

    index: int
    bus: int  # PCI bus number; the bus id is 00000000:<bus>:00.0
    uuid: str
    serial: str
    temp: int
    mem_temp: int
    watts: int
    cap: int
    sm_clock: int
    max_sm_clock: int
    used_mib: int
    total_mib: int
    util: int
    ecc_corr: int = 0  # DRAM correctable, volatile (aggregate adds `ecc_corr_old`)
    ecc_corr_old: int = 0
    ecc_unc: int = 0  # DRAM uncorrectable, volatile
    remap_unc: int = 0  # rows remapped for uncorrectable errors (aggregate)
    remap_pending: bool = False
    clock_events: tuple[str, ...] = ()  # active clock event reasons, nvidia-smi -q names
    on_bus: bool = True
    limit: int = 0  # enforced power limit (W) when a cap holds it below `cap`, else 0
    nvlink_down: int = -1  # the NVLink that failed (inactive in `nvidia-smi nvlink -s`)
    fault: str = ""  # hidden: "", "off-bus-transient", "off-bus-hardware", "ecc", "thermal"

    @property
    def bus_id(self) -> str:
        return f"00000000:{self.bus:02X}:00.0"


@dataclass(frozen=True)
class Hca:
    """One compute-fabric HCA port (port 1 of mlx5_N) and its error counters."""

    name: str
    node_guid: int
    lid: int
    rate: int
    state: str = "Active"
    physical_state: str = "LinkUp"
    link_downed: int = 0
    link_error_recovery: int = 0
    symbol_errors: int = 0


@dataclass(frozen=True)
class XidRecord:
    """An Xid the driver logged: the code that starts the message, the GPU, the time."""

    code: int  # 48 (with its 63/95 sequence), 74, 79
    gpu: int
    at: datetime.datetime
    salt: int = 0  # draws the message's addresses
    link: int = 0  # Xid 74 / 145: the NVLink the error names


@dataclass(frozen=True)
class Node:
    hostname: str
    rack: str
    gpus: tuple[Gpu, ...]
    hcas: tuple[Hca, ...]
    boot: datetime.datetime
    slurm_state: str = "idle"  # idle, allocated, mixed, drained, draining, down
    reason: str = ""
    reason_user: str = ""
    reason_time: datetime.datetime | None = None
    xids: tuple[XidRecord, ...] = ()
    ib_fault: str = ""  # hidden: "", "low-rate", "flapping"
    mounts: tuple[Mount, ...] = ()  # df's view: root, local /raid, the shared NFS volumes
    cordoned: bool = False  # Kubernetes: unschedulable (kubectl cordon / drain)
    k8s_gpus: int = 8  # Kubernetes: allocatable nvidia.com/gpu the device plugin registered
    kernel_driver: str = ""  # the loaded kernel module's version when it is not `driver`
    plugin_started: datetime.datetime | None = None  # Kubernetes: the device plugin's start


@dataclass(frozen=True)
class Pod:
    """A Kubernetes pod of the serving deployment (one replica takes a whole node)."""

    name: str
    node: str  # "" while Pending
    phase: str  # Running, Pending
    gpus: int
    created: datetime.datetime
    restarts: int = 0
    ip: str = ""
    metrics: tuple = ()  # vLLM: the two /metrics scrapes' parameters (a VllmParams), if any


@dataclass(frozen=True)
class Job:
    job_id: int
    name: str
    user: str
    nodes: tuple[str, ...]
    state: str  # R, PD, CG
    elapsed_s: int
    limit_h: int
    reason: str = ""  # for pending jobs: Resources, Priority, launch failed requeued held
    step_s: float = 0.0  # seconds per training step, as the job's log reports it
    log: tuple[str, ...] = ()  # the tail of slurm-<id>.out (faults add their lines)
    restarts: int = 0
    # hidden: (position of the node in `nodes`, local rank) of the one rank the launch
    # binds to the CPUs of the other socket than its GPU's; it follows the job when
    # it is requeued, as a launch script does (faults/numa_misbinding.py)
    misbound: tuple[int, int] = ()

    @property
    def progress_step(self) -> int:
        """The step the job's log has reached (a multiple of its 50-step log interval)."""
        return 50 * (6 + int(self.elapsed_s / (self.step_s or 2.0)) // 50)


@dataclass(frozen=True)
class Cluster:
    seed: int
    platform: str  # a key of _xid_log.PLATFORMS
    server: str  # the catalog's server name
    driver: str
    now: datetime.datetime
    nodes: tuple[Node, ...]
    jobs: tuple[Job, ...]
    scheduler: str = "slurm"  # or "kubernetes": then `pods` hold the serving deployment
    pods: tuple[Pod, ...] = ()
    namespace: str = "inference"
    deployment: str = ""

    @property
    def accelerator(self) -> str:
        return PLATFORMS[self.platform][0]

    @property
    def gpu_name(self) -> str:
        return PLATFORMS[self.platform][1]

    def node(self, hostname: str) -> Node:
        return next(n for n in self.nodes if n.hostname == hostname)

    def job(self, job_id: int) -> Job:
        return next(j for j in self.jobs if j.job_id == job_id)

    @property
    def main_job(self) -> Job:
        """The multi-node training job the alert is about: the first job drawn."""
        return self.jobs[0]

    def with_node(self, node: Node) -> Cluster:
        nodes = tuple(node if n.hostname == node.hostname else n for n in self.nodes)
        return replace(self, nodes=nodes)

    def with_gpu(self, hostname: str, gpu: Gpu) -> Cluster:
        node = self.node(hostname)
        gpus = tuple(gpu if g.index == gpu.index else g for g in node.gpus)
        return self.with_node(replace(node, gpus=gpus))

    def with_pods(self, pods: tuple[Pod, ...]) -> Cluster:
        return replace(self, pods=pods)

    def with_job(self, job: Job) -> Cluster:
        return replace(self, jobs=tuple(job if j.job_id == job.job_id else j for j in self.jobs))

    def later(self, minutes: int) -> Cluster:
        return replace(self, now=self.now + datetime.timedelta(minutes=minutes))


def straggler(gpu: Gpu) -> Gpu:
    """A busy GPU whose rank is starved on the host (faults/numa_misbinding.py): kernels
    arrive late, so it idles between them and runs cooler, at about half the utilisation
    and power of its peers, while its clocks stay up (nothing throttles it); the ranges
    are the drill's choice (faults/numa_misbinding.py says why). Drawn from the GPU's
    UUID, so a requeue that lands the rank on the same GPU shows the same."""
    salt = zlib.crc32(gpu.uuid.encode())
    return replace(
        gpu,
        util=38 + salt % 23,
        watts=int(gpu.cap * (0.3 + salt % 13 / 100)),
        temp=min(gpu.temp, 43 + salt % 9),
    )


def serial(rng: random.Random) -> str:
    return f"16{rng.randint(50, 53)}{rng.randint(10**8, 10**9 - 1)}"


def _gpu(rng: random.Random, acc: str, index: int, bus: int, busy: bool) -> Gpu:
    cap, top, total = POWER[acc], MAX_SM[acc], MEMORY_MIB[acc]
    return Gpu(
        index=index,
        bus=bus,
        uuid=gpu_uuid(rng),
        serial=serial(rng),
        temp=rng.randint(52, 66) if busy else rng.randint(29, 36),
        mem_temp=rng.randint(58, 72) if busy else rng.randint(34, 42),
        watts=rng.randint(int(cap * 0.62), int(cap * 0.9)) if busy else rng.randint(60, 95),
        cap=cap,
        sm_clock=top - rng.choice((0, 15, 30)) if busy else 345,
        max_sm_clock=top,
        used_mib=rng.randint(int(total * 0.7), int(total * 0.93)) if busy else 0,
        total_mib=total,
        util=rng.randint(88, 100) if busy else 0,
    )


TIB = 2**40
RAID_TIB = {"a100-sxm-80gb": 15, "h100-sxm": 30, "b200": 30}  # DGX local NVMe /raid


def shared_mounts(rng: random.Random) -> tuple[Mount, ...]:
    """The NFS volumes every node mounts: checkpoints and home directories."""
    ckpt = 400 * TIB
    home = 40 * TIB
    return (
        Mount("nas01:/export/checkpoints", "/checkpoints", ckpt,
              int(ckpt * rng.uniform(0.45, 0.8)), 0, 2**32, rng.randint(10**6, 10**7), "nfs4"),
        Mount("nas01:/export/home", "/home", home,
              int(home * rng.uniform(0.3, 0.7)), 0, 2**31, rng.randint(10**6, 10**7), "nfs4"),
    )  # fmt: skip


def _with_avail(m: Mount) -> Mount:
    """Available space: ext4 keeps 5% of its blocks for root (mke2fs -m 5, the default)."""
    reserved = m.size // 20 if m.fstype == "ext4" else 0
    return replace(m, avail=max(m.size - reserved - m.used, 0))


def _local_mounts(rng: random.Random, acc: str) -> tuple[Mount, ...]:
    root, raid = int(1.7 * TIB), RAID_TIB[acc] * TIB
    return (
        Mount("/dev/nvme0n1p2", "/", root, int(root * rng.uniform(0.12, 0.35)), 0,
              116_000_000, rng.randint(400_000, 900_000), "ext4"),
        Mount("/dev/md0", "/raid", raid, int(raid * rng.uniform(0.05, 0.6)), 0,
              raid // 2**20, rng.randint(10_000, 400_000), "ext4"),
    )  # fmt: skip


def _hcas(rng: random.Random, acc: str, lid0: int) -> tuple[Hca, ...]:
    base = 0xB83FD2030000 << 16 | rng.getrandbits(16) << 8
    return tuple(
        Hca(name=f"mlx5_{k}", node_guid=(base | k * 2), lid=lid0 + k, rate=IB_RATE[acc])
        for k in range(8)
    )


def draw(seed: int, n_nodes: int | None = None, platforms: tuple[str, ...] = ()) -> Cluster:
    """A healthy cluster (apart from its noise) for this seed; faults are planted after.
    `platforms` narrows the boards drawn from (a fault that needs a part says which)."""
    rng = random.Random(f"drill-cluster|{seed}")
    platform = rng.choice(sorted(platforms or PLATFORMS))
    acc, _, buses, _, prefix = PLATFORMS[platform]
    year = rng.choice([y for y in fleet_years(acc) if fleet_driver(acc, y).version])
    driver = fleet_driver(acc, year).version
    now = fleet_moment(rng, year)
    n = n_nodes or rng.randint(6, 8)
    first = rng.randint(1, 40)
    job_size = rng.choice((2, 4)) if n < 8 else 4
    names = [f"{prefix}{first + k:03d}" for k in range(n)]
    old = rng.choice(range(job_size, n))  # the old drained node, never in the job
    nodes = []
    shared = tuple(_with_avail(m) for m in shared_mounts(rng))
    for k, hostname in enumerate(names):
        busy = k < job_size or (k != old and rng.random() < 0.5)
        boot = now - datetime.timedelta(days=rng.randint(12, 90), seconds=rng.randint(0, 86_399))
        gpus = tuple(_gpu(rng, acc, i, bus, busy) for i, bus in enumerate(buses))
        node = Node(
            hostname=hostname,
            rack=f"r{(first + k - 1) // 4 + 1:02d}",
            gpus=gpus,
            hcas=_hcas(rng, acc, 100 + 8 * (first + k)),
            boot=boot,
            slurm_state="allocated" if busy else "idle",
            mounts=tuple(_with_avail(m) for m in _local_mounts(rng, acc)) + shared,
        )
        if k == old:
            node = replace(
                node,
                slurm_state="drained",
                reason=rng.choice(OLD_REASONS),
                reason_user=rng.choice(("root", "admin", "ops")),
                reason_time=now - datetime.timedelta(days=rng.randint(9, 40)),
            )
        nodes.append(node)
    # healthy noise: a few correctable DRAM errors on one GPU of a job node
    k, i = rng.randrange(job_size), rng.randrange(8)
    noisy = replace(nodes[k].gpus[i], ecc_corr=rng.randint(1, 4), ecc_corr_old=rng.randint(3, 40))
    nodes[k] = replace(nodes[k], gpus=tuple(noisy if g.index == i else g for g in nodes[k].gpus))
    main = Job(
        job_id=rng.randint(180_000, 990_000),
        name=rng.choice(JOB_NAMES),
        user=rng.choice(USERS),
        nodes=tuple(names[:job_size]),
        state="R",
        elapsed_s=rng.randint(3 * 3600, 40 * 3600),
        limit_h=48,
        step_s=round(rng.uniform(1.2, 4.0), 2),
    )
    jobs = [main]
    for k in range(job_size, n):
        if nodes[k].slurm_state == "allocated":
            jobs.append(
                Job(
                    job_id=main.job_id + 7 + k,
                    name=rng.choice(JOB_NAMES),
                    user=rng.choice(USERS),
                    nodes=(names[k],),
                    state="R",
                    elapsed_s=rng.randint(600, 20 * 3600),
                    limit_h=24,
                )
            )
    server = catalog.server(SERVER[platform]).name
    return Cluster(seed, platform, server, driver, now, tuple(nodes), tuple(jobs))
