"""An InfiniBand port trained at a lower rate, or flapping: one slow node in multi-node
collectives.

infiniband-diags (ibstat(8), perfquery(8); linux-rdma.github.io/rdma-core): ibstat
prints each port's State, Physical state and Rate in Gb/s; an NDR port that trained at
200 instead of 400 stays Active and LinkUp, only its Rate shows it. A flapping port
retrains again and again: perfquery's LinkDownedCounter and LinkErrorRecoveryCounter
climb (with SymbolErrorCounter, the usual sign of a bad cable or transceiver), while
ibstat, read between flaps, looks healthy. NCCL's rings over the node's eight rails move
in lockstep, so one slow rail slows every collective the node joins; nccl-tests'
all_reduce_perf over node pairs shows the pairs with that node slow (NVIDIA's cluster
bring-up practice; nccl-tests doc/PERFORMANCE.md for busbw). The fix is the link: drain
the node, reseat or replace the cable or transceiver.
"""

from __future__ import annotations

import random
from dataclasses import replace

from problems.drills.cluster import Cluster
from problems.drills.faults.base import Planted, hca_location, throughput_drop

KIND = "ib-link-degraded"
SLUG = "drill-ib-link-degraded"
NODES = 8  # a four-node job, so the pair sweep can single a node out


def plant(state: Cluster, rng: random.Random) -> Planted:
    job = state.main_job
    host, k = rng.choice(job.nodes), rng.randrange(8)
    node = state.node(host)
    hca = node.hcas[k]
    variant = rng.choice(("low-rate", "flapping"))
    if variant == "low-rate":
        hca = replace(hca, rate=hca.rate // 2)
        look = f"ibstat@{host}"
    else:
        hca = replace(
            hca,
            link_downed=rng.randint(6, 40),
            link_error_recovery=rng.randint(50, 250),
            symbol_errors=rng.randint(1_000, 60_000),
        )
        look = f"perfquery@{host}"
    hcas = tuple(hca if h.name == hca.name else h for h in node.hcas)
    state = state.with_node(replace(node, hcas=hcas, ib_fault=variant))
    slow = round(job.step_s * rng.uniform(1.3, 1.7), 2)
    state, page = throughput_drop(state, job, rng, slow)
    return Planted(
        state=state,
        alert=page,
        fault=KIND,
        location=hca_location(host, hca.name),
        remedy="drain-fix-link",
        expert_path=("nccl-pairs", look),
        handling=frozenset({f"drain@{host}"}),
    )
