"""The compute fabric as the drill's tools show it: `ibstat` and `perfquery` (through
problems/drills/tools/ibstat.py, which cites infiniband-diags for both) and a multi-node
nccl-tests `all_reduce_perf` sweep over node pairs.

The pair sweep is the usual way to find one slow node among many: run a two-node
all_reduce for neighbouring pairs of the job's nodes (a ring: a-b, b-c, ..., last-a);
the pairs that include the bad node are slow, the others are not, so the node shared by
the two slow pairs is the one. Its layout is nccl-tests' (the header line, `# Using
devices` with one `#  Rank` line per GPU, the table with problems/templates/fabric's
NCCL_HEADER and the size, count, type, redop, root, time, algbw, busbw and #wrong
columns, "# Avg bus bandwidth"), as spec/tool-output/nccl-tests/sample-1.txt prints a
2 x 8 H100 run. busbw = algbw x 2(n-1)/n with n = 16 ranks (nccl-tests
doc/PERFORMANCE.md). Healthy two-node figures: 8 x 400 Gb/s NDR gives at most 400 GB/s
per direction; the sample shows 338 GB/s at 8 GiB on GCP, so healthy pairs print
330-370 GB/s (H100, B200) or 165-185 GB/s (A100 with HDR). A port trained at half its
rate halves the ring it carries and NCCL's rings move in lockstep, so a pair through it
runs at about half; a flapping port, whose link retrains, runs at a third to a half.
"""

from __future__ import annotations

import zlib

from problems.drills.cluster import HCA_TYPE, IB_RATE, Cluster, Node
from problems.drills.tools.ibstat import IbCa, IbPort, PortCounters, render_ibstat, render_perfquery
from problems.templates.fabric._family import NCCL_HEADER, fmt_us, printed_us

SIZES = tuple(2**27 * 4**i for i in range(4))  # 128 MiB .. 8 GiB
RANKS = 16


def ib_cas(node: Node, state: Cluster) -> list[IbCa]:
    ca_type, fw = HCA_TYPE[state.accelerator]
    return [
        IbCa(
            name=h.name,
            ca_type=ca_type,
            firmware=fw,
            node_guid=h.node_guid,
            system_image_guid=node.hcas[0].node_guid,
            ports=(
                IbPort(
                    state=h.state,
                    physical_state=h.physical_state,
                    rate=h.rate,
                    base_lid=h.lid,
                    sm_lid=1,
                    port_guid=h.node_guid,
                ),
            ),
        )
        for h in node.hcas
    ]


def ibstat(state: Cluster, node: Node) -> str:
    return f"root@{node.hostname}:~# ibstat\n" + render_ibstat(ib_cas(node, state))


def perfquery(state: Cluster, node: Node) -> str:
    """`perfquery -C mlx5_N -P 1` for each compute HCA of the node."""
    out = []
    for h in node.hcas:
        counters = PortCounters(
            symbol_errors=h.symbol_errors,
            link_error_recovery=h.link_error_recovery,
            link_downed=h.link_downed,
            xmit_data=4_000_000_000 + h.lid * 7919,
            rcv_data=4_000_000_000 + h.lid * 6673,
            xmit_pkts=90_000_000 + h.lid * 31,
            rcv_pkts=90_000_000 + h.lid * 29,
        )
        out.append(f"root@{node.hostname}:~# perfquery -C {h.name} -P 1")
        out.append(render_perfquery(h.lid, 1, counters))
    return "\n".join(out)


def node_factor(node: Node, full_rate: int) -> float:
    """How much of a healthy pair's bandwidth a pair through this node reaches."""
    worst = 1.0
    for h in node.hcas:
        if h.state != "Active":
            worst = 0.0
        worst = min(worst, h.rate / full_rate)
        if h.link_downed:
            worst = min(worst, 0.34 + (h.lid % 13) / 100)
    if any(g.nvlink_down >= 0 for g in node.gpus):  # intra-node hops of the ring slow down
        worst = min(worst, 0.6)
    return worst


def _pair(state: Cluster, a: Node, b: Node) -> list[str]:
    acc = state.accelerator
    lo, hi = (165.0, 185.0) if IB_RATE[acc] == 200 else (330.0, 370.0)
    h = zlib.crc32(f"{state.seed}|{a.hostname}|{b.hostname}".encode())
    peak = lo + (hi - lo) * (h % 1000) / 1000
    peak *= min(node_factor(a, IB_RATE[acc]), node_factor(b, IB_RATE[acc]))
    cmd = (
        f"$ srun -N 2 -w {a.hostname},{b.hostname} --ntasks-per-node=8 --gpus-per-node=8 "
        "./build/all_reduce_perf -b 128M -e 8G -f 4 -g 1"
    )
    lines = [
        cmd,
        f"# nThread 1 nGpus 1 minBytes {SIZES[0]} maxBytes {SIZES[-1]} step: 4(factor) "
        "warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
        "#",
        "# Using devices",
    ]
    for r in range(RANKS):
        node = a if r < 8 else b
        g = [x for x in node.gpus if x.on_bus][r % 8]
        pid = 30_000 + zlib.crc32(node.hostname.encode()) % 20_000 + r % 8
        lines.append(
            f"#  Rank {r:2d} Group  0 Pid {pid:6d} on {node.hostname} device {r % 8:2d} "
            f"[0000:{g.bus:02x}:00] {state.gpu_name}"
        )
    lines += ["#", NCCL_HEADER]
    factor = 2 * (RANKS - 1) / RANKS
    total = 0.0
    for k, size in enumerate(SIZES):
        eff = peak * (0.55 + 0.15 * k)  # small sizes do not reach the peak
        cells = f"{size:12d}  {size // 4:12d}  {'float':>8s}  {'sum':>6s}  {-1:6d}"
        for place in (0, 1):
            jitter = 1 + ((h >> (k + place)) % 21 - 10) / 1000
            us = printed_us(size / (eff / factor * 1e9) * 1e6 * jitter)
            algbw = size / us / 1e3
            busbw = algbw * factor
            total += busbw
            cells += f"  {fmt_us(us):>7s}  {algbw:6.2f}  {busbw:6.2f}  {0:5d}"
        lines.append(cells)
    lines.append("# Out of bounds values : 0 OK")
    lines.append(f"# Avg bus bandwidth    : {total / (2 * len(SIZES)):g} ")
    return lines


def nccl_pairs(state: Cluster, hosts: tuple[str, ...]) -> str:
    """A two-node all_reduce_perf for each neighbouring pair of these nodes (a ring)."""
    nodes = [state.node(h) for h in hosts]
    out: list[str] = []
    pairs = [(nodes[k], nodes[(k + 1) % len(nodes)]) for k in range(len(nodes))]
    if len(nodes) == 2:
        pairs = pairs[:1]
    for a, b in pairs:
        if out:
            out.append("")
        lost = [n for n in (a, b) if any(not g.on_bus for g in n.gpus)]
        if lost:
            out += [
                f"$ srun -N 2 -w {a.hostname},{b.hostname} --ntasks-per-node=8 "
                "--gpus-per-node=8 ./build/all_reduce_perf -b 128M -e 8G -f 4 -g 1",
                f"{lost[0].hostname}: Test CUDA failure common.cu:1005 'unknown error'",
                f"srun: error: {lost[0].hostname}: task 8: Exited with exit code 2",
            ]
            continue
        if any(n.slurm_state in ("drained", "down") for n in (a, b)):
            down = next(n for n in (a, b) if n.slurm_state in ("drained", "down"))
            out += [
                f"$ srun -N 2 -w {a.hostname},{b.hostname} --ntasks-per-node=8 "
                "--gpus-per-node=8 ./build/all_reduce_perf -b 128M -e 8G -f 4 -g 1",
                "srun: error: Unable to allocate resources: Requested node configuration "
                f"is not available ({down.hostname} is drained)",
            ]
            continue
        out += _pair(state, a, b)
    return "\n".join(out)
