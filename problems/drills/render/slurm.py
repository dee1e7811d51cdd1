"""Slurm's views of the drill's cluster: `squeue`, `sinfo -R` and `scontrol show node`;
with them the job's log and `df -h` on a node (the places a stalled job is looked at).

- squeue uses the scheduling templates' format and table (scheduling/_family.py:
  SQUEUE_FORMAT, squeue_table, hostlist), so a drill prints it as they do.
- `sinfo -R` lists down and drained nodes with why: its default format is
  "%20E %9u %19H %N", REASON, USER, TIMESTAMP, NODELIST (slurm.schedmd.com/sinfo.html,
  --list-reasons); the timestamp is ISO 8601 without a zone.
- `scontrol show node` prints NodeName and its key=value lines, State with flags
  (IDLE+DRAIN, ALLOCATED, DOWN+DRAIN), Gres, and Reason=<text> [<user>@<time>] when the
  node is drained (slurm.schedmd.com/scontrol.html, "show node"). Only the lines a
  diagnosis reads are printed, in their documented order.
"""

from __future__ import annotations

from problems.drills.cluster import PARTITION, Cluster, Node
from problems.drills.tools.df import render_df_h
from problems.templates.scheduling._family import fmt_elapsed, fmt_hours, hostlist, squeue_table

GRES = {"a100-sxm-80gb": "a100", "h100-sxm": "h100", "b200": "b200"}


def _iso(t) -> str:
    return f"{t:%Y-%m-%dT%H:%M:%S}"


def _prefix(host: str) -> tuple[str, int]:
    digits = len(host) - len(host.rstrip("0123456789"))
    return host[:-digits], int(host[-digits:])


def _hosts(hosts: tuple[str, ...]) -> str:
    prefix = _prefix(hosts[0])[0]
    return hostlist(prefix, [_prefix(h)[1] for h in hosts])


def squeue(state: Cluster) -> str:
    rows = []
    for j in state.jobs:
        where = _hosts(j.nodes) if j.state == "R" else f"({j.reason})"
        rows.append(
            (
                j.job_id,
                j.name,
                j.user,
                j.state,
                fmt_elapsed(j.elapsed_s),
                fmt_hours(j.limit_h),
                len(j.nodes),
                where,
            )
        )
    return "\n".join(squeue_table(rows, PARTITION))


def sinfo_reasons(state: Cluster) -> str:
    lines = ["$ sinfo -R", f"{'REASON':<20} {'USER':<9} {'TIMESTAMP':<19} NODELIST"]
    for n in state.nodes:
        if n.slurm_state in ("drained", "draining", "down") and n.reason_time:
            lines.append(
                f"{n.reason[:20]:<20} {n.reason_user[:9]:<9} {_iso(n.reason_time):<19} {n.hostname}"
            )
    return "\n".join(lines)


STATE = {
    "idle": "IDLE",
    "allocated": "ALLOCATED",
    "mixed": "MIXED",
    "drained": "IDLE+DRAIN",
    "draining": "ALLOCATED+DRAIN",
    "down": "DOWN+DRAIN",
}


def scontrol_node(state: Cluster, node: Node) -> str:
    gres = f"gpu:{GRES[state.accelerator]}:8"
    alloc = 224 if node.slurm_state in ("allocated", "draining") else 0
    lines = [
        f"$ scontrol show node {node.hostname}",
        f"NodeName={node.hostname} Arch=x86_64 CoresPerSocket=56",
        f"   CPUAlloc={alloc} CPUEfctv=224 CPUTot=224",
        f"   Gres={gres}",
        f"   NodeAddr={node.hostname} NodeHostName={node.hostname} Version=23.11.10",
        "   RealMemory=2000000 Sockets=2 Boards=1",
        f"   State={STATE[node.slurm_state]} ThreadsPerCore=2 TmpDisk=0 Weight=1",
        f"   Partitions={PARTITION}",
        f"   BootTime={_iso(node.boot)} SlurmdStartTime={_iso(node.boot)}",
        "   CfgTRES=cpu=224,mem=2000000M,billing=224,gres/gpu=8",
    ]
    if node.reason:
        when = _iso(node.reason_time) if node.reason_time else _iso(state.now)
        lines.append(f"   Reason={node.reason} [{node.reason_user}@{when}]")
    return "\n".join(lines)


def job_log(state: Cluster, job) -> str:
    """`tail slurm-<id>.out`: the training loop's progress lines (step, loss, seconds per
    step), then whatever the fault made the job print."""
    shown = max(6 - len(job.log), 1)
    lines = [f"$ tail -n {shown + len(job.log)} slurm-{job.job_id}.out"]
    if job.state == "PD" and not job.log:
        lines.append(f"(job requeued {job.restarts} time(s); waiting: {job.reason})")
        return "\n".join(lines)
    base = job.step_s or 2.0
    step = job.progress_step
    for k in range(shown):
        s = step - (shown - k) * 50
        loss = 1.6 + 0.4 * ((job.job_id + s) % 97) / 97
        lines.append(f"[rank0] step {s:>7} | loss {loss:.4f} | {base:.2f} s/step")
    lines += job.log
    return "\n".join(lines)


def df_h(state: Cluster, node: Node) -> str:
    """`df -hT` on the node (problems/drills/tools/df.py: GNU coreutils' layout)."""
    return f"root@{node.hostname}:~# df -hT\n" + render_df_h(node.mounts, show_type=True)
