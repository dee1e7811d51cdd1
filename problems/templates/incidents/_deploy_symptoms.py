"""The symptoms deployment-failure-class draws: for each, its class, the check that would
have caught it, the explanation and the named slips, and the tool output that shows it
(kubectl, container logs, the node's kernel log). Data and formatting; registers no
template."""

from __future__ import annotations

import random
from typing import Any

from hardware_db import catalog

MODELS: dict[str, str] = {
    "llama-3.1-8b": "meta-llama/Llama-3.1-8B-Instruct",
    "llama-3.1-70b": "meta-llama/Llama-3.1-70B-Instruct",
    "qwen2.5-72b": "Qwen/Qwen2.5-72B-Instruct",
    "mixtral-8x7b": "mistralai/Mixtral-8x7B-Instruct-v0.1",
}
SHARDS = {"llama-3.1-8b": 4, "llama-3.1-70b": 30, "qwen2.5-72b": 37, "mixtral-8x7b": 19}
# nvidia-smi / torch device name, compute capability
DEVICE = {
    "a100-sxm-80gb": ("NVIDIA A100-SXM4-80GB", "sm_80"),
    "h100-sxm": ("NVIDIA H100 80GB HBM3", "sm_90"),
    "h200": ("NVIDIA H200", "sm_90"),
    "b200": ("NVIDIA B200", "sm_100"),
    "l40s": ("NVIDIA L40S", "sm_89"),
}
CLASSES: dict[str, str] = {
    "allocation": "the pod never got the GPUs it asked for",
    "compatibility": "the software cannot run on this GPU or this driver",
    "startup": "the container runs on its GPUs but never becomes ready",
    "device-health": "a GPU itself is failing",
}
SIGNALS: dict[str, str] = {
    "scheduler-check": "alert on Pending pods' scheduler events, and check GPU quota and free "
    "capacity before the rollout",
    "compat-check": "a CI job or start-up self-test that runs a CUDA kernel on the target GPU "
    "architecture and driver",
    "sizing-check": "a pre-rollout check that each replica's GPUs hold the weights (plus the "
    "KV cache and activations the server reserves)",
    "startup-probe": "a startup probe that allows for the weight load before readiness and "
    "liveness take over",
    "health-watch": "DCGM health watches or a node problem detector that cordon a node whose "
    "GPU reports Xid or ECC errors",
}


def fit_state(model: str, accelerator: str, gpus: int) -> str:
    """'fits' (BF16 weights under 80% of each GPU), 'too-big' (over all of it) or 'tight'."""
    share = catalog.model(model).total_params * 2 / gpus
    usable = catalog.accelerator(accelerator).usable_gib * 2**30
    if share <= 0.8 * usable:
        return "fits"
    return "too-big" if share > usable else "tight"


def fits(model: str, accelerator: str, gpus: int) -> bool | None:
    """True when the weights fit and half the GPUs would not (a team sizes sensibly),
    False when they cannot fit, None when it is too close to call."""
    state = fit_state(model, accelerator, gpus)
    if state == "too-big":
        return False
    if state == "tight":
        return None
    if gpus > 1 and fit_state(model, accelerator, gpus // 2) == "fits":
        return None
    return True


def _table(head: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    fmt = lambda r: "  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True))  # noqa: E731
    dashes = tuple("-" * len(h) for h in head)
    return [fmt(head).rstrip(), fmt(dashes).rstrip(), *(fmt(r).rstrip() for r in rows)]


def _mmss(seconds: float) -> str:
    return f"{int(seconds) // 60:02d}:{int(seconds) % 60:02d}"


def _events(rows: list[tuple[str, ...]]) -> list[str]:
    return ["Events:", *_table(("Type", "Reason", "Age", "From", "Message"), rows)]


def render(p: Any) -> tuple[str, str]:
    """(where the evidence comes from, the evidence) for these parameters."""
    rng = random.Random(f"deploy|{p.symptom}|{p.model}|{p.accelerator}|{p.gpus}|{p.detail_seed}")
    app = "vllm-" + p.model.replace(".", "-")
    rs = "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(rng.choice((9, 10))))
    pod = f"{app}-{rs}-{''.join(rng.choice('bcdfghjklmnpqrstvwxz2456789') for _ in range(5))}"
    name, sm = DEVICE[p.accelerator]
    s = p.symptom
    if s == "insufficient-gpu":
        n = rng.randint(3, 12)
        x = rng.randint(20, 90)
        msg = (
            f"0/{n} nodes are available: {n} Insufficient nvidia.com/gpu. preemption: 0/{n} "
            f"nodes are available: {n} No preemption victims found for incoming pod."
        )
        return "Describing one of the new pods shows:", "\n".join(
            [
                f"$ kubectl describe pod {pod}",
                "[...]",
                "Status:           Pending",
                "[...]",
                *_events(
                    [
                        (
                            "Warning",
                            "FailedScheduling",
                            f"{rng.randint(2, 50)}s (x{x} over {x // 4 + 1}m)",
                            "default-scheduler",
                            msg,
                        )
                    ]
                ),
            ]
        )
    if s == "quota-exceeded":
        limit = rng.choice((16, 24, 32, 64))
        used = limit - rng.randint(0, p.gpus - 1)
        msg = (
            f'Error creating: pods "{pod}" is forbidden: exceeded quota: gpu-quota, requested: '
            f"requests.nvidia.com/gpu={p.gpus}, used: requests.nvidia.com/gpu={used}, "
            f"limited: requests.nvidia.com/gpu={limit}"
        )
        x = rng.randint(5, 30)
        return "No new pod appears; the ReplicaSet's events show:", "\n".join(
            [
                f"$ kubectl describe replicaset {app}-{rs}",
                "[...]",
                *_events(
                    [
                        (
                            "Warning",
                            "FailedCreate",
                            f"{rng.randint(1, 9)}m (x{x} over {x + rng.randint(2, 20)}m)",
                            "replicaset-controller",
                            msg,
                        )
                    ]
                ),
            ]
        )
    if s == "no-kernel-image":
        caps = "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86" + (" sm_90" if sm == "sm_100" else "")
        return "The container log of a new pod (a custom-built image) ends with:", "\n".join(
            [
                f"$ kubectl logs {pod}",
                "[...]",
                "/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:235: UserWarning:",
                f"{name} with CUDA capability {sm} is not compatible with the current PyTorch "
                "installation.",
                f"The current PyTorch install supports CUDA capabilities {caps}.",
                "[...]",
                "RuntimeError: CUDA error: no kernel image is available for execution on the "
                "device",
            ]
        )
    if s == "driver-too-old":
        return "The container log of a new pod ends with:", "\n".join(
            [
                f"$ kubectl logs {pod}",
                "[...]",
                "RuntimeError: The NVIDIA driver on your system is too old (found version 12020). "
                "Please update your GPU driver by downloading and installing a new version from "
                "the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: "
                "https://pytorch.org to install a PyTorch version that has been compiled with "
                "your version of the CUDA driver.",
            ]
        )
    if s == "oom-weight-load":
        total = catalog.accelerator(p.accelerator).usable_gib - 0.46
        free = rng.randint(120, 900)
        want = rng.choice((448.0, 896.0, 1.75, 3.5))
        want_txt = f"{want:.2f} MiB" if want > 100 else f"{want:.2f} GiB"
        restarts = rng.randint(3, 7)
        return "The new pods restart again and again:", "\n".join(
            [
                f"$ kubectl get pod {pod}",
                "NAME" + " " * (len(pod) - 2) + "READY   STATUS             RESTARTS      AGE",
                f"{pod}  0/1     CrashLoopBackOff   {restarts} ({rng.randint(10, 59)}s ago)   "
                f"{restarts * 2 + rng.randint(1, 5)}m",
                f"$ kubectl logs {pod} --previous | tail -1",
                f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {want_txt}. "
                f"GPU 0 has a total capacity of {total:.2f} GiB of which {free:.2f} MiB is free. "
                f"Including non-PyTorch memory, this process has {total - free / 1024:.2f} GiB "
                "memory in use.",
            ]
        )
    if s == "liveness-kills-load":
        ip = f"10.244.{rng.randint(0, 40)}.{rng.randint(2, 250)}"
        total = SHARDS[p.model]
        # delay=30s, period=10s, failureThreshold=3: killed about 60 s after the start;
        # the load begins 12-25 s in and would need at least 90 s, so it never finishes.
        elapsed = 60 - rng.randint(12, 25) - rng.uniform(0, 4)
        per_shard = rng.uniform(max(4.0, 90 / total), max(4.0, 90 / total) + 6)
        per_shard = min(per_shard, elapsed)  # at least one shard done before the kill
        done = int(elapsed // per_shard)
        per_shard = elapsed / done  # tqdm shows the average so far
        k = rng.randint(3, 6)
        tqdm = (
            f"Loading safetensors checkpoint shards: {round(100 * done / total):3d}% Completed | "
            f"{done}/{total} [{_mmss(elapsed)}<{_mmss((total - done) * per_shard)}, "
            f"{per_shard:.2f}s/it]"
        )
        return "Describing one of the new pods shows:", "\n".join(
            [
                f"$ kubectl describe pod {pod}",
                "[...]",
                "    Liveness:   http-get http://:8000/health delay=30s timeout=1s period=10s "
                "#success=1 #failure=3",
                "[...]",
                *_events(
                    [
                        (
                            "Normal",
                            "Started",
                            f"{rng.randint(2, 5)}m (x{k} over {k * 3}m)",
                            "kubelet",
                            "Started container vllm",
                        ),
                        (
                            "Warning",
                            "Unhealthy",
                            f"{rng.randint(5, 50)}s (x{k * 3} over {k * 3}m)",
                            "kubelet",
                            f'Liveness probe failed: Get "http://{ip}:8000'
                            f'/health": dial tcp {ip}:8000: connect: connection refused',
                        ),
                        (
                            "Normal",
                            "Killing",
                            f"{rng.randint(5, 50)}s (x{k} over {k * 3}m)",
                            "kubelet",
                            "Container vllm failed liveness probe, will be restarted",
                        ),
                    ]
                ),
                f"$ kubectl logs {pod} --previous | tail -1",
                tqdm,
            ]
        )
    if s == "ecc-uncorrectable":
        return "Replicas on one node crash; that pod's log ends with:", "\n".join(
            [
                f"$ kubectl logs {pod}",
                "[...]",
                "RuntimeError: CUDA error: uncorrectable ECC error encountered",
                "CUDA kernel errors might be asynchronously reported at some other API call, so "
                "the stacktrace below might be incorrect.",
                "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
            ]
        )
    bus = rng.choice((0x18, 0x2A, 0x3A, 0x5D, 0x9A, 0xAB, 0xBA, 0xDB))
    node = f"gpu-node-{rng.randint(1, 48):02d}"
    stamp = (
        f"[Tue Mar {rng.randint(10, 28)} {rng.randint(10, 23)}:{rng.randint(10, 59)}:"
        f"{rng.randint(10, 59)} 2025]"
    )
    return f"Replicas scheduled on `{node}` crash-loop; the node's kernel log shows:", "\n".join(
        [
            f"root@{node}:~# dmesg -T | grep NVRM | tail -2",
            f"{stamp} NVRM: Xid (PCI:0000:{bus:02x}:00): 79, pid='<unknown>', name=<unknown>, "
            "GPU has fallen off the bus.",
            f"{stamp} NVRM: GPU 0000:{bus:02x}:00.0: GPU has fallen off the bus.",
        ]
    )
