"""KV-cache exhaustion and preemptions in one vLLM replica behind a TTFT alert.

vLLM's scheduler admits a request only while the KV cache has blocks for it; when running
requests need more blocks than are free, it preempts (recomputes or swaps) the newest,
and new requests wait (vLLM docs, "Optimization and Tuning: Preemption": "the KV cache
space is insufficient to handle all batched requests ... vLLM preempts requests", with
the advice to raise gpu_memory_utilization, lower max_num_seqs or max_num_batched_tokens,
or add tensor-parallel GPUs). On /metrics that is vllm:gpu_cache_usage_perc at 0.98 or
more, vllm:num_preemptions_total rising between scrapes and vllm:num_requests_waiting
growing while num_requests_running stays below max_num_seqs (the V0 series and texts of
problems/templates/incidents/_vllm.py and vllm_metrics.py, whose diagnose() this drill's
scrapes must satisfy). Time to first token climbs because requests queue. Here one
replica takes a tenant's long-context traffic (session affinity at the router), so the
alert names its pod; the other replicas are healthy (nothing waiting).
"""

from __future__ import annotations

import datetime
import random
import zlib
from dataclasses import replace

from problems.drills.cluster import Cluster, Pod
from problems.drills.faults.base import Planted, alert
from problems.drills.faults.device_plugin import _pod_name
from problems.templates.incidents._vllm import gpu_blocks
from problems.templates.incidents.vllm_metrics import VllmParams, diagnose

KIND = "kv-cache-exhaustion"
SLUG = "drill-kv-cache-exhaustion"
PLATFORMS = ("hgx-h100-a", "hgx-h100-b")  # the vLLM deployments the templates size are H100s
DEPLOYMENTS = {"llama-3.1-70b-h100x4": 4, "qwen2.5-72b-h100x4": 4, "mixtral-8x7b-h100x2": 2}
MAX_NUM_SEQS = 256


def _metrics(rng: random.Random, deployment: str, full: bool) -> VllmParams:
    n = gpu_blocks(deployment)
    interval = rng.choice((15, 30, 60))
    p0, g0 = rng.randint(10**6, 9 * 10**7), rng.randint(10**6, 9 * 10**7)
    rate = rng.randint(400, 1200) if full else rng.randint(1500, 4000)
    if full:
        w0 = rng.randint(5, 30)
        pre0 = rng.randint(50, 2000)
        values = dict(
            running=(rng.randint(40, 150), rng.randint(40, 150)),
            waiting=(w0, w0 + rng.randint(5, 40)),
            blocks_used=(n - rng.randint(0, n // 60), n - rng.randint(0, n // 60)),
            preemptions=(pre0, pre0 + rng.randint(20, 200)),
        )
    else:
        pre0 = rng.randint(0, 40)
        values = dict(
            running=(rng.randint(20, 120), rng.randint(20, 120)),
            waiting=(0, 0),
            blocks_used=(int(n * rng.uniform(0.3, 0.8)), int(n * rng.uniform(0.3, 0.8))),
            preemptions=(pre0, pre0),
        )
    params = VllmParams(
        deployment=deployment,
        max_num_seqs=MAX_NUM_SEQS,
        interval_s=interval,
        prompt_tokens=(p0, p0 + rate * interval * rng.randint(3, 8)),
        generation_tokens=(g0, g0 + rate * interval),
        **values,
    )
    assert diagnose(params) == ("kv-cache-full" if full else "healthy")
    return params


def plant(state: Cluster, rng: random.Random) -> Planted:
    deployment = rng.choice(sorted(DEPLOYMENTS))
    tp = DEPLOYMENTS[deployment]
    name = f"vllm-{deployment.rsplit('-h100', 1)[0].replace('.', '-')}"
    rs = f"{rng.getrandbits(36):09x}".replace("0", "7")
    old = next(n for n in state.nodes if n.slurm_state == "drained")  # the noise node
    nodes, pods = [], []
    for k, n in enumerate(state.nodes):
        if n is old:
            idle = tuple(replace(g, util=0, used_mib=0, temp=min(g.temp, 36)) for g in n.gpus)
            nodes.append(replace(n, gpus=idle, slurm_state="idle", cordoned=True))
            continue
        busy = tuple(
            replace(g, util=rng.randint(55, 97), used_mib=g.total_mib * 9 // 10) for g in n.gpus
        )
        nodes.append(replace(n, gpus=busy, slurm_state="idle"))
        for _ in range(8 // tp):
            created = state.now - datetime.timedelta(
                days=rng.randint(2, 20), minutes=rng.randint(0, 600)
            )
            pod_name = _pod_name(name, rs, rng)
            ip = f"10.244.{k}.{zlib.crc32(pod_name.encode()) % 250 + 2}"
            pods.append(Pod(pod_name, n.hostname, "Running", tp, created, 0, ip))
    hot = rng.randrange(len(pods))
    pods = [
        replace(p, metrics=(_metrics(rng, deployment, full=k == hot),)) for k, p in enumerate(pods)
    ]
    state = replace(
        state, nodes=tuple(nodes), scheduler="kubernetes", pods=tuple(pods), deployment=name
    )
    pod = pods[hot]
    page = alert(
        "VllmTimeToFirstTokenHigh",
        {"namespace": state.namespace, "pod": pod.name, "severity": "page"},
        f"p99 time to first token of {pod.name} is {rng.uniform(6, 25):.1f} s (threshold 2 s) "
        "for 10 minutes.",
        state.now - datetime.timedelta(minutes=rng.randint(3, 12)),
    )
    return Planted(
        state=state,
        alert=page,
        fault=KIND,
        location=f"pod:{pod.name}",
        remedy="add-replicas",
        expert_path=(f"vllm-metrics@{pod.name}",),
    )
