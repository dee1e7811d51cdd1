"""Can a fleet serve its brief? The capstone's questions put to the engine's feasibility layer.

The reference plan (figures.plan) is sized with these functions and the review holds the
memo's fleet to the same four checks, so both use one arithmetic, the engine's
(problems.engine.feasibility): nothing here re-derives a FLOP count or a step time.

The system is described from the brief's own stored figures (its candidates' memory,
bandwidth and quoted dense peak; the model's shape), never from the catalog, so a brief
kept under a memo is judged by the numbers it showed the learner.

Two descriptions of one fleet, because the brief's conventions differ by question:
- memory: every running sequence reserves its full context (the memo's context);
- compute, TTFT, TPOT: what a step really does, so a decoding sequence holds its mean
  cache, the mean prompt plus half the mean output, and prefill attends to half the
  mean prompt (causal). The TTFT check prefills the p99 prompt on one replica's GPUs.
Load is the brief's peak: requests/s x mean prompt tokens prefilled, x mean output
tokens decoded; the running batch per replica is the peak's sequences in flight (Little's
law) over the replicas, rounded up.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from problems.engine.feasibility import (
    COMPUTE,
    COMPUTE_CEILING,
    MEMORY,
    TPOT,
    TTFT,
    Device,
    Model,
    Plan,
    Slo,
    SystemDescription,
    Traffic,
    Verdict,
    check,
    largest_decode_batch,
)

if TYPE_CHECKING:
    from capstone.memo_review.brief import Brief, Candidate

# The checks a fleet must pass, in the order the review names a failure.
FLEET_CHECKS = (COMPUTE, MEMORY, TTFT, TPOT)


def model(brief: Brief) -> Model:
    return Model(
        name=brief.model_name,
        total_params=float(brief.n_params),
        active_params=float(brief.n_params),
        kv_elements_per_token=2.0 * brief.n_layers * brief.n_kv_heads * brief.head_dim,
        n_layers=brief.n_layers,
        attention_dim=brief.n_heads * brief.head_dim,
        max_context=brief.max_context,
    )


def device(cand: Candidate) -> Device:
    return Device(
        name=cand.name,
        memory_bytes=cand.usable_gib * 2**30,
        mem_bw_bytes_per_s=cand.mem_bw_tb_s * 1e12,
        dense_flops={cand.dense_dtype: cand.dense_tflops * 1e12},
    )


def mean_context(brief: Brief) -> float:
    """Tokens in a decoding sequence's cache on average: its prompt and half its output."""
    return brief.prompt_tokens_mean + brief.output_tokens_mean / 2


def describe(
    brief: Brief,
    cand: Candidate,
    tp: int,
    replicas: int = 1,
    context: float | None = None,
    batch: float | None = None,
) -> SystemDescription:
    """The fleet of `replicas` x `tp` GPUs of `cand` at the brief's peak. `context` is
    what each running sequence holds in memory (None: its mean cache, the step's view)."""
    return SystemDescription(
        model=model(brief),
        device=device(cand),
        plan=Plan(
            replicas=replicas,
            tp=tp,
            weights_dtype=brief.weight_dtype,
            kv_dtype=brief.kv_dtype,
            compute_dtype=cand.dense_dtype,
            memory_fraction=brief.gpu_memory_utilization,
        ),
        traffic=Traffic(
            prefill_tok_s=brief.peak_rps * brief.prompt_tokens_mean,
            decode_tok_s=brief.peak_rps * brief.output_tokens_mean,
            prompt_tokens=brief.prompt_tokens_mean,
            context_tokens=mean_context(brief) if context is None else context,
            decode_batch=batch,
        ),
        slo=Slo(
            ttft_s=brief.ttft_p99_ms / 1000,
            ttft_prompt_tokens=brief.prompt_tokens_p99,
            tpot_s=brief.tpot_ms / 1000,
        ),
    )


def tpot_batch(brief: Brief, cand: Candidate, tp: int) -> int:
    """The most sequences one replica can decode within the TPOT target: each step reads
    the weights once and every sequence's mean cache (the engine's largest_decode_batch;
    the full-context memory bound is the kv-max-sequences template's)."""
    return largest_decode_batch(describe(brief, cand, tp))


def compute_replicas(brief: Brief, cand: Candidate, tp: int) -> int:
    """The fewest replicas whose GPUs serve the peak's prefill and decode FLOPs at no more
    than COMPUTE_CEILING of their dense peak."""
    v = check(describe(brief, cand, tp, replicas=1), COMPUTE)
    return max(1, math.ceil(v.need / v.limit * (1 - 1e-12)))


def ttft_verdict(brief: Brief, cand: Candidate, tp: int) -> Verdict:
    """The p99 prompt prefilled on one replica's `tp` GPUs at COMPUTE_CEILING of their
    peak, against the TTFT target (nothing queued ahead of it)."""
    return check(describe(brief, cand, tp), TTFT)


def running_batch(peak_concurrency: float, replicas: int) -> int:
    return math.ceil(peak_concurrency / replicas - 1e-9)


def fleet_verdicts(
    brief: Brief, cand: Candidate, tp: int, replicas: int, context: int, peak_concurrency: float
) -> list[Verdict]:
    """The four checks of a fleet, in FLEET_CHECKS order: compute against 60% of peak,
    weights plus full-context KV of the running batch within memory, the p99 prompt's
    prefill within TTFT, the decode step at the running batch within TPOT."""
    batch = running_batch(peak_concurrency, replicas)
    step = describe(brief, cand, tp, replicas, batch=batch)
    held = describe(brief, cand, tp, replicas, context=context, batch=batch)
    return [check(held if name == MEMORY else step, name) for name in FLEET_CHECKS]


__all__ = [
    "COMPUTE_CEILING",
    "FLEET_CHECKS",
    "compute_replicas",
    "describe",
    "fleet_verdicts",
    "running_batch",
    "tpot_batch",
    "ttft_verdict",
]
