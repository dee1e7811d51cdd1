"""The systems the serving templates' variants describe, for their feasibility
declarations: a model on n devices with tensor parallelism, whose weights (and, for a
batched decode step, the running sequences' cache) must fit every named part within 90%
of its memory. Before issue 34 a statement could name a part the deployment does not fit
(405B FP8 on four devices named "H100 / H200"; 405B BF16 on four Gaudi 3): 2 of 300
decode-tpot-floor variants, 5 of decode-step-batched, 15 of prefill-time and 12 of
prefix-cache-ttft. Registers no template.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from problems.engine.feasibility import MEMORY, Feasibility, Plan, SystemDescription, Traffic
from problems.engine.numbers import BYTES_PER_ELEMENT
from problems.templates._system import device_by_bandwidth, device_by_peak, model_by_params
from problems.templates.kv_cache._family import token_bytes


def _decode(p: Any) -> SystemDescription:
    """decode-tpot-floor: weights over n devices read at a stated bandwidth."""
    return SystemDescription(
        model=model_by_params(p.n_params),
        device=device_by_bandwidth(p.mem_bw_tbps),
        plan=Plan(tp=p.n_gpus, weights_dtype=p.weight_dtype),
    )


def _moe_decode(p: Any) -> SystemDescription:
    return SystemDescription(
        model=model_by_params(p.n_total_params, p.n_active_params),
        device=device_by_bandwidth(p.mem_bw_tbps),
        plan=Plan(tp=p.n_gpus, weights_dtype=p.weight_dtype),
    )


def _batched_step(p: Any) -> SystemDescription:
    """decode-step-batched: the weights and every running sequence's cache, of the
    attention shape the statement gives."""
    per_token = token_bytes(p.n_layers, p.n_kv_heads, p.head_dim, p.kv_dtype)
    model = model_by_params(p.n_params)
    return SystemDescription(
        model=replace(model, kv_elements_per_token=per_token / BYTES_PER_ELEMENT[p.kv_dtype]),
        device=device_by_bandwidth(p.mem_bw_tbps),
        plan=Plan(tp=p.n_gpus, weights_dtype=p.weight_dtype, kv_dtype=p.kv_dtype),
        traffic=Traffic(decode_batch=p.batch_size, context_tokens=p.context_tokens),
    )


def _prefill(p: Any) -> SystemDescription:
    """prefill-time and prefix-cache-ttft: weights in the precision of the named peak."""
    device, precision = device_by_peak(p.peak_tflops)
    return SystemDescription(
        model=model_by_params(p.n_params),
        device=device,
        plan=Plan(tp=p.n_gpus, weights_dtype=precision),
    )


DECODE = Feasibility((MEMORY,), _decode)
MOE_DECODE = Feasibility((MEMORY,), _moe_decode)
BATCHED_STEP = Feasibility((MEMORY,), _batched_step)
PREFILL = Feasibility((MEMORY,), _prefill)
