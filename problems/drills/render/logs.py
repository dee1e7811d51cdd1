"""`dmesg -T | grep -i nvrm` on one node: the Xids the state holds, in the driver's
wording.

- Xid 145 (Blackwell's fatal NVLink RLW error, where Hopper and Ampere log 74) is
  printed in _xid_log's wording, with its Xid 154 "GPU Reset Required" from R565.
- Xid 79 and Xid 74 come from problems/drills/tools/xid_lines.py (the drill tools'
  renderer, which cites NVIDIA's Xid catalog for both and adds Xid 154 from R565).
- An uncorrectable HBM error is the 48 -> 63 -> 95 sequence of
  problems/templates/incidents/_xid_log.py (NVIDIA GPU Memory Error Management, "User
  Visible Statistics"; the catalog's WORKFLOW_XID_48 bucket), with Xid 154 "GPU Reset
  Required" from R565 (_xid_catalog.RECOVERY_154).
- Each GPU's first Xid is preceded by its "GPU at PCI" / "GPU Board Serial Number" pair,
  naming the UUID and serial the node's nvidia-smi -q shows.
- A user-space driver newer than the loaded module: the module's "API mismatch" notice
  (render/k8s.py) when a client first tries it.
- A reboot clears the kernel ring buffer: the state drops a node's Xids when it reboots,
  so dmesg after a reboot shows none.
"""

from __future__ import annotations

import random

from problems.drills.cluster import Cluster, Node
from problems.drills.render.k8s import api_mismatch_lines
from problems.drills.tools.xid_lines import (
    GpuIdentity,
    Xid74,
    Xid79,
    introduce,
    xid74_lines,
    xid79_lines,
)
from problems.templates._era import DRIVERS, GENERATION
from problems.templates.incidents._xid_catalog import LINKED_154_FROM_BRANCH, RECOVERY_154
from problems.templates.incidents._xid_log import PLATFORMS, _fault_lines, _head, _when


def dmesg_xid(state: Cluster, node: Node) -> str:
    prompt = f"root@{node.hostname}:~# dmesg -T | grep -i nvrm"
    branch = DRIVERS[state.driver].branch
    links = PLATFORMS[state.platform][3]
    gen = GENERATION[state.accelerator]
    module = node.kernel_driver or state.driver
    built = DRIVERS[module].built
    loaded = f"{_when(node.boot)} NVRM: loading NVIDIA UNIX x86_64 Kernel Module  {module}"
    loaded += f"  {built}" if built else ""
    lines = [prompt, loaded]
    if node.kernel_driver and node.plugin_started:  # the new library met the old module
        lines += api_mismatch_lines(state, node, node.plugin_started)
    seen: set[int] = set()
    for x in sorted(node.xids, key=lambda r: (r.at, r.gpu)):
        g = node.gpus[x.gpu]
        ident = GpuIdentity(g.bus, g.uuid, g.serial)
        if g.bus not in seen:
            seen.add(g.bus)
            lines += introduce(x.at, ident)
        rng = random.Random(f"xid|{state.seed}|{node.hostname}|{x.salt}")
        if x.code == 79:
            lines += xid79_lines(Xid79(x.at, ident), branch)
        elif x.code == 74:
            lines += xid74_lines(Xid74(x.at, ident, x.link))
        elif x.code == 145:  # Blackwell's link Xid, in _xid_log's wording
            lines.append(
                f"{_when(x.at)} {_head(g.bus, 145)}RLW_REMAP Fatal XC1 i0 Link {x.link:02d} "
                "(0x00000082 0x00000040 0x00000000 0x00000000 0x00000000 0x00000000)"
            )
        else:
            who = f"pid={rng.randint(20_000, 4_000_000)}, name=python3, "
            stamp = _when(x.at)
            lines += [f"{stamp} {m}" for m in _fault_lines(x.code, g.bus, links, gen, who, rng)]
        if x.code in (48, 145) and branch >= LINKED_154_FROM_BRANCH:  # 79's is in xid79_lines
            value, label = RECOVERY_154[x.code]
            lines.append(
                f"{_when(x.at)} {_head(g.bus, 154)}GPU recovery action changed from 0x0 (None) "
                f"to 0x{value:x} ({label})"
            )
    return "\n".join(lines)
