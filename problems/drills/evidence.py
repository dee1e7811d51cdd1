"""An evidence reader for drills: from the alert, the outputs of the actions taken and the
location labels the learner is shown (never the state), name the fault kind and where it
is. `problems check` (problems/drills/check.py) and the drill tests run it over the
expert path: if it can read the fault from those outputs, a learner can.

It reads text only, as a learner does, and imports nothing of the cluster, the faults or
the renderers, so a change to the generator that hides the evidence fails the check
instead of being read around."""

from __future__ import annotations

import re

PROMPT = re.compile(r"^root@([\w-]+):~# (.*)$", re.M)
XID = re.compile(r"NVRM: Xid \(PCI:0000:([0-9a-f]{2}):00\): (\d+),")
LOST = re.compile(r"Unable to determine the device handle for GPU 0000:([0-9A-F]{2}):00\.0")
Q_GPU = re.compile(r"^GPU 00000000:([0-9A-F]{2}):00\.0$", re.M)
PAIR = re.compile(r"^\$ srun -N 2 -w ([\w-]+),([\w-]+) ", re.M)
AVG = re.compile(r"^# Avg bus bandwidth\s*: ([\d.]+)", re.M)
SINFO_ROW = re.compile(r"^(.{20}) (\S+)\s+(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d) (\S+)$", re.M)
CA = re.compile(r"^CA '(mlx5_\d+)'\n(?:\t.*\n)*?\t\tRate: (\d+)", re.M)
DF_FULL = re.compile(r"^\S+ +\S+ +\S+ +\S+ +0 100% (\S+)$", re.M)
SM_CLOCK = re.compile(r'^DCGM_FI_DEV_SM_CLOCK\{Hostname="([\w-]+)".*=> (\d+) @', re.M)
PERF = re.compile(r"perfquery -C (mlx5_\d+) -P 1\n(?:.*\n)*?LinkDownedCounter:\.+(\d+)", re.M)
SMI_PROC = re.compile(r"^\|\s+(\d+)\s+N/A\s+N/A\s+(\d+)\s+C\s", re.M)  # GPU index, PID
APP = re.compile(r"^(\d+), 00000000:([0-9A-F]{2}):00\.0$", re.M)  # PID, bus
TASKSET = re.compile(r"^pid (\d+)'s current affinity list: ([\d,-]+)$", re.M)


def _host(output: str) -> str | None:
    m = PROMPT.search(output)
    return m.group(1) if m else None


def _gpu_at(locations: dict[str, str], host: str, bus: str) -> str:
    want = f"00000000:{bus.upper()}:00.0"
    (loc,) = [
        k for k, label in locations.items() if label.startswith(f"{host} GPU ") and want in label
    ]
    return loc


def cpu_set(cpu_list: str) -> set[int]:
    """The CPUs of a Linux CPU list ("0-55,112-167")."""
    out: set[int] = set()
    for part in cpu_list.split(","):
        first, _, last = part.partition("-")
        out.update(range(int(first), int(last or first) + 1))
    return out


def _far_rank(outputs: list[str], locations: dict[str, str]) -> str | None:
    """The GPU whose process runs on none of its own CPUs: taskset's list for the PID,
    the GPU nvidia-smi runs that PID on, that GPU's CPU Affinity in topo -m (one node's
    three outputs). Only one such rank is a misbinding to name."""
    for out in outputs:
        bound = dict(TASKSET.findall(out))
        if not bound:
            continue
        host = _host(out)
        mine = [o for o in outputs if _host(o) == host]
        local = {
            int(line.split()[0][3:]): cpu_set(line.split()[-3])
            for o in mine
            if "CPU Affinity" in o
            for line in o.splitlines()
            if re.match(r"GPU\d+ ", line)
        }
        gpu_of = {pid: int(i) for o in mine for i, pid in SMI_PROC.findall(o)}
        far = [
            pid
            for pid, cpus in bound.items()
            if gpu_of.get(pid) in local and not cpu_set(cpus) & local[gpu_of[pid]]
        ]
        bus = dict(APP.findall(out))
        if len(far) == 1 and far[0] in bus:
            return _gpu_at(locations, host, bus[far[0]])
    return None


def read(alert: str, outputs: list[str], locations: dict[str, str]) -> tuple[str, str]:
    for out in outputs:  # kernel log: Xid 79, or the 48/63/95 sequence
        host = _host(out)
        codes = XID.findall(out)
        if any(code == "79" for _, code in codes):
            bus = next(b for b, code in codes if code == "79")
            return "gpu-off-bus", _gpu_at(locations, host, bus)
        link = [bus for bus, code in codes if code in ("74", "145")]
        if link:
            return "nvlink-error", _gpu_at(locations, host, link[0])
        if {"48", "63"} <= {code for _, code in codes}:
            bus = next(b for b, code in codes if code == "48")
            return "uncorrectable-ecc", _gpu_at(locations, host, bus)
    for out in outputs:  # nvidia-smi that cannot open a GPU
        m = LOST.search(out)
        if m:
            return "gpu-off-bus", _gpu_at(locations, _host(out), m.group(1))
    for out in outputs:  # a power cap: whole nodes slow in the scrape, SW Power Cap active
        clocks = SM_CLOCK.findall(out)
        if clocks and any(re.search(r"SW Power Cap\s+: Active", o) for o in outputs):
            q = next(o for o in outputs if "Max Clocks" in o)  # the part's top SM clock
            top = int(re.search(r"Max Clocks\n.*\n\s+SM\s+: (\d+) MHz", q).group(1))
            slow = {h for h, c in clocks if int(c) < 0.85 * top}
            racks = [k for k, label in locations.items() if k.startswith("rack:")]
            whole = [k for k in racks if slow and all(h in locations[k] for h in slow)]
            if len(whole) == 1:
                return "rack-power-cap", whole[0]
    for out in outputs:  # nvidia-smi -q: thermal clock event reasons
        if "Clocks Event Reasons" in out and re.search(r"Thermal Slowdown\s+: Active", out):
            return "thermal-throttle", _gpu_at(locations, _host(out), Q_GPU.search(out).group(1))
    for out in outputs:  # sinfo -R: the newest drain is the incident, older ones are noise
        rows = SINFO_ROW.findall(out)
        if rows:
            newest = max(rows, key=lambda r: r[2])
            if newest[0].strip() == "Kill task failed":
                return "slurm-drain", newest[3]
    far = _far_rank(outputs, locations)  # a rank bound to the other socket than its GPU's
    if far:
        return "numa-misbinding", far
    wrote_nothing = any("file write failed" in o or "No space left on device" in o for o in outputs)
    for out in outputs:  # df: a full volume, when the job's log says a write failed
        full = DF_FULL.findall(out)
        if wrote_nothing and len(full) == 1:
            return "volume-full", f"volume:{full[0]}"
    for out in outputs:  # vLLM: a full KV cache, preemptions rising, a growing queue
        pod = re.search(r"kubectl exec -n \S+ (\S+) -- curl", out)
        pre = [float(v) for v in re.findall(r"^vllm:num_preemptions_total\{.*\} (\S+)$", out, re.M)]
        usage = [
            float(v) for v in re.findall(r"^vllm:gpu_cache_usage_perc\{.*\} (\S+)$", out, re.M)
        ]
        waiting = [
            float(v) for v in re.findall(r"^vllm:num_requests_waiting\{.*\} (\S+)$", out, re.M)
        ]
        if pod and len(pre) == 2 and pre[1] > pre[0] and min(usage) >= 0.98 and waiting[1] > 0:
            return "kv-cache-exhaustion", f"pod:{pod.group(1)}"
    for out in outputs:  # Kubernetes: a node advertising no GPUs, and why
        if "GPUS:.status.allocatable" in out:
            rows = [line.split() for line in out.splitlines()[2:]]
            empty = [name for name, gpus in rows if gpus in ("0", "<none>")]
            plugin_failed = any("Failed to initialize NVML: ERROR_LIB_RM" in o for o in outputs)
            if len(empty) == 1 and plugin_failed:
                return "device-plugin", empty[0]
    for out in outputs:  # nccl-tests over pairs: the node shared by the slow pairs
        pairs = PAIR.findall(out)
        avgs = [float(x) for x in AVG.findall(out)]
        if pairs and len(pairs) == len(avgs):
            top = max(avgs)
            slow = [set(p) for p, a in zip(pairs, avgs, strict=True) if a < 0.8 * top]
            shared = set.intersection(*slow) if slow else set()
            if len(shared) != 1:
                continue
            (host,) = shared
            for other in outputs:
                if _host(other) != host:
                    continue
                rates = CA.findall(other)
                if rates:
                    full = max(int(r) for _, r in rates)
                    low = [ca for ca, r in rates if int(r) < full]
                    if low:
                        return "ib-link-degraded", f"{host}:{low[0]}"
                downs = [(ca, int(n)) for ca, n in PERF.findall(other) if int(n) > 0]
                if downs:
                    return "ib-link-degraded", f"{host}:{downs[0][0]}"
    return "unknown", ""
