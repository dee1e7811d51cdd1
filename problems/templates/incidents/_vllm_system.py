"""The system two vLLM scrapes describe, for the feasibility checks, and the rates a
deployment can sustain in a given state, for vllm-metrics-diagnosis to draw within.

Between the scrapes the server prefilled the prompt-token delta and decoded the
generation-token delta; every running sequence gains one token per decode step, so the
step lasts (mean running) / (generation rate). That is physical only if the step is no
shorter than reading the weights and the cache in use over HBM (decode-step), and the
FLOPs of both deltas fit within 60% of the GPUs' dense BF16 peak (compute). Before issue
34 about 12% of scrapes broke each (70B on 2 x H200 at 4.7x its peak; 8B on one L40S
decoding twice as fast as its HBM allows). Registers no template.
"""

from __future__ import annotations

import random
from typing import Any

from problems.engine.feasibility import (
    CAPS,
    COMPUTE,
    COMPUTE_CEILING,
    DECODE_STEP,
    MEMORY,
    Cap,
    Device,
    Feasibility,
    Model,
    Plan,
    SystemDescription,
    Traffic,
    decode_floor_s,
)
from problems.templates.incidents._vllm import BLOCK, DEPLOYMENTS, gpu_blocks

# Share of the compute ceiling a drawn decode rate may take, leaving the rest for prefill.
DECODE_SHARE = 0.5


def _system(deployment: str, traffic: Traffic, caps: tuple[Cap, ...] = ()) -> SystemDescription:
    slug, _, acc_slug, tp = DEPLOYMENTS[deployment]
    return SystemDescription(
        model=Model.of(slug),
        device=Device.of(acc_slug),
        plan=Plan(replicas=1, tp=tp, weights_dtype="bf16", kv_dtype="bf16"),
        traffic=traffic,
        caps=caps,
    )


def _state(running: tuple[int, int], blocks: tuple[int, int]) -> tuple[float, float]:
    """(mean running batch, tokens cached per running sequence at the fuller scrape)."""
    batch = max(sum(running) / 2, 1)
    return batch, max(blocks) * BLOCK / batch


def describe(p: Any) -> SystemDescription:
    batch, context = _state(p.running, p.blocks_used)
    traffic = Traffic(
        prefill_tok_s=(p.prompt_tokens[1] - p.prompt_tokens[0]) / p.interval_s,
        decode_tok_s=(p.generation_tokens[1] - p.generation_tokens[0]) / p.interval_s,
        context_tokens=context,
        decode_batch=batch,
    )
    caps = (
        Cap("running sequences under --max-num-seqs", max(p.running), p.max_num_seqs),
        Cap("KV blocks in use of num_gpu_blocks", max(p.blocks_used), gpu_blocks(p.deployment)),
    )
    return _system(p.deployment, traffic, caps)


FEASIBILITY = Feasibility((COMPUTE, DECODE_STEP, MEMORY, CAPS), describe)


def draw_decode_rate(rng: random.Random, deployment: str, running: tuple, blocks: tuple) -> float:
    """A per-sequence decode rate (tok/s) as measured, 12-30 for 70B-class models and 20-45
    for the rest, capped a little below what the state allows (fastest_per_sequence)."""
    lo, hi = (12, 30) if DEPLOYMENTS[deployment][0].endswith(("70b", "72b")) else (20, 45)
    hi = min(hi, 0.95 * fastest_per_sequence(deployment, running, blocks))
    return rng.uniform(min(lo, 0.6 * hi), hi)


def draw_prompt_tokens(
    rng: random.Random,
    deployment: str,
    running: tuple,
    blocks: tuple,
    gen: int,
    interval: int,
) -> int:
    """Prompt tokens prefilled over the interval: 0.5-6 per token generated in it (`gen`;
    chat prompts are longer than answers), within what the compute ceiling leaves."""
    most = 0.95 * most_prompt_tokens_per_s(deployment, running, blocks, gen / interval)
    top = min(6, most * interval / gen)
    return round(gen * rng.uniform(min(0.5, top / 2), top))


def fastest_per_sequence(deployment: str, running: tuple, blocks: tuple) -> float:
    """The decode rate per running sequence (tok/s) this state allows: the HBM floor of
    a step, and DECODE_SHARE of the compute ceiling for the whole batch."""
    batch, context = _state(running, blocks)
    d = _system(deployment, Traffic(context_tokens=context, decode_batch=batch))
    budget = COMPUTE_CEILING * d.plan.devices * d.device.dense_flops["bf16"]
    by_compute = DECODE_SHARE * budget / (batch * d.model.flops_per_token(context))
    return min(1 / decode_floor_s(d, batch), by_compute)


def most_prompt_tokens_per_s(deployment: str, running: tuple, blocks: tuple, gen: float) -> float:
    """The prefill rate (tok/s) the compute ceiling leaves beside `gen` tok/s of decode."""
    batch, context = _state(running, blocks)
    d = _system(deployment, Traffic())
    budget = COMPUTE_CEILING * d.plan.devices * d.device.dense_flops["bf16"]
    spare = budget - gen * d.model.flops_per_token(context)
    return max(spare, 0.0) / d.model.flops_per_token(0)
