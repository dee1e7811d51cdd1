"""Kubernetes views of the drill's cluster (a serving deployment, one replica per GPU
node), and what the host prints when the NVIDIA user-space driver and the loaded kernel
module disagree.

- `kubectl get pods -o wide` and the custom-columns node listing use the printers'
  tabwriter with padding 3 (scheduling/_kubectl.kubectl_table); AGE is apimachinery's
  HumanDuration (_kubectl.human_duration). Columns of `-o wide`: NAME READY STATUS
  RESTARTS AGE IP NODE NOMINATED NODE READINESS GATES (kubectl get, "wide" output).
- `kubectl get nodes -o custom-columns=NAME:.metadata.name,GPUS:.status.allocatable.
  nvidia\\.com/gpu` prints the allocatable count the device plugin registered, "<none>"
  when the resource is absent (kubectl's custom-columns printer).
- `kubectl describe node` and the device plugin's log are problems/drills/tools/
  kubectl_node.py's renderers (kubectl v1.29 describe layout; k8s-device-plugin v0.14
  messages, including "Failed to initialize NVML: ERROR_LIB_RM_VERSION_MISMATCH").
- The scheduler's FailedScheduling event for the Pending replica is _kubectl's message
  ("0/N nodes are available: N Insufficient nvidia.com/gpu. preemption: ...").
- With the user-space library newer than the loaded module, nvidia-smi prints "Failed to
  initialize NVML: Driver/library version mismatch" and "NVML library version: <major.
  minor>" (render/smi.py); the kernel logs the module's "API mismatch" notice ("NVRM: API
  mismatch: the client has the version X, but NVRM: this kernel module has the version
  Y. ..."), as public reports of half-finished driver upgrades show them
  (NVIDIA/nvidia-docker and k8s-device-plugin issues). A reboot loads the new module.
"""

from __future__ import annotations

import datetime
import zlib

from problems.drills.cluster import Cluster, Node
from problems.drills.tools.kubectl_node import (
    Condition,
    NodeDescription,
    NodeRow,
    PodUsage,
    render_describe_node,
    render_device_plugin_log,
    render_get_nodes,
)
from problems.templates.incidents._vllm import GREP
from problems.templates.incidents.vllm_metrics import scrape
from problems.templates.scheduling._kubectl import (
    SHORT,
    VERSION,
    event_age,
    human_duration,
    kubectl_table,
    scheduler_message,
)

UTC = datetime.UTC
MISMATCH = "ERROR_LIB_RM_VERSION_MISMATCH"


def _age(state: Cluster, t: datetime.datetime) -> str:
    return human_duration(int((state.now - t).total_seconds()))


def get_pods(state: Cluster) -> str:
    head = ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE"]
    head.append("READINESS GATES")
    rows = []
    for p in state.pods:
        ready = "1/1" if p.phase == "Running" else "0/1"
        rows.append(
            [p.name, ready, p.phase, str(p.restarts), _age(state, p.created), p.ip or "<none>",
             p.node or "<none>", "<none>", "<none>"]
        )  # fmt: skip
    cmd = f"$ kubectl get pods -n {state.namespace} -l app={state.deployment} -o wide"
    return "\n".join([cmd, *kubectl_table(head, rows, 3)])


def gpu_allocatable(state: Cluster) -> str:
    cmd = (
        "$ kubectl get nodes -l nvidia.com/gpu.present=true -o custom-columns="
        "NAME:.metadata.name,GPUS:.status.allocatable.nvidia\\.com/gpu"
    )
    rows = [[n.hostname, str(n.k8s_gpus)] for n in state.nodes]
    return "\n".join([cmd, *kubectl_table(["NAME", "GPUS"], rows, 3)])


def pending_events(state: Cluster) -> str:
    cmd = f"$ kubectl get events -n {state.namespace} --field-selector reason=FailedScheduling"
    pending = [p for p in state.pods if p.phase == "Pending"]
    if not pending:
        return f"{cmd}\nNo resources found in {state.namespace} namespace."
    rows = []
    n = len(state.nodes)
    for p in pending:
        since = int((state.now - p.created).total_seconds())
        count = max(2, since // 60)
        msg = scheduler_message({SHORT: n})
        rows.append(
            [event_age(30, count, since), "Warning", "FailedScheduling", f"pod/{p.name}", msg]
        )
    head = ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    return "\n".join([cmd, *kubectl_table(head, rows, 3)])


def _ip(state: Cluster, node: Node) -> str:
    return f"10.20.{zlib.crc32(node.hostname.encode()) % 200 + 1}.{state.nodes.index(node) + 11}"


def describe_node(state: Cluster, node: Node) -> str:
    now = state.now.replace(tzinfo=UTC)
    created = node.boot.replace(tzinfo=UTC) - datetime.timedelta(days=120)
    ok = [
        ("MemoryPressure", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        ("DiskPressure", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        ("PIDPressure", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    ]
    conditions = [
        Condition(kind, "False", now, node.boot.replace(tzinfo=UTC), reason, msg)
        for kind, reason, msg in ok
    ]
    conditions.append(
        Condition("Ready", "True", now, node.boot.replace(tzinfo=UTC), "KubeletReady",
                  "kubelet is posting ready status")
    )  # fmt: skip
    pods = tuple(
        PodUsage(state.namespace, p.name, _age(state, p.created), 16000, 32000, 131072, 262144, 8)
        for p in state.pods
        if p.node == node.hostname
    )
    seed = zlib.crc32(f"{state.seed}|{node.hostname}".encode())
    boot = zlib.crc32(f"{seed}|{node.boot}".encode())  # a new boot id after each reboot
    gpus = ("nvidia.com/gpu", str(node.k8s_gpus))
    desc = NodeDescription(
        name=node.hostname,
        created=created,
        conditions=tuple(conditions),
        internal_ip=_ip(state, node),
        capacity=(("cpu", "224"), ("memory", "2113389236Ki"), gpus, ("pods", "110")),
        allocatable=(("cpu", "222"), ("memory", "2103006900Ki"), gpus, ("pods", "110")),
        kernel="5.15.0-122-generic",
        os_image="Ubuntu 22.04.5 LTS",
        container_runtime="containerd://1.7.22",
        kubelet=VERSION,
        machine_id=f"{seed:08x}" * 4,
        system_uuid=f"{seed:08x}-{seed % 65536:04x}-4e2a-9c1d-{seed * 7919 % 16**12:012x}",
        boot_id=f"{boot:08x}-{seed % 4099:04x}-4b7e-8f3a-{seed * 104729 % 16**12:012x}",
        renew_time=now,
        pod_cidr=f"10.244.{state.nodes.index(node)}.0/24",
        labels=(("kubernetes.io/hostname", node.hostname), ("nvidia.com/gpu.present", "true")),
        pods=pods,
    )  # fmt: skip
    return f"$ kubectl describe node {node.hostname}\n{render_describe_node(desc)}"


def plugin_pod(state: Cluster, node: Node) -> str:
    return f"nvidia-device-plugin-daemonset-{zlib.crc32(node.hostname.encode()) % 36**5:05x}"


def device_plugin_log(state: Cluster, node: Node) -> str:
    cmd = f"$ kubectl logs -n gpu-operator {plugin_pod(state, node)} --tail=20"
    started = node.plugin_started or node.boot
    error = MISMATCH if node.kernel_driver else None
    return f"{cmd}\n{render_device_plugin_log(started.replace(tzinfo=UTC), error)}"


def api_mismatch_lines(state: Cluster, node: Node, at: datetime.datetime) -> list[str]:
    stamp = f"[{at:%a %b} {at.day:2d} {at:%H:%M:%S %Y}]"
    text = (
        f"NVRM: API mismatch: the client has the version {state.driver}, but",
        f"NVRM: this kernel module has the version {node.kernel_driver}.  Please",
        "NVRM: make sure that this kernel module and all NVIDIA driver",
        "NVRM: components have the same version.",
    )
    return [f"{stamp} {line}" for line in text]


def get_nodes(state: Cluster) -> str:
    rows = [
        NodeRow(
            n.hostname,
            "Ready,SchedulingDisabled" if n.cordoned else "Ready",
            _age(state, n.boot - datetime.timedelta(days=120)),
            VERSION,
        )
        for n in state.nodes
    ]
    return "$ kubectl get nodes\n" + render_get_nodes(rows)


def vllm_metrics(state: Cluster, name: str) -> str:
    """Two scrapes of the pod's vLLM /metrics, 30 s apart, in the V0 engine's text as
    problems/templates/incidents/vllm_metrics.py prints them (its HELP/TYPE lines, the
    cache config labels, Go-style floats)."""
    cmd = f"$ kubectl exec -n {state.namespace} {name} -- curl -s localhost:8000/metrics | {GREP}"
    pod = next((p for p in state.pods if p.name == name), None)
    if pod is None or not pod.metrics:  # deleted (its replacement has a new name)
        return f'{cmd}\nError from server (NotFound): pods "{name}" not found'
    params = pod.metrics[0]
    out = []
    for i in (0, 1):
        if i:
            out.append(f"$ sleep {params.interval_s}")
        body = scrape(params, i).split("\n", 1)[1]
        cmd = (
            f"$ kubectl exec -n {state.namespace} {name} -- curl -s localhost:8000/metrics | {GREP}"
        )
        out += [cmd, body]
    return "\n".join(out)
