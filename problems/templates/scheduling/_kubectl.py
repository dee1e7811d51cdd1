"""kubectl output for the scheduling templates: tables laid out the way kubectl's
tabwriter prints them, and the kube-scheduler's FailedScheduling message.

The message follows kube-scheduler's FitError (Kubernetes 1.30): every node is counted once
under the first filter it fails, in the order TaintToleration, NodeAffinity,
NodeResourcesFit; the "count reason" strings are sorted as strings and joined with commas;
then the preemption summary, where nodes that failed on a taint or a selector are "not
helpful" to preempt on and nodes short of GPUs have no victims (nothing of lower priority
to evict).

Ages are printed as kubectl prints them (k8s.io/apimachinery's duration.HumanDuration:
"95s", "4m7s", "15m", "5h12m", "3d4h", "41d"), and an event seen more than once as
"<since last> (x<count> over <since first>)". A story's times hang together: the pods
and the Workload are as old as the Job, the scheduler has retried a pending pod at least
every five minutes (kube-scheduler moves unschedulable pods back to the active queue
after podMaxInUnschedulablePodsDuration, 5 minutes) and more often when the cluster
changed, and the Job controller retries a refused pod creation with an exponential
back-off from 10 s, capped at 6 minutes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

CP_TAINT = "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"
GPU_TAINT = "node(s) had untolerated taint {nvidia.com/gpu: present}"
NO_MATCH = "node(s) didn't match Pod's node affinity/selector"
SHORT = "Insufficient nvidia.com/gpu"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"
VERSION = "v1.30.4"


def human_duration(seconds: int) -> str:
    """A duration as kubectl's AGE columns print it (apimachinery HumanDuration)."""
    if seconds < 120:
        return f"{seconds}s"
    minutes = seconds // 60
    if minutes < 10:
        return f"{minutes}m{seconds % 60}s" if seconds % 60 else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    hours = seconds // 3600
    if hours < 8:
        return f"{hours}h{minutes % 60}m" if minutes % 60 else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        return f"{hours // 24}d{hours % 24}h" if hours % 24 else f"{hours // 24}d"
    return f"{hours // 24}d"  # up to two years, all this cluster needs


def event_age(last: int, count: int, first: int) -> str:
    """The Age cell of an event: since it was last seen, and how often over how long."""
    if count == 1:
        return human_duration(last)
    return f"{human_duration(last)} ({f'x{count}'} over {human_duration(first)})"


@dataclass(frozen=True)
class Ages:
    """When things happened, in seconds before the engineer looked."""

    job: int  # since the Job was submitted
    cluster_days: int  # the control-plane and CPU nodes
    gpu_days: int  # the GPU nodes
    scheduled: tuple[int, int]  # FailedScheduling: (since last, count)
    created: tuple[int, int]  # the Job's FailedCreate
    admitted: tuple[int, int]  # Kueue's Pending


def job_backoff(job: int) -> tuple[int, int]:
    """(since last, count) of the Job controller's creation attempts: 10 s, then doubling,
    at most 6 minutes apart."""
    times, t, step = [0], 0, 10
    while t + step <= job:
        t += step
        times.append(t)
        step = min(2 * step, 360)
    return job - times[-1], len(times)


def draw_ages(rng: random.Random) -> Ages:
    job = rng.randint(6, 90) * 60 + rng.randint(0, 59)
    minutes = job // 60
    cluster = rng.randint(20, 400)
    scheduled = rng.randint(minutes // 5 + 1, 4 * minutes)
    return Ages(
        job=job,
        cluster_days=cluster,
        gpu_days=rng.randint(8, cluster),
        scheduled=(rng.randint(1, min(299, job - 60)), scheduled),
        created=job_backoff(job),
        admitted=(rng.randint(1, min(299, job - 60)), rng.randint(minutes // 5 + 1, minutes + 2)),
    )


def kubectl_table(head: list[str], rows: list[list[str]], pad: int, indent: str = "") -> list[str]:
    """A tabwriter table as kubectl prints it: each column as wide as its widest cell plus
    `pad` spaces (3 for `kubectl get`, 2 for the tables inside `kubectl describe`)."""
    cols = list(zip(head, *rows, strict=True))
    widths = [max(len(str(c)) for c in col) + pad for col in cols[:-1]]
    out = []
    for row in [head, *rows]:
        cells = [f"{str(c):<{w}}" for c, w in zip(row[:-1], widths, strict=True)]
        out.append((indent + "".join(cells) + str(row[-1])).rstrip())
    return out


def events_table(events: list[list[str]]) -> list[str]:
    """The Events section of `kubectl describe`: Type, Reason, Age, From, Message."""
    head = ["Type", "Reason", "Age", "From", "Message"]
    rule = ["----", "------", "----", "----", "-------"]
    return ["Events:", *kubectl_table(head, [rule, *events], 2, indent="  ")]


def filter_reasons(
    gpu_nodes: int, cpu_nodes: int, tolerates: bool, selector: str
) -> dict[str, int]:
    """{reason: node count} for a GPU pod; `selector` is none, match or other (a GPU model
    the cluster lacks). One control-plane node, untainted CPU nodes, tainted GPU nodes."""
    gpu = GPU_TAINT if not tolerates else NO_MATCH if selector == "other" else SHORT
    cpu = NO_MATCH if selector != "none" else SHORT
    out: dict[str, int] = {CP_TAINT: 1}
    for reason, n in ((gpu, gpu_nodes), (cpu, cpu_nodes)):
        if n:
            out[reason] = out.get(reason, 0) + n
    return out


def histogram(counts: dict[str, int]) -> str:
    return ", ".join(sorted(f"{n} {reason}" for reason, n in counts.items()))


def scheduler_message(reasons: dict[str, int]) -> str:
    total = sum(reasons.values())
    post: dict[str, int] = {}
    for reason, n in reasons.items():
        key = NO_VICTIMS if reason == SHORT else NOT_HELPFUL
        post[key] = post.get(key, 0) + n
    return (
        f"0/{total} nodes are available: {histogram(reasons)}. "
        f"preemption: 0/{total} nodes are available: {histogram(post)}."
    )


def nodes_block(cpu_nodes: int, gpu_nodes: int, product: str, ages: Ages) -> list[str]:
    """`kubectl get nodes -L nvidia.com/gpu.product` (the label GPU Feature Discovery sets)."""
    old, new = human_duration(ages.cluster_days * 86400), human_duration(ages.gpu_days * 86400)
    rows = [["cp-0", "Ready", "control-plane", old, VERSION, ""]]
    rows += [[f"cpu-{i}", "Ready", "<none>", old, VERSION, ""] for i in range(cpu_nodes)]
    rows += [[f"gpu-{i}", "Ready", "<none>", new, VERSION, product] for i in range(gpu_nodes)]
    head = ["NAME", "STATUS", "ROLES", "AGE", "VERSION", "GPU.PRODUCT"]
    return ["$ kubectl get nodes -L nvidia.com/gpu.product", *kubectl_table(head, rows, 3)]


def pods_block(ns: str, job: str, pods: list[str], ages: Ages) -> list[str]:
    get = f"$ kubectl get pods -n {ns} -l batch.kubernetes.io/job-name={job}"
    if not pods:
        return [get, f"No resources found in {ns} namespace."]
    rows = [[name, "0/1", "Pending", "0", human_duration(ages.job)] for name in sorted(pods)]
    return [get, *kubectl_table(["NAME", "READY", "STATUS", "RESTARTS", "AGE"], rows, 3)]


def pod_block(
    ns: str,
    job: str,
    pod: str,
    gpus: int,
    selector: str | None,
    tolerates: bool,
    message: str,
    ages: Ages,
) -> list[str]:
    """An excerpt of `kubectl describe pod` for a pending GPU pod of a Job."""
    tolerations = [
        "node.kubernetes.io/not-ready:NoExecute op=Exists for 300s",
        "node.kubernetes.io/unreachable:NoExecute op=Exists for 300s",
    ] + (["nvidia.com/gpu:NoSchedule op=Exists"] if tolerates else [])
    age = event_age(*ages.scheduled, ages.job)
    event = ["Warning", "FailedScheduling", age, "default-scheduler", message]
    return [
        f"$ kubectl describe pod {pod} -n {ns}",
        f"Name:             {pod}",
        f"Namespace:        {ns}",
        "Node:             <none>",
        f"Labels:           batch.kubernetes.io/job-name={job}",
        "Status:           Pending",
        "[...]",
        "    Limits:",
        f"      nvidia.com/gpu:  {gpus}",
        "    Requests:",
        f"      nvidia.com/gpu:  {gpus}",
        "[...]",
        f"Node-Selectors:              {selector or '<none>'}",
        f"Tolerations:                 {tolerations[0]}",
        *[f"                             {t}" for t in tolerations[1:]],
        *events_table([event]),
    ]


def job_quota_block(
    ns: str, job: str, pod: str, parallelism: int, gpus: int, used: int, limit: int, ages: Ages
) -> list[str]:
    """`kubectl describe job` when a ResourceQuota refuses its pods (FailedCreate)."""
    message = (
        f'Error creating: pods "{pod}" is forbidden: exceeded quota: gpu-quota, requested: '
        f"requests.nvidia.com/gpu={gpus}, used: requests.nvidia.com/gpu={used}, limited: "
        f"requests.nvidia.com/gpu={limit}"
    )
    age = event_age(*ages.created, ages.job)
    event = ["Warning", "FailedCreate", age, "job-controller", message]
    return [
        f"$ kubectl describe job {job} -n {ns}",
        f"Name:             {job}",
        f"Namespace:        {ns}",
        "[...]",
        f"Parallelism:      {parallelism}",
        "Pods Statuses:    0 Active (0 Ready) / 0 Succeeded / 0 Failed",
        "[...]",
        *events_table([event]),
    ]


def workload_blocks(ns: str, workload: str, flavor: str, more: int, ages: Ages) -> list[list[str]]:
    """Kueue's view of a suspended Job: `kubectl get workloads`, then the Workload's events."""
    head = ["NAME", "QUEUE", "RESERVED IN", "ADMITTED", "FINISHED", "AGE"]
    rows = [[workload, "team-gpu", "", "False", "", human_duration(ages.job)]]
    message = (
        "couldn't assign flavors to pod set main: insufficient unused quota for "
        f"nvidia.com/gpu in flavor {flavor}, {more} more needed"
    )
    event = ["Warning", "Pending", event_age(*ages.admitted, ages.job), "kueue-admission", message]
    return [
        [f"$ kubectl get workloads -n {ns}", *kubectl_table(head, rows, 3)],
        [f"$ kubectl describe workload {workload} -n {ns}", "[...]", *events_table([event])],
    ]
