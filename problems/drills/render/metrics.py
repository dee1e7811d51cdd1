"""A metrics scrape and a DCGM diagnostic for the drill's nodes.

- The scrape is a Prometheus instant query over dcgm-exporter's per-GPU series
  DCGM_FI_DEV_SM_CLOCK (MHz) and DCGM_FI_DEV_GPU_TEMP (C), with the labels dcgm-exporter
  attaches (gpu, UUID, pci_bus_id, Hostname; github.com/NVIDIA/dcgm-exporter,
  etc/default-counters.csv), printed as promtool prints an instant vector:
  `series => value @[timestamp]`. One line per GPU of the job's nodes.
- `dcgmi diag -r 2` is problems/drills/tools/dcgmi_diag.py's renderer (DCGM 3.3 layout,
  its failure texts cited there), fed from the node's GPUs: a volatile DBE and a pending
  row remap fail the Memory test and the Page Retirement/Row Remap check; a thermally
  throttled GPU fails Targeted Power with its violation time. A GPU fallen off the bus
  is lost to NVML, so the diagnostic over the default all-GPUs group (DCGM_GROUP_ALL_GPUS,
  0x7fffffff) does not run: dcgmi prints "Error: Unable to complete diagnostic for group
  <id>. Return: (<code>) <errorString>." (NVIDIA/DCGM, dcgmi/Diag.cpp, 3.x) with
  DCGM_ST_GPU_IS_LOST, -18, whose errorString is "GPU is lost" (dcgm_structs.h and
  dcgm_errors.cpp). It names no GPU: nvidia-smi and the kernel log say which.
"""

from __future__ import annotations

from problems.drills.cluster import Cluster, Node
from problems.drills.tools.dcgmi_diag import (
    DiagRun,
    nvlink_errors,
    pending_row_remap,
    render_dcgmi_diag,
    thermal_violations,
    volatile_dbe,
)

ALL_GPUS = 0x7FFFFFFF  # DCGM_GROUP_ALL_GPUS, the group dcgmi diag runs on by default
GPU_IS_LOST = -18  # DCGM_ST_GPU_IS_LOST
DEVICE_ID = {"a100-sxm-80gb": "20b2", "h100-sxm": "2330", "b200": "2901"}


def scrape(state: Cluster, hosts: tuple[str, ...]) -> str:
    stamp = int(state.now.timestamp())
    names = "DCGM_FI_DEV_SM_CLOCK|DCGM_FI_DEV_GPU_TEMP"
    query = f'{{__name__=~"{names}", Hostname=~"{"|".join(hosts)}"}}'
    lines = [f"$ promtool query instant http://prometheus:9090 '{query}'"]
    for metric in ("DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_SM_CLOCK"):
        for h in hosts:
            node = state.node(h)
            for g in node.gpus:
                if not g.on_bus:
                    continue
                value = g.temp if metric.endswith("TEMP") else g.sm_clock
                lines.append(
                    f'{metric}{{Hostname="{h}", UUID="{g.uuid}", gpu="{g.index}", '
                    f'pci_bus_id="{g.bus_id}"}} => {value} @[{stamp}]'
                )
    return "\n".join(lines)


def dcgmi_diag(state: Cluster, node: Node) -> str:
    prompt = f"root@{node.hostname}:~# dcgmi diag -r 2"
    lost = [g for g in node.gpus if not g.on_bus and g.fault != "gone"]
    if lost:
        return (
            f"{prompt}\nError: Unable to complete diagnostic for group {ALL_GPUS}. "
            f"Return: ({GPU_IS_LOST}) GPU is lost."
        )
    gpus = [g for g in node.gpus if g.on_bus]
    findings, deployment = [], []
    for k, g in enumerate(gpus):
        if g.ecc_unc:
            findings.append(volatile_dbe(k, g.ecc_unc))
        if g.remap_pending:
            deployment.append(pending_row_remap(k))
        if g.nvlink_down >= 0:
            findings.append(nvlink_errors(k, 12 + g.bus % 40))
        if "HW Thermal Slowdown" in g.clock_events:
            findings.append(thermal_violations(k, 40.0 + g.temp % 7 * 9.5))
    run = DiagRun(
        level=2,
        gpus=tuple(range(len(gpus))),
        device_id=DEVICE_ID[state.accelerator],
        driver=state.driver,
        findings=tuple(findings),
        deployment=tuple(deployment[:1]),
    )
    return f"{prompt}\n{render_dcgmi_diag(run)}"
