"""The key figures of a capacity plan, computed by the engine's own templates.

A memo is checked with the same arithmetic, and the same misconception names, as the
practice problems that teach it: every figure that has a template comes from
`Variant.from_params(slug, params)` and is graded with `Variant.grade`, so a GB/GiB slip
in a memo is named exactly as it is in a quiz. Only what no template covers (the fleet's
GPUs and its monthly cost) is plain arithmetic here.

Conventions the brief states and these functions follow: weights in GB, the KV cache per
token in KiB, a full context reserved per sequence, a replica's running batch bounded by
its memory and by the TPOT target, a fleet within 60% of its dense peak (feasible.py, on
the engine's feasibility layer), the engine using a fraction
`gpu_memory_utilization` of each GPU, tensor parallelism a power of two within one
instance of the priced type (`Brief.tp_limit`) that keeps `kv_reserve_fraction` of every
GPU free of weights, and a month of 730 hours.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from capstone.memo_review import feasible
from hardware_db.prices import HOURS_PER_MONTH
from problems.engine.variants import ParamError, Variant

if TYPE_CHECKING:
    from capstone.memo_review.brief import Brief

WEIGHTS_UNIT = "GB"
KV_UNIT = "KiB"
TP_DEGREES = (1, 2, 4, 8)
SECONDS_PER_DAY = 86_400


def weights(n_params: int, weight_dtype: str) -> Variant:
    """weights-memory: the model's weights, in GB."""
    return Variant.from_params(
        "weights-memory",
        {"n_params": float(n_params), "precision": weight_dtype, "unit": WEIGHTS_UNIT},
    )


def kv_per_token(n_layers: int, n_kv_heads: int, head_dim: int, kv_dtype: str) -> Variant:
    """kv-cache-per-token: K and V of every layer for one token, in KiB."""
    return Variant.from_params(
        "kv-cache-per-token",
        {
            "n_layers": n_layers,
            "n_kv_heads": n_kv_heads,
            "head_dim": head_dim,
            "kv_dtype": kv_dtype,
            "unit": KV_UNIT,
        },
    )


def tp_min(n_params: int, weight_dtype: str, usable_gib: float, reserve: float) -> Variant:
    """tp-min-gpus: the smallest power-of-two degree whose GPUs hold the weights."""
    return Variant.from_params(
        "tp-min-gpus",
        {
            "n_params": float(n_params),
            "weight_dtype": weight_dtype,
            "gpu_mem_gib": usable_gib,
            "reserve_fraction": reserve,
        },
    )


@dataclass(frozen=True)
class ModelShape:
    n_params: int
    n_layers: int
    n_kv_heads: int
    head_dim: int
    weight_dtype: str
    kv_dtype: str


def max_sequences(
    shape: ModelShape, usable_gib: float, tp: int, utilization: float, context: int
) -> Variant:
    """kv-max-sequences: full-context sequences one replica of `tp` GPUs holds."""
    return Variant.from_params(
        "kv-max-sequences",
        {
            "gpu_mem_gib": usable_gib,
            "n_gpus": tp,
            "gpu_mem_util": utilization,
            "n_params": float(shape.n_params),
            "weight_dtype": shape.weight_dtype,
            "n_layers": shape.n_layers,
            "n_kv_heads": shape.n_kv_heads,
            "head_dim": shape.head_dim,
            "kv_dtype": shape.kv_dtype,
            "seq_len": context,
        },
    )


def littles_law(peak_rps: float, slot_seconds: float, per_replica: int) -> Variant:
    """littles-law: sequences in flight at the peak (lambda x W) and the replicas for them."""
    return Variant.from_params(
        "littles-law",
        {
            "arrival_rps": peak_rps,
            "latency_s": slot_seconds,
            # The template's bound; a replica holding a million sequences is one replica.
            "per_replica_concurrency": min(max(1, per_replica), 1_000_000),
        },
    )


def monthly_cost(gpus: int | float, usd_per_gpu_hour: float) -> float:
    return gpus * usd_per_gpu_hour * HOURS_PER_MONTH


@dataclass(frozen=True)
class Plan:
    """Every key figure for one choice of accelerator, tensor parallel and context.

    `seqs` is what memory holds (full-context sequences, kv-max-sequences) and
    `seqs_tpot` what one replica decodes within the TPOT target; the running batch is
    the smaller (`batch`). Replicas are the more of Little's law at that batch and the
    compute floor (`replicas_compute`: the peak's FLOPs at 60% of dense peak); `binding`
    names which of "memory", "tpot" and "compute" set them. `seqs` or `batch` is 0 and
    `replicas`/`gpus`/`cost` are None when the weights leave no room for a sequence, or
    even one sequence decodes slower than the TPOT target (the fleet cannot be built).
    `ttft_ok`: the p99 prompt's prefill on one replica fits the TTFT target."""

    accelerator: str
    tp: int
    context: int
    weights_gb: float
    kv_kib: float
    tp_min: int
    seqs: int
    peak_concurrency: float
    replicas: int | None
    gpus: int | None
    cost: float | None
    variants: dict[str, Variant]
    seqs_tpot: int = 0
    batch: int = 0
    replicas_compute: int = 0
    binding: str = ""
    ttft_ok: bool = False

    def variant(self, name: str) -> Variant:
        return self.variants[name]


def plan(brief: Brief, accelerator: str, tp: int, context: int) -> Plan:
    """The recomputed figures for `brief` at the memo's choices."""
    cand = brief.candidate(accelerator)
    if cand is None:
        raise ValueError(f"{accelerator!r} is not one of the brief's candidates")
    shape = brief.shape
    w = weights(shape.n_params, shape.weight_dtype)
    kv = kv_per_token(shape.n_layers, shape.n_kv_heads, shape.head_dim, shape.kv_dtype)
    tmin = tp_min(shape.n_params, shape.weight_dtype, cand.usable_gib, brief.kv_reserve_fraction)
    variants = {"weights": w, "kv": kv, "tp_min": tmin}
    seqs = 0
    try:
        sv = max_sequences(shape, cand.usable_gib, tp, brief.gpu_memory_utilization, context)
        variants["seqs"] = sv
        seqs = int(sv.parts["max_seqs"].value)
    except ParamError:
        pass
    seqs_tpot = feasible.tpot_batch(brief, cand, tp)
    batch = min(seqs, seqs_tpot)
    little = littles_law(brief.peak_rps, brief.slot_seconds, batch)
    variants["little"] = little
    replicas = gpus = cost = None
    by_compute = feasible.compute_replicas(brief, cand, tp)
    binding = ""
    if batch >= 1:
        by_batch = int(little.parts["replicas"].value)
        replicas = max(by_batch, by_compute)
        binding = "compute" if by_compute > by_batch else "tpot" if seqs_tpot < seqs else "memory"
        gpus = replicas * tp
        cost = monthly_cost(gpus, cand.usd_per_gpu_hour)
    ttft = feasible.ttft_verdict(brief, cand, tp)
    return Plan(
        accelerator=cand.slug,
        tp=tp,
        context=context,
        weights_gb=float(w.parts["weights"].value),
        kv_kib=float(kv.parts["per_token"].value),
        tp_min=int(tmin.parts["min_gpus"].value),
        seqs=seqs,
        peak_concurrency=float(little.parts["concurrency"].value),
        replicas=replicas,
        gpus=gpus,
        cost=cost,
        variants=variants,
        seqs_tpot=seqs_tpot,
        batch=batch,
        replicas_compute=by_compute,
        binding=binding,
        ttft_ok=ttft.ok,
    )


def best_plan(brief: Brief, accelerator: str | None = None) -> Plan:
    """The cheapest buildable plan at the brief's minimum context (the example memo's),
    over the candidates (or one of them) and the degrees from each one's minimum to 8,
    among those whose prefill of the p99 prompt meets the TTFT target."""
    best: Plan | None = None
    slugs = [accelerator] if accelerator else [c.slug for c in brief.candidates]
    for slug in slugs:
        cand = brief.candidate(slug)
        first = plan(brief, cand.slug, TP_DEGREES[0], brief.min_context).tp_min
        for tp in TP_DEGREES:
            if first == 0 or tp < first or tp > brief.tp_limit(cand):
                continue
            p = plan(brief, cand.slug, tp, brief.min_context)
            if p.cost is not None and p.ttft_ok and (best is None or p.cost < best.cost - 1e-9):
                best = p
    if best is None:
        raise ValueError("no buildable plan for this brief")
    return best
