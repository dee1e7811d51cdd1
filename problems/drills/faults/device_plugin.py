"""The Kubernetes device plugin no longer advertising a node's GPUs after a driver upgrade.

The story: an upgrade job drained the node, installed a newer NVIDIA driver's user-space
packages, and uncordoned it without the reboot (or module reload) that loads the new
kernel module. From then on NVML refuses to initialise (nvidia-smi: "Failed to
initialize NVML: Driver/library version mismatch"; the kernel: "NVRM: API mismatch"),
the NVIDIA device plugin logs "Failed to initialize NVML: ERROR_LIB_RM_VERSION_MISMATCH"
and "No devices found. Waiting indefinitely." (k8s-device-plugin, internal/rm/
factory.go; its README's troubleshooting), so the kubelet reports nvidia.com/gpu 0 for
the node (kubernetes.io/docs/concepts/extend-kubernetes/compute-storage-net/
device-plugins/). The serving replica the drain evicted cannot be placed: every other
GPU node is full, so it stays Pending with "Insufficient nvidia.com/gpu". Restarting the
plugin changes nothing while the versions differ; rebooting the node loads the
installed module and the plugin registers the GPUs again. Healthy noise: another GPU
node has been cordoned for weeks (its own maintenance) and serves nothing.
"""

from __future__ import annotations

import datetime
import random
import zlib
from dataclasses import replace

from problems.drills.cluster import Cluster, Node, Pod
from problems.drills.faults.base import Planted, alert
from problems.templates._era import DRIVERS

KIND = "device-plugin"
SLUG = "drill-device-plugin"
NODES = 8
MODELS = ("llama-3-70b", "qwen2-72b", "mixtral-8x22b", "llama-3-405b-fp8")


def _older(version: str) -> str:
    """The driver the node ran before the upgrade: the newest published before this one."""
    out_by = DRIVERS[version].out_by
    return max((d for d in DRIVERS.values() if d.out_by < out_by), key=lambda d: d.out_by).version


def _pod_name(deployment: str, rs: str, rng: random.Random) -> str:
    return f"{deployment}-{rs}-" + "".join(
        rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5)
    )


def plant(state: Cluster, rng: random.Random) -> Planted:
    deployment = f"vllm-{rng.choice(MODELS)}"
    rs = f"{rng.getrandbits(36):09x}"[:9].replace("0", "7")
    old = next(n for n in state.nodes if n.slurm_state == "drained")  # the noise node
    nodes = [n for n in state.nodes if n is not old]
    bad = rng.choice(nodes)
    upgraded = state.now - datetime.timedelta(
        minutes=rng.randint(25, 55), seconds=rng.randint(0, 59)
    )
    fresh: list[Node] = []
    for n in state.nodes:
        idle = [
            replace(g, util=0, used_mib=0, watts=min(g.watts, 90), temp=min(g.temp, 36))
            for g in n.gpus
        ]
        busy = [
            replace(
                g,
                util=rng.randint(60, 97),
                used_mib=g.total_mib * 9 // 10,
                watts=max(g.watts, g.cap // 2),
            )
            for g in n.gpus
        ]
        if n is old:
            fresh.append(replace(n, gpus=tuple(idle), slurm_state="idle", cordoned=True))
        elif n is bad:
            fresh.append(
                replace(n, gpus=tuple(idle), slurm_state="idle", kernel_driver=_older(state.driver),
                        k8s_gpus=0, plugin_started=upgraded)
            )  # fmt: skip
        else:
            fresh.append(replace(n, gpus=tuple(busy), slurm_state="idle"))
    pods = []
    for k, n in enumerate(fresh):
        if n.cordoned or n.hostname == bad.hostname:
            continue
        created = state.now - datetime.timedelta(
            days=rng.randint(3, 20), minutes=rng.randint(0, 600)
        )
        ip = f"10.244.{k}.{zlib.crc32(n.hostname.encode()) % 250 + 2}"
        pods.append(
            Pod(
                _pod_name(deployment, rs, rng),
                n.hostname,
                "Running",
                8,
                created,
                rng.randint(0, 1),
                ip,
            )
        )
    pending = Pod(
        _pod_name(deployment, rs, rng), "", "Pending", 8, upgraded - datetime.timedelta(minutes=6)
    )
    pods.insert(rng.randrange(len(pods) + 1), pending)
    state = replace(
        state,
        nodes=tuple(fresh),
        scheduler="kubernetes",
        pods=tuple(pods),
        deployment=deployment,
        jobs=state.jobs,
    )
    running = len(pods) - 1
    page = alert(
        "KubeDeploymentReplicasMismatch",
        {"namespace": state.namespace, "deployment": deployment, "severity": "page"},
        f"Deployment {state.namespace}/{deployment} has {running} of {len(pods)} replicas "
        "available for more than 15 minutes.",
        upgraded + datetime.timedelta(minutes=15),
    )
    host = bad.hostname
    return Planted(
        state=state,
        alert=page,
        fault=KIND,
        location=host,
        remedy="reboot-node",
        expert_path=("kubectl-get-pods", "gpu-allocatable", f"plugin-log@{host}"),
        handling=frozenset({f"reboot@{host}", f"k8s-drain@{host}"}),
    )
