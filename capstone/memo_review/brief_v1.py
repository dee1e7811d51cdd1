"""Version 1 of the capstone brief generator, frozen: only to restore the briefs of
capstones drawn before briefs were stored (migration assess 0017).

Version 1 sized fleets by KV memory and Little's law alone, priced each part at its first
record in prices.yaml whichever the provider, and took a model's window from its config.
Version 2 (brief.py) fixed all three (issue 34), which would have rewritten the brief
under every memo already written. A capstone now stores its brief; this module rebuilds
the one a version-1 capstone was shown, from its seed, exactly as version 1 drew it. Keep
it, and the price records it names, while migration 0017 exists.
"""

from __future__ import annotations

import dataclasses
import random

from capstone.memo_review import figures
from capstone.memo_review.brief import (
    MAX_PARAMS,
    MAX_REPLICAS,
    MIN_PARAMS,
    MIN_REPLICAS,
    WORKLOADS,
    Brief,
    Candidate,
)
from hardware_db import catalog, prices
from problems.engine.variants import ParamError

VERSION = 1
# The reference price version 1 used per part (its first record in prices.yaml then), in
# the order it offered them.
PRICE_RECORDS = {
    "h100-sxm": "aws-p5-48xlarge",
    "h200": "aws-p5en-48xlarge",
    "a100-sxm-80gb": "aws-p4de-24xlarge",
    "l40s": "aws-g6e-xlarge",
    "b200": "lambda-8x-b200",
}


def _candidate(acc: catalog.Accelerator, weight_dtype: str) -> Candidate:
    price = next(p for p in prices.prices() if p.slug == PRICE_RECORDS[acc.slug])
    dtype = weight_dtype if weight_dtype in acc.dense_flops else "bf16"
    return Candidate(
        slug=acc.slug,
        name=acc.name,
        usable_gib=acc.usable_gib,
        mem_bw_tb_s=acc.mem_bw_bytes_per_s / 1e12,
        dense_tflops=acc.dense_flops[dtype] / 1e12,
        dense_dtype=dtype,
        usd_per_gpu_hour=float(price.usd_per_gpu_hour),
        provider=price.provider,
        instance_type=price.instance_type,
        gpus_per_instance=price.gpus_per_instance,
        instance_usd_per_hour=float(price.instance_usd_per_hour),
        price_source=tuple(price.source),
        price_as_of=price.as_of.isoformat(),
    )


def _cheapest_replicas(brief: Brief, slug: str | None = None) -> int | None:
    """Version 1's best plan: KV-limited sequences and Little's law, the cheapest fleet's
    replicas (None: no candidate can be built)."""
    best: tuple[float, int] | None = None
    for cand in brief.candidates if slug is None else [brief.candidate(slug)]:
        shape = brief.shape
        tmin = figures.tp_min(
            shape.n_params, shape.weight_dtype, cand.usable_gib, brief.kv_reserve_fraction
        )
        first = int(tmin.parts["min_gpus"].value)
        for tp in figures.TP_DEGREES:
            if first == 0 or tp < first or tp > brief.tp_limit(cand):
                continue
            try:
                sv = figures.max_sequences(
                    shape, cand.usable_gib, tp, brief.gpu_memory_utilization, brief.min_context
                )
                seqs = int(sv.parts["max_seqs"].value)
            except ParamError:
                seqs = 0
            if seqs < 1:
                continue
            little = figures.littles_law(brief.peak_rps, brief.slot_seconds, seqs)
            replicas = int(little.parts["replicas"].value)
            cost = figures.monthly_cost(replicas * tp, cand.usd_per_gpu_hour)
            if best is None or cost < best[0] - 1e-9:
                best = (cost, replicas)
    return None if best is None else best[1]


def _draw(rng: random.Random, seed: int) -> Brief | None:
    workload = rng.choice(sorted(WORKLOADS))
    w = WORKLOADS[workload]
    prompt_p99 = rng.choice(w["prompt_p99"])
    output_p99 = rng.choice(w["output_p99"])
    models = [
        m
        for m in catalog.models()
        if m.arch_type == "dense"
        and m.kv_lora_rank is None
        and MIN_PARAMS <= m.total_params <= MAX_PARAMS
        and m.max_context >= prompt_p99 + output_p99
    ]
    if not models:
        return None
    model = rng.choice(models)
    weight_dtype = rng.choice(("bf16", "bf16", "fp8"))
    kv_dtype = rng.choice(("bf16", "bf16", "fp8"))
    fp8 = "fp8" in (weight_dtype, kv_dtype)
    accs = [catalog.accelerator(s) for s in PRICE_RECORDS]
    accs = [a for a in accs if not fp8 or "fp8" in a.dense_flops]
    partial = Brief(
        seed=seed,
        workload=workload,
        model_slug=model.slug,
        model_name=model.name,
        n_params=model.total_params,
        n_layers=model.n_layers,
        n_kv_heads=model.n_kv_heads,
        head_dim=model.head_dim,
        max_context=model.max_context,
        weight_dtype=weight_dtype,
        kv_dtype=kv_dtype,
        sessions_per_day=rng.choice(w["sessions"]),
        messages_per_session=rng.choice(w["messages"]),
        peak_to_average=rng.choice(w["peak"]),
        prompt_tokens_mean=rng.choice(w["prompt_mean"]),
        prompt_tokens_p99=prompt_p99,
        output_tokens_mean=rng.choice(w["output_mean"]),
        output_tokens_p99=output_p99,
        ttft_p99_ms=rng.choice(w["ttft"]),
        tpot_ms=rng.choice(w["tpot"]),
        gpu_memory_utilization=rng.choice((0.85, 0.9, 0.9, 0.92)),
        kv_reserve_fraction=rng.choice((0.2, 0.25, 0.3)),
        candidates=tuple(_candidate(a, weight_dtype) for a in accs),
        n_heads=model.n_heads,
    )
    usable = [c for c in partial.candidates if _cheapest_replicas(partial, c.slug) is not None]
    if len(usable) < 2:
        return None
    chosen = rng.sample(usable, k=min(len(usable), rng.choice((2, 3))))
    brief = dataclasses.replace(partial, candidates=tuple(chosen))
    if not MIN_REPLICAS <= (_cheapest_replicas(brief) or 0) <= MAX_REPLICAS:
        return None
    return brief


def brief_for(seed: int) -> Brief:
    """The brief version 1 drew for `seed`."""
    rng = random.Random(seed)
    for _ in range(200):
        brief = _draw(rng, seed)
        if brief is not None:
            return brief
    raise RuntimeError(f"no realistic brief for seed {seed}")  # pragma: no cover
