# ruff: noqa: E501 (the expected output is as wide as kubectl prints it)
"""kubectl describe node / get nodes and the device plugin's log render as kubectl and klog do."""

import datetime

from problems.drills.tools.kubectl_node import (
    Condition,
    Event,
    NodeDescription,
    NodeRow,
    PodUsage,
    cpu_quantity,
    memory_quantity,
    render_describe_node,
    render_device_plugin_log,
    render_get_nodes,
    tabwrite,
)

UTC = datetime.UTC
T0 = datetime.datetime(2026, 11, 2, 9, 14, 3, tzinfo=UTC)
NOW = datetime.datetime(2026, 12, 4, 18, 40, 11, tzinfo=UTC)
CONDITIONS = (
    Condition(
        "MemoryPressure",
        "False",
        NOW,
        T0,
        "KubeletHasSufficientMemory",
        "kubelet has sufficient memory available",
    ),
    Condition(
        "DiskPressure", "False", NOW, T0, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"
    ),
    Condition(
        "PIDPressure",
        "False",
        NOW,
        T0,
        "KubeletHasSufficientPID",
        "kubelet has sufficient PID available",
    ),
    Condition("Ready", "True", NOW, T0, "KubeletReady", "kubelet is posting ready status"),
)


def _resources(gpus: str, cpu: str, memory: str, storage: str):
    return (
        ("cpu", cpu),
        ("ephemeral-storage", storage),
        ("hugepages-1Gi", "0"),
        ("hugepages-2Mi", "0"),
        ("memory", memory),
        ("nvidia.com/gpu", gpus),
        ("pods", "110"),
    )


def node(gpus: str = "0", pods=None, events=None, taints=(), unschedulable=False):
    return NodeDescription(
        name="gpu-node-07",
        created=T0,
        conditions=CONDITIONS,
        internal_ip="10.20.3.17",
        capacity=_resources(gpus, "224", "2113442068Ki", "1844284980Ki"),
        allocatable=_resources(gpus, "223", "2113339668Ki", "1699707849537"),
        kernel="5.15.0-125-generic",
        os_image="Ubuntu 22.04.5 LTS",
        container_runtime="containerd://1.7.22",
        kubelet="v1.29.10",
        machine_id="3f1c0e8a9b2d4c6e8f0a1b2c3d4e5f60",
        system_uuid="4c4c4544-0047-3310-8058-b4c04f563433",
        boot_id="7d2f6a1e-93b4-4c8a-a5e2-0f1d9c3b7e64",
        renew_time=NOW,
        pod_cidr="10.244.7.0/24",
        labels=(
            ("kubernetes.io/hostname", "gpu-node-07"),
            ("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"),
            ("nvidia.com/gpu.count", "8"),
            ("kubernetes.io/os", "linux"),
            ("kubernetes.io/arch", "amd64"),
        ),
        annotations=(
            ("node.alpha.kubernetes.io/ttl", "0"),
            ("volumes.kubernetes.io/controller-managed-attach-detach", "true"),
        ),
        taints=taints,
        unschedulable=unschedulable,
        pods=(
            PodUsage("gpu-operator", "nvidia-device-plugin-daemonset-x7k2p", "32d"),
            PodUsage("kube-system", "kube-proxy-9wq4m", "32d"),
            PodUsage("monitoring", "node-exporter-2ffkd", "32d", 100, 250, 64, 128),
        )
        if pods is None
        else pods,
        events=(Event("Normal", "Starting", "41m", "kubelet", "Starting kubelet."),)
        if events is None
        else events,
    )


# Hand-checked against describe.go's tabwriter runs: Name..Unschedulable share a value
# column (CreationTimestamp: + 2); System Info, PodCIDR and the pods table share one
# (Container Runtime Version: + 2); conditions cells carry a space before each tab.
EXPECTED_DESCRIBE = """\
Name:               gpu-node-07
Roles:              <none>
Labels:             kubernetes.io/arch=amd64
                    kubernetes.io/hostname=gpu-node-07
                    kubernetes.io/os=linux
                    nvidia.com/gpu.count=8
                    nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3
Annotations:        node.alpha.kubernetes.io/ttl: 0
                    volumes.kubernetes.io/controller-managed-attach-detach: true
CreationTimestamp:  Mon, 02 Nov 2026 09:14:03 +0000
Taints:             <none>
Unschedulable:      false
Lease:
  HolderIdentity:  gpu-node-07
  AcquireTime:     <unset>
  RenewTime:       Fri, 04 Dec 2026 18:40:11 +0000
Conditions:
  Type             Status  LastHeartbeatTime                 LastTransitionTime                Reason                       Message
  ----             ------  -----------------                 ------------------                ------                       -------
  MemoryPressure   False   Fri, 04 Dec 2026 18:40:11 +0000   Mon, 02 Nov 2026 09:14:03 +0000   KubeletHasSufficientMemory   kubelet has sufficient memory available
  DiskPressure     False   Fri, 04 Dec 2026 18:40:11 +0000   Mon, 02 Nov 2026 09:14:03 +0000   KubeletHasNoDiskPressure     kubelet has no disk pressure
  PIDPressure      False   Fri, 04 Dec 2026 18:40:11 +0000   Mon, 02 Nov 2026 09:14:03 +0000   KubeletHasSufficientPID      kubelet has sufficient PID available
  Ready            True    Fri, 04 Dec 2026 18:40:11 +0000   Mon, 02 Nov 2026 09:14:03 +0000   KubeletReady                 kubelet is posting ready status
Addresses:
  InternalIP:  10.20.3.17
  Hostname:    gpu-node-07
Capacity:
  cpu:                224
  ephemeral-storage:  1844284980Ki
  hugepages-1Gi:      0
  hugepages-2Mi:      0
  memory:             2113442068Ki
  nvidia.com/gpu:     0
  pods:               110
Allocatable:
  cpu:                223
  ephemeral-storage:  1699707849537
  hugepages-1Gi:      0
  hugepages-2Mi:      0
  memory:             2113339668Ki
  nvidia.com/gpu:     0
  pods:               110
System Info:
  Machine ID:                 3f1c0e8a9b2d4c6e8f0a1b2c3d4e5f60
  System UUID:                4c4c4544-0047-3310-8058-b4c04f563433
  Boot ID:                    7d2f6a1e-93b4-4c8a-a5e2-0f1d9c3b7e64
  Kernel Version:             5.15.0-125-generic
  OS Image:                   Ubuntu 22.04.5 LTS
  Operating System:           linux
  Architecture:               amd64
  Container Runtime Version:  containerd://1.7.22
  Kubelet Version:            v1.29.10
  Kube-Proxy Version:         v1.29.10
PodCIDR:                      10.244.7.0/24
PodCIDRs:                     10.244.7.0/24
Non-terminated Pods:          (3 in total)
  Namespace                   Name                                    CPU Requests  CPU Limits  Memory Requests  Memory Limits  Age
  ---------                   ----                                    ------------  ----------  ---------------  -------------  ---
  gpu-operator                nvidia-device-plugin-daemonset-x7k2p    0 (0%)        0 (0%)      0 (0%)           0 (0%)         32d
  kube-system                 kube-proxy-9wq4m                        0 (0%)        0 (0%)      0 (0%)           0 (0%)         32d
  monitoring                  node-exporter-2ffkd                     100m (0%)     250m (0%)   64Mi (0%)        128Mi (0%)     32d
Allocated resources:
  (Total limits may be over 100 percent, i.e., overcommitted.)
  Resource           Requests   Limits
  --------           --------   ------
  cpu                100m (0%)  250m (0%)
  memory             64Mi (0%)  128Mi (0%)
  ephemeral-storage  0 (0%)     0 (0%)
  hugepages-1Gi      0 (0%)     0 (0%)
  hugepages-2Mi      0 (0%)     0 (0%)
  nvidia.com/gpu     0          0
Events:
  Type    Reason    Age   From     Message
  ----    ------    ----  ----     -------
  Normal  Starting  41m   kubelet  Starting kubelet."""


def test_describe_node_with_gpus_gone_exact():
    assert render_describe_node(node()) == EXPECTED_DESCRIBE


def test_healthy_node_counts_gpu_requests_without_percentages():
    trainer = PodUsage("ml", "trainer-0", "2d", 96_000, 96_000, 1_048_576, 1_048_576, gpus=8)
    out = render_describe_node(node("8", pods=(trainer,), events=()))
    lines = out.splitlines()
    assert "  nvidia.com/gpu:     8" in lines
    assert "  nvidia.com/gpu     8             8" in lines
    # 96 of 223 cores is 43.05% -> 43; 1 TiB (1073741824Ki) of 2113339668Ki is 50.8% -> 50.
    assert any(line.startswith("  cpu                96 (43%)") for line in lines)
    assert (
        "  ml                          trainer-0    96 (43%)      96 (43%)    1024Gi (50%)" in out
    )
    # Without events, "Events:" joins the resource table's column run.
    assert lines[-1] == "Events:              <none>"


def test_taints_and_cordon():
    out = render_describe_node(
        node(
            taints=(
                "node.kubernetes.io/unschedulable:NoSchedule",
                "nvidia.com/gpu=present:NoSchedule",
            ),
            unschedulable=True,
        )
    )
    assert "Taints:             node.kubernetes.io/unschedulable:NoSchedule\n" in out
    assert "\n                    nvidia.com/gpu=present:NoSchedule\n" in out
    assert "Unschedulable:      true" in out


def test_get_nodes_pads_by_three():
    out = render_get_nodes(
        [
            NodeRow("gpu-node-06", "Ready", "32d", "v1.29.10"),
            NodeRow("gpu-node-07", "Ready", "32d", "v1.29.10"),
            NodeRow("cpu-node-01", "Ready,SchedulingDisabled", "90d", "v1.29.10", "control-plane"),
        ]
    )
    assert out == (
        "NAME          STATUS                     ROLES           AGE   VERSION\n"
        "gpu-node-06   Ready                      <none>          32d   v1.29.10\n"
        "gpu-node-07   Ready                      <none>          32d   v1.29.10\n"
        "cpu-node-01   Ready,SchedulingDisabled   control-plane   90d   v1.29.10"
    )


def test_tabwriter_runs_break_on_lines_without_the_cell():
    text = "a:\t1\nlonger key:\t2\nbreak\nk:\t3"
    assert tabwrite(text) == "a:           1\nlonger key:  2\nbreak\nk:  3"


def test_quantities():
    assert cpu_quantity(2000) == "2" and cpu_quantity(250) == "250m" and cpu_quantity(0) == "0"
    assert memory_quantity(0) == "0" and memory_quantity(2048) == "2Gi"
    assert memory_quantity(640) == "640Mi"


START = datetime.datetime(2026, 12, 4, 18, 2, 11, 104233)


def test_device_plugin_log_after_driver_upgrade():
    lines = render_device_plugin_log(START, "ERROR_LIB_RM_VERSION_MISMATCH").splitlines()
    assert lines[0] == "I1204 18:02:11.104233       1 main.go:154] Starting FS watcher."
    assert lines[6] == (
        "E1204 18:02:11.105055       1 factory.go:99] Failed to initialize NVML: "
        "ERROR_LIB_RM_VERSION_MISMATCH."
    )
    assert lines[-1] == (
        "I1204 18:02:11.105740       1 main.go:287] No devices found. Waiting indefinitely."
    )
    assert not any("Registered device plugin" in line for line in lines)


def test_device_plugin_log_healthy_tail():
    lines = render_device_plugin_log(START, tail=2).splitlines()
    assert lines == [
        "I1204 18:02:11.105192       1 server.go:117] Starting to serve 'nvidia.com/gpu' on "
        "/var/lib/kubelet/device-plugins/nvidia-gpu.sock",
        "I1204 18:02:11.105329       1 server.go:125] Registered device plugin for "
        "'nvidia.com/gpu' with Kubelet",
    ]
