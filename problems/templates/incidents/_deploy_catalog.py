"""What each deployment-failure-class symptom means: its class, the check that would have
caught it, the worked explanation and the named slips. Data only; registers no template."""

from __future__ import annotations

_PENDING = (
    "A Pending pod has not been placed on any node, so no container ever started: this is "
    "allocation, not startup."
)
_NO_PROBE = "Probes run inside a container; this pod never got one, so no probe can fire."
_SOFT_DCGM = (
    "DCGM and the node problem detector watch the hardware, which is healthy here; the "
    "mismatch is between the software and the GPU or driver."
)
# symptom: (class, signal, explanation, ((part, value, code, feedback), ...))
SYMPTOMS: dict[str, tuple[str, str, str, tuple[tuple[str, str, str, str], ...]]] = {
    "insufficient-gpu": (
        "allocation",
        "scheduler-check",
        "The pod is Pending and the scheduler says why: no node has enough free "
        "`nvidia.com/gpu`, and preempting lower-priority pods would not free any. The "
        "container never started. An alert on FailedScheduling, and a capacity check before "
        "the rollout, catch it before any user request is routed to the new version.",
        (
            ("failure_class", "startup", "pending-as-startup", _PENDING),
            ("signal", "startup-probe", "probe-for-unscheduled-pod", _NO_PROBE),
        ),
    ),
    "quota-exceeded": (
        "allocation",
        "scheduler-check",
        "The ReplicaSet cannot even create the pod: the namespace's ResourceQuota allows "
        "fewer GPUs than those already requested plus this replica's. Checking the quota "
        "(and watching FailedCreate events) before the rollout catches it.",
        (
            (
                "failure_class",
                "startup",
                "pending-as-startup",
                "The pod was never created, "
                "let alone started: the quota refused it. That is allocation.",
            ),
            ("signal", "startup-probe", "probe-for-unscheduled-pod", _NO_PROBE),
        ),
    ),
    "no-kernel-image": (
        "compatibility",
        "compat-check",
        "PyTorch in the image was built without this GPU's architecture, so no compiled "
        "kernel matches the device. The GPU is fine; the image is wrong for it. A CI job or "
        "start-up self-test that runs one kernel on the target architecture catches it.",
        (
            (
                "failure_class",
                "device-health",
                "cuda-error-as-device-fault",
                '"On the '
                'device" names where the kernel would run, not a fault in it: the warning above '
                "says the install does not support this architecture.",
            ),
            ("signal", "health-watch", "dcgm-for-software-fault", _SOFT_DCGM),
        ),
    ),
    "driver-too-old": (
        "compatibility",
        "compat-check",
        "The CUDA runtime the image's PyTorch was built for needs a newer driver than the "
        "node has (12020 means the driver supports CUDA 12.2 at most). Test images "
        "against the fleet's driver version in CI, or run a start-up self-test.",
        (
            (
                "failure_class",
                "device-health",
                "cuda-error-as-device-fault",
                "An old driver "
                "is a version mismatch between the image and the node, not a failing GPU.",
            ),
            ("signal", "health-watch", "dcgm-for-software-fault", _SOFT_DCGM),
        ),
    ),
    "oom-weight-load": (
        "startup",
        "sizing-check",
        "The pod got its GPUs and the container started, but the BF16 weights' share per "
        "GPU is larger than a GPU's memory, so it dies while loading them, every time. "
        "No probe setting can fix that: the replica asks for too few GPUs. A sizing check "
        "before the rollout (weights, plus the KV cache and activations the server "
        "reserves, against the memory of the GPUs each replica requests) catches it before "
        "a pod is even created.",
        (
            (
                "failure_class",
                "allocation",
                "oom-as-allocation",
                "The pod was scheduled and "
                "received every GPU it asked for; it asked for too few to hold the weights. "
                "That fails at startup.",
            ),
            (
                "signal",
                "scheduler-check",
                "scheduler-check-for-oom",
                "The scheduler counts "
                "GPUs, not whether the model fits in them; it placed this pod without complaint.",
            ),
            (
                "signal",
                "startup-probe",
                "probe-for-oom",
                "A startup probe only decides how long to wait for the load, and this load "
                "fails however long it is given: the weights do not fit the GPUs requested. "
                "Checking the sizing before the rollout catches it.",
            ),
        ),
    ),
    "liveness-kills-load": (
        "startup",
        "startup-probe",
        "The server is still loading weights when the liveness probe starts failing "
        "(nothing listens on port 8000 yet), so the kubelet kills it and the load starts "
        "over. A startup probe with a failure budget longer than the load holds liveness "
        "off until the server is up.",
        (
            (
                "failure_class",
                "compatibility",
                "probe-kill-as-crash",
                "The container did not "
                "crash: the kubelet killed it for failing liveness while it was still loading.",
            ),
            (
                "signal",
                "health-watch",
                "restarts-as-bad-node",
                "The restarts come from the "
                "probe, on healthy GPUs; a node health watch would find nothing.",
            ),
        ),
    ),
    "ecc-uncorrectable": (
        "device-health",
        "health-watch",
        "An uncorrectable ECC error is the GPU's memory failing. DCGM health watches (or a "
        "node problem detector reading the Xid) would have cordoned the node before the "
        "scheduler put a replica on it.",
        (
            (
                "failure_class",
                "compatibility",
                "device-error-as-software",
                "It is a CUDA "
                "error, but its cause is the GPU's memory returning bad data, not the software.",
            ),
            (
                "signal",
                "compat-check",
                "ci-cannot-see-hardware",
                "CI runs on other machines "
                "and cannot see this GPU's memory errors; only a watch on the node can.",
            ),
        ),
    ),
    "fell-off-bus": (
        "device-health",
        "health-watch",
        "Xid 79: the GPU stopped answering on PCIe. Every replica placed there fails. A node "
        "problem detector or DCGM health watch would have seen the Xid and cordoned the node.",
        (
            (
                "failure_class",
                "startup",
                "device-error-as-software",
                "The pods fail at "
                "start because the GPU under them is gone; the kernel log shows a hardware fault.",
            ),
            (
                "signal",
                "startup-probe",
                "probe-cannot-fix-hardware",
                "A probe would only "
                "restart the container on the same dead GPU; the node has to be cordoned.",
            ),
        ),
    ),
}
