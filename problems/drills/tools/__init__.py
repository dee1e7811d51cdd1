"""Renderers for the drill tools that have no real capture in spec/tool-output (issue 39).

Each module is a pure function over its own small frozen dataclasses: the drill's cluster
state fills the dataclasses, the renderer prints what the real tool prints, so every id one
output names (a CA, a port GUID, a bus id, a node, a mount) can be made to agree with the
others. No Django, no database, no randomness here: the cluster draws, these format.

- ibstat: `ibstat`, `perfquery` and the sysfs port counters (infiniband-diags, rdma-core).
- dcgmi_diag: the `dcgmi diag -r 1|2|3` table (DCGM 3.3).
- kubectl_node: `kubectl describe node`, `kubectl get nodes`, the device plugin's log.
- df: `df -h` and `df -i` (GNU coreutils), and a checkpoint write's ENOSPC traceback.
- xid_lines: `dmesg -T` lines for Xid 74 (NVLink) and Xid 79 (fallen off the bus).
"""
