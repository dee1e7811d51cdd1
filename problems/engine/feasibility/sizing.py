"""What a planner derives from a description with the checks' own formulas, so a plan it
sizes passes them: the largest decode batch one replica can run. The capstone's reference
plan needs it (a replica's batch is limited by TPOT as well as by KV memory), and so does
any generator that draws a running batch for a deployment.
"""

from __future__ import annotations

import math

from problems.engine.feasibility.checks import decode_floor_s
from problems.engine.feasibility.system import SystemDescription

_MOST = 1 << 20  # no engine runs a million sequences in one step


def largest_decode_batch(d: SystemDescription) -> int:
    """The most sequences of `traffic.context_tokens` tokens one replica can decode
    together: their cache and the weights within `plan.memory_fraction` of its devices'
    memory (the memory check), and, when the description has a TPOT SLO, a step floor
    within it (the tpot check). 0 when not even one sequence fits."""
    p, m = d.plan, d.model
    per_seq = d.traffic.context_tokens * m.kv_bytes_per_token(p.kv_dtype)
    room = p.memory_fraction * d.device.memory_bytes * p.devices_per_replica
    room -= m.weight_bytes(p.weights_dtype)
    if room < per_seq:
        return 0
    most = _MOST if per_seq == 0 else min(_MOST, math.floor(room / per_seq))
    tpot = d.slo.tpot_s
    if tpot is None:
        return most
    # The step floor grows with the batch (cache, and a MoE's experts): bisect on it.
    lo, hi = 0, most
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if decode_floor_s(d, mid) <= tpot:
            lo = mid
        else:
            hi = mid - 1
    return lo
