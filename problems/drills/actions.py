"""What the on-call engineer can do in a drill: look (a command whose output is evidence)
or act (a disruptive change to the cluster). Each action costs simulated minutes and maps
a state to (output, next state), so later looks show what earlier acts did.

How the acts change the cluster, and why:

- Drain (`scontrol update state=drain`, then `scontrol requeue` of the job on it): the
  node takes no more work; the job restarts on the remaining nodes plus an idle healthy
  one if there is one, else waits (Resources) (slurm.schedmd.com/scontrol.html).
- Reboot: the job on the node dies and is requeued; the kernel ring buffer starts empty;
  a GPU that fell off the bus for a transient reason comes back, one whose fault is in
  the hardware is not enumerated at all and slurmd, finding fewer GPUs than configured,
  drains the node ("gres/gpu count reported lower than configured"); a pending row
  remap takes effect (NVIDIA GPU Memory Error Management: remapping happens at the next
  GPU reset, which a reboot includes); a stuck process is gone.
- GPU reset (`nvidia-smi -r -i N`): refused while processes use the GPU (nvidia-smi(1),
  "-r, --gpu-reset": the GPU must not be in use); impossible for a GPU the driver lost
  (the catalog's bucket for Xid 79 is RESTART_BM, a node reboot); otherwise it clears
  volatile ECC counts and activates a pending remap. A thermal or fabric problem is not
  touched by any reset.
- Resume returns a drained node to service as it is; requeue restarts a job where the
  scheduler puts it. A job launched with a wrong CPU binding (Job.misbound) is launched
  the same way again: the rank at the same place in it is misbound, and starved, on
  whichever node now holds that place (only a corrected launch line fixes it, outside
  the drill's actions).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from problems.drills.cluster import Cluster, Gpu, Job, Node, straggler
from problems.drills.render import affinity, fabric, logs, metrics, slurm, smi

Run = Callable[[Cluster], tuple[str, Cluster]]


@dataclass(frozen=True)
class Action:
    id: str
    label: str
    target: str  # "node:gpu013", "gpu:gpu013:3", "job:812345", "cluster"
    minutes: int
    disruptive: bool
    effect: Run

    def run(self, state: Cluster) -> tuple[str, Cluster]:
        output, after = self.effect(state)
        return output, after.later(self.minutes)


def _look(render: Callable[[Cluster], str]) -> Run:
    return lambda state: (render(state), state)


# --- acts ------------------------------------------------------------------------------------


def _idle_spare(state: Cluster, exclude: set[str]) -> Node | None:
    for n in state.nodes:
        healthy = all(g.on_bus for g in n.gpus) and not _stuck(n)
        if n.hostname not in exclude and n.slurm_state == "idle" and healthy:
            return n
    return None


def _stuck(node: Node) -> bool:
    return any(g.fault == "stuck" for g in node.gpus)


def _set_busy(node: Node, busy: bool) -> Node:
    """The node with its usable GPUs loaded by a job (busy) or idle. A GPU already in
    that state is kept as it is, and so is a node none of whose GPUs changed: `problems
    check` runs every action of 200 drills a template, and copying unchanged frozen
    records was a third of its time."""

    def one(g: Gpu) -> Gpu:
        if not g.on_bus or g.fault == "stuck":
            return g
        if busy:
            util, used = max(g.util, 90), max(g.used_mib, g.total_mib * 4 // 5)
            if (util, used) == (g.util, g.used_mib):
                return g
            return replace(g, util=util, used_mib=used)
        watts, temp = min(g.watts, 90), g.temp if g.fault == "thermal" else 33
        if (g.util, g.used_mib, g.watts, g.temp) == (0, 0, watts, temp):
            return g
        return replace(g, util=0, used_mib=0, watts=watts, temp=temp)

    gpus = tuple(one(g) for g in node.gpus)
    if all(new is old for new, old in zip(gpus, node.gpus, strict=True)):
        return node
    return replace(node, gpus=gpus)


def requeue(state: Cluster, job: Job, without: set[str]) -> Cluster:
    """The job restarts on its healthy nodes plus a spare, or waits for resources."""
    keep = [h for h in job.nodes if h not in without]
    while len(keep) < len(job.nodes):
        spare = _idle_spare(state, set(keep) | without)
        if spare is None:
            break
        keep.append(spare.hostname)
    for h in job.nodes:
        n = state.node(h)
        if n.slurm_state == "allocated":
            state = state.with_node(_set_busy(replace(n, slurm_state="idle"), False))
        elif n.slurm_state == "draining":
            state = state.with_node(_set_busy(replace(n, slurm_state="drained"), False))
    if len(keep) == len(job.nodes):
        for h in keep:
            n = state.node(h)
            state = state.with_node(_set_busy(replace(n, slurm_state="allocated"), True))
        new = replace(job, nodes=tuple(keep), state="R", elapsed_s=60, restarts=job.restarts + 1)
        if new.misbound:
            where, index = new.nodes[new.misbound[0]], new.misbound[1]
            state = state.with_gpu(where, straggler(state.node(where).gpus[index]))
    else:
        new = replace(job, state="PD", reason="Resources", elapsed_s=0, restarts=job.restarts + 1)
    return state.with_job(new)


def _sinfo_node(state: Cluster, host: str) -> str:
    """What the act left: `sinfo -n HOST -h -o "%N %T"` (scontrol update prints nothing)."""
    return f'$ sinfo -n {host} -h -o "%N %T"\n{host} {state.node(host).slurm_state}'


def _squeue_job(state: Cluster, job_id: int) -> str:
    job = state.job(job_id)
    where = ",".join(job.nodes) if job.state == "R" else f"({job.reason})"
    return f'$ squeue -j {job_id} -h -o "%i %t %R"\n{job_id} {job.state} {where}'


def _jobs_on(state: Cluster, host: str) -> list[Job]:
    return [j for j in state.jobs if j.state == "R" and host in j.nodes]


def drain(host: str) -> Run:
    def run(state: Cluster) -> tuple[str, Cluster]:
        node = state.node(host)
        out = [f'$ scontrol update nodename={host} state=drain reason="oncall: investigating"']
        state = state.with_node(
            replace(
                node,
                slurm_state="draining" if node.slurm_state == "allocated" else "drained",
                reason=node.reason or "oncall: investigating",
                reason_user=node.reason_user or "oncall",
                reason_time=node.reason_time or state.now,
            )
        )
        for job in _jobs_on(state, host):
            out.append(f"$ scontrol requeue {job.job_id}")
            state = requeue(state, job, {host})
        out.append(_sinfo_node(state, host))
        return "\n".join(out), state

    return run


def reboot(host: str) -> Run:
    def run(state: Cluster) -> tuple[str, Cluster]:
        for job in _jobs_on(state, host):
            state = requeue(state, job, {host})
        node = state.node(host)
        gpus = []
        for g in node.gpus:
            if g.fault == "off-bus-transient":
                g = replace(g, on_bus=True, fault="")
            elif g.fault == "off-bus-hardware":
                g = replace(g, fault="gone")
            elif g.fault == "stuck":
                g = replace(g, fault="", used_mib=0, util=0)
            if g.remap_pending:
                g = replace(g, remap_pending=False, remap_unc=g.remap_unc + 1)
            gpus.append(replace(g, ecc_unc=0, ecc_corr=0))
        missing = sum(1 for g in gpus if g.fault == "gone")
        node = replace(node, gpus=tuple(gpus), xids=(), boot=state.now)
        if missing:
            node = replace(
                node,
                slurm_state="drained",
                reason=f"gres/gpu count reported lower than configured ({8 - missing} < 8)",
                reason_user="slurm",
                reason_time=state.now,
            )
        elif node.slurm_state == "allocated":
            node = replace(node, slurm_state="idle")
        node = _set_busy(node, False)
        out = [
            f"root@{host}:~# reboot",
            f"Connection to {host} closed by remote host.",
            f"$ ssh {host} uptime",
            f" {state.now:%H:%M:%S} up 4 min,  0 users,  load average: 0.31, 0.22, 0.09",
        ]
        return "\n".join(out), state.with_node(node)

    return run


def reset_gpu(host: str, index: int) -> Run:
    def run(state: Cluster) -> tuple[str, Cluster]:
        node = state.node(host)
        g = node.gpus[index]
        prompt = f"root@{host}:~# nvidia-smi -r -i {index}"
        if g.fault == "gone":
            return f"{prompt}\nNo devices were found", state
        if not g.on_bus:
            return f"{prompt}\n{smi.lost_line(g)}", state
        if g.used_mib:
            return (
                f"{prompt}\nGPU {g.bus_id} is currently in use by another process.\n\n"
                "1 device is currently being used by one or more other processes (e.g., Fabric "
                "Manager, CUDA application, graphics application such as an X server, or a "
                "monitoring application such as another instance of nvidia-smi). Please first "
                "kill all processes using this device and all compute applications running in "
                "the system.",
                state,
            )
        pending = g.remap_pending
        g = replace(
            g,
            remap_pending=False,
            remap_unc=g.remap_unc + (1 if pending else 0),
            ecc_unc=0,
            ecc_corr=0,
            fault="" if g.fault in ("ecc", "nvlink") else g.fault,
            nvlink_down=-1 if g.fault == "nvlink" else g.nvlink_down,  # the link retrains
        )
        out = f"{prompt}\nGPU {g.bus_id} was successfully reset.\nAll done."
        return out, state.with_gpu(host, g)

    return run


def resume(host: str) -> Run:
    def run(state: Cluster) -> tuple[str, Cluster]:
        node = state.node(host)
        node = replace(node, slurm_state="idle", reason="", reason_user="", reason_time=None)
        state = state.with_node(node)
        return f"$ scontrol update nodename={host} state=resume\n{_sinfo_node(state, host)}", state

    return run


def requeue_job(job_id: int) -> Run:
    def run(state: Cluster) -> tuple[str, Cluster]:
        job = state.job(job_id)
        bad = {h for h in job.nodes if state.node(h).slurm_state not in ("allocated", "idle")}
        state = requeue(state, job, bad)
        return f"$ scontrol requeue {job_id}\n{_squeue_job(state, job_id)}", state

    return run


# --- the catalogue ---------------------------------------------------------------------------


def _node_actions(state: Cluster, host: str, in_job: bool) -> list[Action]:
    def on(render):
        return _look(lambda s: render(s, s.node(host)))

    t = f"node:{host}"
    acts = [
        Action(f"nvidia-smi@{host}", f"nvidia-smi on {host}", t, 1, False, on(smi.nvidia_smi)),
        Action(
            f"dmesg@{host}", f"dmesg -T | grep -i nvrm on {host}", t, 1, False, on(logs.dmesg_xid)
        ),
        Action(f"ibstat@{host}", f"ibstat on {host}", t, 1, False, on(fabric.ibstat)),
        Action(
            f"perfquery@{host}", f"perfquery on {host}'s HCAs", t, 2, False, on(fabric.perfquery)
        ),
        Action(
            f"scontrol@{host}", f"scontrol show node {host}", t, 1, False, on(slurm.scontrol_node)
        ),
        Action(f"df@{host}", f"df -h on {host}", t, 1, False, on(slurm.df_h)),
        Action(
            f"nvlink@{host}", f"nvidia-smi nvlink -s on {host}", t, 1, False, on(smi.nvlink_status)
        ),
        Action(
            f"dcgmi-diag@{host}", f"dcgmi diag -r 2 on {host}", t, 15, False, on(metrics.dcgmi_diag)
        ),
    ]
    if in_job:
        for i in range(8):

            def q(s: Cluster, i: int = i) -> str:
                return smi.nvidia_smi_q(s, s.node(host), i)

            acts.append(
                Action(
                    f"smi-q@{host}:{i}", f"nvidia-smi -q -i {i} on {host}", f"gpu:{host}:{i}", 1,
                    False, _look(q),
                )
            )  # fmt: skip
        acts += [
            Action(f"topo@{host}", f"nvidia-smi topo -m on {host}", t, 1, False, on(affinity.topo)),
            Action(
                f"binding@{host}", f"CPU affinity of the GPU processes on {host} (taskset -cp)",
                t, 1, False, on(affinity.binding),
            ),
        ]  # fmt: skip
    acts += [
        Action(f"drain@{host}", f"drain {host} (and requeue its job)", t, 1, True, drain(host)),
        Action(f"reboot@{host}", f"reboot {host}", t, 10, True, reboot(host)),
        Action(f"resume@{host}", f"resume {host} in Slurm", t, 1, True, resume(host)),
    ]
    if in_job:
        acts += [
            Action(
                f"reset-gpu@{host}:{i}", f"nvidia-smi -r -i {i} on {host}", f"gpu:{host}:{i}", 2,
                True, reset_gpu(host, i),
            )
            for i in range(8)
        ]  # fmt: skip
    return acts


def slurm_catalogue(state: Cluster) -> tuple[Action, ...]:
    """Every action a drill over a Slurm cluster offers, in a stable order (a
    Kubernetes cluster's are k8s_actions'; problems.drills.catalogue picks)."""
    job = state.main_job
    hosts = job.nodes
    acts = [
        Action("squeue", "squeue -p gpu", "cluster", 1, False, _look(slurm.squeue)),
        Action("sinfo-R", "sinfo -R (down and drained nodes)", "cluster", 1, False,
               _look(slurm.sinfo_reasons)),
        Action(f"job-log@{job.job_id}", f"tail the log of job {job.job_id}", f"job:{job.job_id}",
               2, False, _look(lambda s: slurm.job_log(s, s.job(job.job_id)))),
        Action("dcgm-scrape", "Prometheus: GPU temperature and SM clock on the job's nodes",
               "cluster", 3, False, _look(lambda s: metrics.scrape(s, hosts))),
        Action("nccl-pairs", "nccl-tests all_reduce_perf over pairs of the job's nodes",
               "cluster", 12, False, _look(lambda s: fabric.nccl_pairs(s, hosts))),
    ]  # fmt: skip
    for n in state.nodes:
        acts += _node_actions(state, n.hostname, n.hostname in hosts)
    acts.append(
        Action(
            f"requeue@{job.job_id}",
            f"requeue job {job.job_id}",
            f"job:{job.job_id}",
            1,
            True,
            requeue_job(job.job_id),
        )
    )
    return tuple(acts)


def by_id(actions: tuple[Action, ...]) -> dict[str, Action]:
    return {a.id: a for a in actions}
