"""`kubectl describe node`, `kubectl get nodes` and the NVIDIA device plugin's log.

The drill's fault: after a driver upgrade on the host, the device plugin's NVML init fails
(the kernel module and the user-space library disagree), the plugin advertises no GPUs,
the node's allocatable `nvidia.com/gpu` drops to 0 and GPU pods stay Pending on it.

Formats follow kubectl v1.29 (staging/src/k8s.io/kubectl/pkg/describe/describe.go,
describeNode; https://kubernetes.io/docs/reference/kubectl/generated/kubectl_describe/):
every line goes through one Go text/tabwriter (minwidth 0, tabwidth 8, padding 2, space
padding), so a column is as wide as its widest cell plus two within each run of
consecutive lines that have that cell. That is why "Name:" through "Unschedulable:" share
one value column, why "PodCIDR:" and "Non-terminated Pods:" line up with the System Info
keys and the pods table, and why "Events:  <none>" lines up with the allocated-resources
table. Fields: Name, Roles, Labels (sorted, one per line), Annotations, CreationTimestamp
and condition times in RFC 1123 with a numeric zone (Mon, 02 Jan 2006 15:04:05 -0700),
Taints, Unschedulable, Lease, the Conditions table (each value followed by a space before
its tab, as describe.go writes it), Addresses, Capacity and Allocatable (resources sorted
by name), System Info, PodCIDR(s), Non-terminated Pods (an empty column after Name, from
the "\\t\\t" in describe.go), Allocated resources (extended resources such as
nvidia.com/gpu without percentages), Events. `kubectl get nodes` is the printers'
tabwriter with padding 3 (NAME, STATUS, ROLES, AGE, VERSION). Percentages are
int64(request / allocatable * 100), truncated.

The device plugin's log is klog (`I0515 10:00:01.000000       1 main.go:154] ...`, the
thread id right-aligned in 7), with the messages of NVIDIA/k8s-device-plugin v0.14-v0.15
(cmd/nvidia-device-plugin/main.go and internal/rm/factory.go): "Starting FS watcher.",
"Starting OS watcher.", "Starting Plugins.", "Loading configuration.", "Updating config
with default resource matching patterns.", then on an NVML failure the factory's
"Failed to initialize NVML: ERROR_LIB_RM_VERSION_MISMATCH." and its four hints, and
"No devices found. Waiting indefinitely." (with failOnInitError false, the plugin stays
Running and registers nothing); on success "Starting GRPC server for 'nvidia.com/gpu'",
"Starting to serve 'nvidia.com/gpu' on /var/lib/kubelet/device-plugins/nvidia-gpu.sock"
and "Registered device plugin for 'nvidia.com/gpu' with Kubelet". Public captures:
NVIDIA/k8s-device-plugin#444 and #1371 (startup lines), factory.go's hints as printed in
public troubleshooting notes; the go-nvml error names (ERROR_LIBRARY_NOT_FOUND,
ERROR_LIB_RM_VERSION_MISMATCH) are NVML's nvmlReturn_t. The source line numbers are
v0.14.x's and cosmetic; the multi-line "Running with config:" JSON dump the plugin prints
after loading its configuration is left out (render_device_plugin_log renders
`kubectl logs --tail` lines after it).
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass

RFC1123Z = "%a, %d %b %Y %H:%M:%S %z"


def _cells(line: str) -> list[str]:
    return line.split("\t")


def tabwrite(text: str, padding: int = 2) -> str:
    """Go text/tabwriter (minwidth 0, padchar ' ', no flags): tab-terminated cells in a
    run of consecutive lines that have them are padded to the run's widest + padding."""
    lines = [_cells(line) for line in text.split("\n")]
    out: list[str] = [""] * len(lines)
    widths: list[int] = []

    def write(line0: int, line1: int) -> None:
        for i in range(line0, line1):
            parts = []
            for j, cell in enumerate(lines[i]):
                parts.append(cell.ljust(widths[j]) if j < len(widths) else cell)
            out[i] = "".join(parts)

    def fmt(line0: int, line1: int) -> None:
        column = len(widths)
        this = line0
        while this < line1:
            if column >= len(lines[this]) - 1:
                this += 1
                continue
            write(line0, this)
            line0 = this
            width = 0
            while this < line1 and column < len(lines[this]) - 1:
                width = max(width, len(lines[this][column]) + padding)
                this += 1
            widths.append(width)
            fmt(line0, this)
            widths.pop()
            line0 = this
        write(line0, line1)

    fmt(0, len(lines))
    return "\n".join(out)


def _time(t: datetime.datetime) -> str:
    return t.strftime(RFC1123Z)


@dataclass(frozen=True)
class Condition:
    type: str
    status: str
    heartbeat: datetime.datetime
    transition: datetime.datetime
    reason: str
    message: str


@dataclass(frozen=True)
class Event:
    type: str
    reason: str
    age: str
    source: str
    message: str


@dataclass(frozen=True)
class PodUsage:
    """A non-terminated pod on the node: requests and limits in millicores and MiB."""

    namespace: str
    name: str
    age: str
    cpu_request_m: int = 0
    cpu_limit_m: int = 0
    memory_request_mi: int = 0
    memory_limit_mi: int = 0
    gpus: int = 0


@dataclass(frozen=True)
class NodeDescription:
    name: str
    created: datetime.datetime
    conditions: tuple[Condition, ...]
    internal_ip: str
    capacity: tuple[tuple[str, str], ...]
    allocatable: tuple[tuple[str, str], ...]
    kernel: str
    os_image: str
    container_runtime: str
    kubelet: str
    machine_id: str
    system_uuid: str
    boot_id: str
    renew_time: datetime.datetime
    pod_cidr: str
    roles: str = "<none>"
    labels: tuple[tuple[str, str], ...] = ()
    annotations: tuple[tuple[str, str], ...] = ()
    taints: tuple[str, ...] = ()
    unschedulable: bool = False
    pods: tuple[PodUsage, ...] = ()
    events: tuple[Event, ...] = ()
    architecture: str = "amd64"


def cpu_quantity(millicores: int) -> str:
    """resource.Quantity's canonical CPU: whole cores plain, otherwise millicores."""
    return str(millicores // 1000) if millicores % 1000 == 0 else f"{millicores}m"


def memory_quantity(mib: int) -> str:
    """resource.Quantity's canonical binary form for a MiB count: Gi when whole, else Mi."""
    if mib == 0:
        return "0"
    return f"{mib // 1024}Gi" if mib % 1024 == 0 else f"{mib}Mi"


def _parse_cpu_m(value: str) -> int:
    return int(value[:-1]) if value.endswith("m") else int(value) * 1000


def _parse_mem_mi(value: str) -> float:
    units = {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024, "Ti": 1024**2}
    for suffix, scale in units.items():
        if value.endswith(suffix):
            return int(value[: -len(suffix)]) * scale
    return int(value) / 1024**2


def _pct(part: float, whole: float) -> int:
    return int(part / whole * 100) if whole else 0


def _multiline(key: str, items: Sequence[str]) -> list[str]:
    if not items:
        return [f"{key}\t<none>"]
    return [f"{key}\t{items[0]}", *(f"\t{item}" for item in items[1:])]


def render_describe_node(node: NodeDescription) -> str:
    """`kubectl describe node NAME`."""
    alloc = dict(node.allocatable)
    alloc_cpu = _parse_cpu_m(alloc.get("cpu", "0"))
    alloc_mem = _parse_mem_mi(alloc.get("memory", "0"))
    out = [f"Name:\t{node.name}", f"Roles:\t{node.roles}"]
    out += _multiline("Labels:", [f"{k}={v}" for k, v in sorted(node.labels)])
    out += _multiline("Annotations:", [f"{k}: {v}" for k, v in sorted(node.annotations)])
    out.append(f"CreationTimestamp:\t{_time(node.created)}")
    out += _multiline("Taints:", list(node.taints))
    out.append(f"Unschedulable:\t{'true' if node.unschedulable else 'false'}")
    out += [
        "Lease:",
        f"  HolderIdentity:\t{node.name}",
        "  AcquireTime:\t<unset>",
        f"  RenewTime:\t{_time(node.renew_time)}",
        "Conditions:",
        "  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage",
        "  ----\t------\t-----------------\t------------------\t------\t-------",
    ]
    for c in node.conditions:
        out.append(
            f"  {c.type} \t{c.status} \t{_time(c.heartbeat)} \t{_time(c.transition)} "
            f"\t{c.reason} \t{c.message}"
        )
    out += ["Addresses:", f"  InternalIP:\t{node.internal_ip}", f"  Hostname:\t{node.name}"]
    out.append("Capacity:")
    out += [f"  {k}:\t{v}" for k, v in sorted(node.capacity)]
    out.append("Allocatable:")
    out += [f"  {k}:\t{v}" for k, v in sorted(node.allocatable)]
    out += [
        "System Info:",
        f"  Machine ID:\t{node.machine_id}",
        f"  System UUID:\t{node.system_uuid}",
        f"  Boot ID:\t{node.boot_id}",
        f"  Kernel Version:\t{node.kernel}",
        f"  OS Image:\t{node.os_image}",
        "  Operating System:\tlinux",
        f"  Architecture:\t{node.architecture}",
        f"  Container Runtime Version:\t{node.container_runtime}",
        f"  Kubelet Version:\t{node.kubelet}",
        f"  Kube-Proxy Version:\t{node.kubelet}",
        f"PodCIDR:\t{node.pod_cidr}",
        f"PodCIDRs:\t{node.pod_cidr}",
        f"Non-terminated Pods:\t({len(node.pods)} in total)",
        "  Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge",
        "  ---------\t----\t\t------------\t----------\t---------------\t-------------\t---",
    ]
    for p in node.pods:
        out.append(
            f"  {p.namespace}\t{p.name}\t\t"
            f"{cpu_quantity(p.cpu_request_m)} ({_pct(p.cpu_request_m, alloc_cpu)}%)\t"
            f"{cpu_quantity(p.cpu_limit_m)} ({_pct(p.cpu_limit_m, alloc_cpu)}%)\t"
            f"{memory_quantity(p.memory_request_mi)} ({_pct(p.memory_request_mi, alloc_mem)}%)\t"
            f"{memory_quantity(p.memory_limit_mi)} ({_pct(p.memory_limit_mi, alloc_mem)}%)\t"
            f"{p.age}"
        )
    cpu_req = sum(p.cpu_request_m for p in node.pods)
    cpu_lim = sum(p.cpu_limit_m for p in node.pods)
    mem_req = sum(p.memory_request_mi for p in node.pods)
    mem_lim = sum(p.memory_limit_mi for p in node.pods)
    gpus = sum(p.gpus for p in node.pods)
    out += [
        "Allocated resources:",
        "  (Total limits may be over 100 percent, i.e., overcommitted.)",
        "  Resource\tRequests\tLimits",
        "  --------\t--------\t------",
        f"  cpu\t{cpu_quantity(cpu_req)} ({_pct(cpu_req, alloc_cpu)}%)\t"
        f"{cpu_quantity(cpu_lim)} ({_pct(cpu_lim, alloc_cpu)}%)",
        f"  memory\t{memory_quantity(mem_req)} ({_pct(mem_req, alloc_mem)}%)\t"
        f"{memory_quantity(mem_lim)} ({_pct(mem_lim, alloc_mem)}%)",
        "  ephemeral-storage\t0 (0%)\t0 (0%)",
    ]
    for k in sorted(k for k in alloc if k.startswith("hugepages-")):
        out.append(f"  {k}\t0 (0%)\t0 (0%)")
    extended = sorted(k for k in alloc if "/" in k)
    for k in extended:
        used = gpus if k == "nvidia.com/gpu" else 0
        out.append(f"  {k}\t{used}\t{used}")
    if node.events:
        out += [
            "Events:",
            "  Type\tReason\tAge\tFrom\tMessage",
            "  ----\t------\t----\t----\t-------",
        ]
        out += [f"  {e.type}\t{e.reason}\t{e.age}\t{e.source}\t{e.message}" for e in node.events]
    else:
        out.append("Events:\t<none>")
    return tabwrite("\n".join(out))


@dataclass(frozen=True)
class NodeRow:
    name: str
    status: str
    age: str
    version: str
    roles: str = "<none>"


def render_get_nodes(rows: Sequence[NodeRow]) -> str:
    """`kubectl get nodes` (the printers' tabwriter pads by 3)."""
    lines = ["NAME\tSTATUS\tROLES\tAGE\tVERSION"]
    lines += [f"{r.name}\t{r.status}\t{r.roles}\t{r.age}\t{r.version}" for r in rows]
    return tabwrite("\n".join(lines), padding=3)


def _klog(level: str, at: datetime.datetime, source: str, message: str) -> str:
    return f"{level}{at:%m%d %H:%M:%S}.{at.microsecond:06d} {1:7d} {source}] {message}"


NVML_HINTS = (
    "If this is a GPU node, did you set the docker default runtime to `nvidia`?",
    "You can check the prerequisites at: https://github.com/NVIDIA/k8s-device-plugin#prerequisites",
    "You can learn how to set the runtime at: https://github.com/NVIDIA/k8s-device-plugin#quick-start",
    "If this is not a GPU node, you should set up a toleration or nodeSelector to only "
    "deploy this plugin on GPU nodes",
)


def render_device_plugin_log(
    started: datetime.datetime, nvml_error: str | None = None, tail: int | None = None
) -> str:
    """The plugin container's log from start (or its last `tail` lines): healthy
    registration, or with nvml_error (e.g. "ERROR_LIB_RM_VERSION_MISMATCH") the failed
    init and the indefinite wait that leaves the node with no GPUs to advertise."""
    step = datetime.timedelta(microseconds=137)
    entries: list[tuple[str, str, str]] = [
        ("I", "main.go:154", "Starting FS watcher."),
        ("I", "main.go:161", "Starting OS watcher."),
        ("I", "main.go:176", "Starting Plugins."),
        ("I", "main.go:234", "Loading configuration."),
        ("I", "main.go:242", "Updating config with default resource matching patterns."),
        ("I", "main.go:256", "Retrieving plugins."),
    ]
    if nvml_error is not None:
        entries.append(("E", "factory.go:99", f"Failed to initialize NVML: {nvml_error}."))
        entries += [("E", f"factory.go:{100 + i}", hint) for i, hint in enumerate(NVML_HINTS)]
        entries.append(("I", "main.go:287", "No devices found. Waiting indefinitely."))
    else:
        sock = "/var/lib/kubelet/device-plugins/nvidia-gpu.sock"
        entries += [
            ("I", "server.go:165", "Starting GRPC server for 'nvidia.com/gpu'"),
            ("I", "server.go:117", f"Starting to serve 'nvidia.com/gpu' on {sock}"),
            ("I", "server.go:125", "Registered device plugin for 'nvidia.com/gpu' with Kubelet"),
        ]
    lines = [_klog(lv, started + i * step, src, msg) for i, (lv, src, msg) in enumerate(entries)]
    return "\n".join(lines if tail is None else lines[-tail:])
