"""The actions of a drill whose cluster runs Kubernetes (a serving deployment, one
replica per 8-GPU node) rather than Slurm.

How the acts change the cluster (kubernetes.io/docs: "Safely Drain a Node", "Device
Plugins"; NVIDIA k8s-device-plugin README):

- Deleting a replica's pod: its ReplicaSet creates a new pod at once and the scheduler
  places it on a node with 8 free allocatable nvidia.com/gpu, else it stays Pending.
- Restarting the device plugin's pod: it starts again and registers the GPUs only if NVML
  initialises; with the library and the kernel module at different versions it does not.
- `kubectl drain`: cordons the node and evicts its pods, which are rescheduled as above.
- Reboot: loads the installed kernel module (so an upgrade that stopped before the reboot
  completes), the plugin starts and registers the node's 8 GPUs, and Pending pods are
  scheduled onto it; the node's own pods restart.
"""

from __future__ import annotations

import zlib
from dataclasses import replace

from problems.drills.actions import Action, Run, _look, _set_busy
from problems.drills.cluster import Cluster, Pod
from problems.drills.render import k8s, logs, smi


def _free(state: Cluster, host: str) -> int:
    node = state.node(host)
    used = sum(p.gpus for p in state.pods if p.node == host and p.phase == "Running")
    return 0 if node.cordoned else node.k8s_gpus - used


def schedule(state: Cluster) -> Cluster:
    """Place every Pending pod on the first node (by name) with room for it."""
    pods = list(state.pods)
    for k, p in enumerate(pods):
        if p.phase != "Pending":
            continue
        for node in sorted(state.nodes, key=lambda n: n.hostname):
            if _free(state.with_pods(tuple(pods)), node.hostname) >= p.gpus:
                ip = f"10.244.{state.nodes.index(node)}.{zlib.crc32(p.name.encode()) % 250 + 2}"
                pods[k] = replace(p, node=node.hostname, phase="Running", ip=ip)
                break
    state = state.with_pods(tuple(pods))
    for node in state.nodes:  # GPUs are busy where a replica runs, idle elsewhere
        busy = any(p.node == node.hostname and p.phase == "Running" for p in state.pods)
        if busy != any(g.used_mib for g in node.gpus):
            state = state.with_node(_set_busy(node, busy))
    return state


def replacement(state: Cluster, pod: Pod) -> Pod:
    """The pod a ReplicaSet creates for one that is gone: same template, a new suffix."""
    stem = pod.name.rsplit("-", 1)[0]
    h = zlib.crc32(f"{pod.name}|{state.now}".encode())
    suffix = "".join("bcdfghjklmnpqrstvwxz2456789"[(h >> (5 * i)) % 27] for i in range(5))
    return Pod(f"{stem}-{suffix}", "", "Pending", pod.gpus, state.now)


def _evict(state: Cluster, host: str) -> Cluster:
    pods = tuple(replacement(state, p) if p.node == host else p for p in state.pods)
    return schedule(state.with_pods(pods))


def delete_pod(name: str) -> Run:
    def run(state: Cluster) -> tuple[str, Cluster]:
        cmd = f"$ kubectl delete pod -n {state.namespace} {name}"
        pod = next((p for p in state.pods if p.name == name), None)
        if pod is None:
            return f'{cmd}\nError from server (NotFound): pods "{name}" not found', state
        pods = tuple(replacement(state, p) if p.name == name else p for p in state.pods)
        return f'{cmd}\npod "{name}" deleted', schedule(state.with_pods(pods))

    return run


def restart_plugin(host: str) -> Run:
    def run(state: Cluster) -> tuple[str, Cluster]:
        node = state.node(host)
        name = k8s.plugin_pod(state, node)
        node = replace(node, plugin_started=state.now, k8s_gpus=0 if node.kernel_driver else 8)
        state = schedule(state.with_node(node))
        return f'$ kubectl delete pod -n gpu-operator {name}\npod "{name}" deleted', state

    return run


def drain(host: str) -> Run:
    def run(state: Cluster) -> tuple[str, Cluster]:
        out = [f"$ kubectl drain {host} --ignore-daemonsets --delete-emptydir-data"]
        out.append(f"node/{host} cordoned")
        for p in state.pods:
            if p.node == host:
                out.append(f"evicting pod {state.namespace}/{p.name}")
                out.append(f"pod/{p.name} evicted")
        out.append(f"node/{host} drained")
        state = state.with_node(replace(state.node(host), cordoned=True))
        return "\n".join(out), _evict(state, host)

    return run


def reboot(host: str) -> Run:
    def run(state: Cluster) -> tuple[str, Cluster]:
        node = replace(
            state.node(host),
            kernel_driver="",
            k8s_gpus=8,
            xids=(),
            boot=state.now,
            plugin_started=state.now,
        )
        state = _evict(state.with_node(node), host)
        out = [
            f"root@{host}:~# reboot",
            f"Connection to {host} closed by remote host.",
            f"$ ssh {host} uptime",
            f" {state.now:%H:%M:%S} up 4 min,  0 users,  load average: 0.42, 0.25, 0.10",
        ]
        return "\n".join(out), state

    return run


def catalogue(state: Cluster) -> tuple[Action, ...]:
    acts = [
        Action("kubectl-get-pods", f"kubectl get pods -o wide ({state.deployment})", "cluster",
               1, False, _look(k8s.get_pods)),
        Action("kubectl-get-nodes", "kubectl get nodes", "cluster", 1, False,
               _look(k8s.get_nodes)),
        Action("gpu-allocatable", "kubectl: allocatable nvidia.com/gpu per node", "cluster", 1,
               False, _look(k8s.gpu_allocatable)),
        Action("sched-events", "kubectl get events (FailedScheduling)", "cluster", 1, False,
               _look(k8s.pending_events)),
    ]  # fmt: skip
    for n in state.nodes:
        h, t = n.hostname, f"node:{n.hostname}"

        def on(render, h=h):
            return _look(lambda s: render(s, s.node(h)))

        acts += [
            Action(f"nvidia-smi@{h}", f"nvidia-smi on {h}", t, 1, False, on(smi.nvidia_smi)),
            Action(f"dmesg@{h}", f"dmesg -T | grep -i nvrm on {h}", t, 1, False,
                   on(logs.dmesg_xid)),
            Action(f"describe-node@{h}", f"kubectl describe node {h}", t, 1, False,
                   on(k8s.describe_node)),
            Action(f"plugin-log@{h}", f"device plugin log on {h}", t, 1, False,
                   on(k8s.device_plugin_log)),
            Action(f"restart-plugin@{h}", f"restart the device plugin pod on {h}", t, 2, False,
                   restart_plugin(h)),
            Action(f"k8s-drain@{h}", f"kubectl drain {h}", t, 2, True, drain(h)),
            Action(f"reboot@{h}", f"reboot {h}", t, 10, True, reboot(h)),
        ]  # fmt: skip
    for p in state.pods:
        if p.metrics:
            look = _look(lambda s, name=p.name: k8s.vllm_metrics(s, name))
            label = f"vLLM /metrics of {p.name} (two scrapes)"
            acts.append(Action(f"vllm-metrics@{p.name}", label, f"pod:{p.name}", 1, False, look))
        if p.phase == "Running":
            acts.append(
                Action(f"delete-pod@{p.name}", f"restart pod {p.name} (kubectl delete pod)",
                       f"pod:{p.name}", 1, True, delete_pod(p.name))
            )  # fmt: skip
    return tuple(acts)
