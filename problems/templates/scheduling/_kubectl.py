"""kubectl output for the scheduling templates: tables laid out the way kubectl's
tabwriter prints them, and the kube-scheduler's FailedScheduling message.

The message follows kube-scheduler's FitError (Kubernetes 1.30): every node is counted once
under the first filter it fails, in the order TaintToleration, NodeAffinity,
NodeResourcesFit; the "count reason" strings are sorted as strings and joined with commas;
then the preemption summary, where nodes that failed on a taint or a selector are "not
helpful" to preempt on and nodes short of GPUs have no victims (nothing of lower priority
to evict).
"""

from __future__ import annotations

CP_TAINT = "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"
GPU_TAINT = "node(s) had untolerated taint {nvidia.com/gpu: present}"
NO_MATCH = "node(s) didn't match Pod's node affinity/selector"
SHORT = "Insufficient nvidia.com/gpu"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"
VERSION = "v1.30.4"


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


def nodes_block(cpu_nodes: int, gpu_nodes: int, product: str) -> list[str]:
    """`kubectl get nodes -L nvidia.com/gpu.product` (the label GPU Feature Discovery sets)."""
    rows = [["cp-0", "Ready", "control-plane", "41d", VERSION, ""]]
    rows += [[f"cpu-{i}", "Ready", "<none>", "41d", VERSION, ""] for i in range(cpu_nodes)]
    rows += [[f"gpu-{i}", "Ready", "<none>", "12d", VERSION, product] for i in range(gpu_nodes)]
    head = ["NAME", "STATUS", "ROLES", "AGE", "VERSION", "GPU.PRODUCT"]
    return ["$ kubectl get nodes -L nvidia.com/gpu.product", *kubectl_table(head, rows, 3)]


def pods_block(ns: str, job: str, pods: list[str]) -> list[str]:
    get = f"$ kubectl get pods -n {ns} -l batch.kubernetes.io/job-name={job}"
    if not pods:
        return [get, f"No resources found in {ns} namespace."]
    rows = [[name, "0/1", "Pending", "0", "15m"] for name in sorted(pods)]
    return [get, *kubectl_table(["NAME", "READY", "STATUS", "RESTARTS", "AGE"], rows, 3)]


def pod_block(
    ns: str, job: str, pod: str, gpus: int, selector: str | None, tolerates: bool, message: str
) -> list[str]:
    """An excerpt of `kubectl describe pod` for a pending GPU pod of a Job."""
    tolerations = [
        "node.kubernetes.io/not-ready:NoExecute op=Exists for 300s",
        "node.kubernetes.io/unreachable:NoExecute op=Exists for 300s",
    ] + (["nvidia.com/gpu:NoSchedule op=Exists"] if tolerates else [])
    event = ["Warning", "FailedScheduling", "2s (x57 over 15m)", "default-scheduler", message]
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
    ns: str, job: str, pod: str, parallelism: int, gpus: int, used: int, limit: int
) -> list[str]:
    """`kubectl describe job` when a ResourceQuota refuses its pods (FailedCreate)."""
    message = (
        f'Error creating: pods "{pod}" is forbidden: exceeded quota: gpu-quota, requested: '
        f"requests.nvidia.com/gpu={gpus}, used: requests.nvidia.com/gpu={used}, limited: "
        f"requests.nvidia.com/gpu={limit}"
    )
    event = ["Warning", "FailedCreate", "38s (x9 over 14m)", "job-controller", message]
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


def workload_blocks(ns: str, workload: str, flavor: str, more: int) -> list[list[str]]:
    """Kueue's view of a suspended Job: `kubectl get workloads`, then the Workload's events."""
    head = ["NAME", "QUEUE", "RESERVED IN", "ADMITTED", "FINISHED", "AGE"]
    rows = [[workload, "team-gpu", "", "False", "", "14m"]]
    message = (
        "couldn't assign flavors to pod set main: insufficient unused quota for "
        f"nvidia.com/gpu in flavor {flavor}, {more} more needed"
    )
    event = ["Warning", "Pending", "41s (x12 over 14m)", "kueue-admission", message]
    return [
        [f"$ kubectl get workloads -n {ns}", *kubectl_table(head, rows, 3)],
        [f"$ kubectl describe workload {workload} -n {ns}", "[...]", *events_table([event])],
    ]
