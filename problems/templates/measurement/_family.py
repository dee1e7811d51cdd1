"""What the measurement templates share: the deployments their data comes from, the
decode-bound server model that produces it, and the system a variant describes for the
feasibility checks. Registers no template.

The server model (stated in words by each statement that needs it, and in the docstrings
of the templates): a decode step of a running batch of c sequences takes the longer of
reading the weights and the batch's KV cache over HBM (feasibility.decode_floor_s) and
computing its tokens, the c decoded tokens plus the c P / O prompt tokens a closed loop
prefills per step on average, at 60% of the dense BF16 peak (the checks' ceiling), times
a slack of 1.3-1.8 (kernels, scheduling, sampling: real steps are slower than the floor).
A prompt's prefill alone takes its FLOPs at that ceiling, times the same slack. Steps grow
with c, so throughput c / step rises and flattens while every user's token gap stretches:
the decode-bound knee. Beyond the sequences memory holds (largest_decode_batch), extra
requests wait in the server's queue: throughput stays flat and TTFT grows by the wait.

Sources for the vocabulary: vLLM's serving benchmark (vllm/benchmarks/serve.py,
https://docs.vllm.ai/en/v0.15.0/api/vllm/benchmarks/serve/: completed and failed counts,
mean, median and p99 TTFT, TPOT, ITL and end-to-end latency, the last measured on the
client from sending the request to receiving the whole response); OpenAI-compatible
finish reasons `stop` and `length` (vLLM's `abort` for a request the client dropped).
The nearest-rank percentile: the value at rank ceil(p n / 100) of the n values sorted
ascending (Wikipedia, "Percentile", the nearest-rank method).
"""

from __future__ import annotations

import math
from typing import Literal

from hardware_db import catalog
from problems.engine.feasibility import (
    COMPUTE_CEILING,
    Device,
    Model,
    Plan,
    SystemDescription,
    Traffic,
    decode_floor_s,
    largest_decode_batch,
)

# key: (model slug, served name, accelerator slug, tensor-parallel size); BF16 weights
# and cache, each fits with room for at least 64 sequences of a few thousand tokens.
DEPLOYMENTS: dict[str, tuple[str, str, str, int]] = {
    "llama-3.1-8b-h100": ("llama-3.1-8b", "meta-llama/Llama-3.1-8B-Instruct", "h100-sxm", 1),
    "llama-3.1-8b-l40s": ("llama-3.1-8b", "meta-llama/Llama-3.1-8B-Instruct", "l40s", 1),
    "mistral-7b-a100": ("mistral-7b", "mistralai/Mistral-7B-Instruct-v0.3", "a100-sxm-80gb", 1),
    "llama-3.1-70b-h100x4": ("llama-3.1-70b", "meta-llama/Llama-3.1-70B-Instruct", "h100-sxm", 4),
    "llama-3.1-70b-h200x2": ("llama-3.1-70b", "meta-llama/Llama-3.1-70B-Instruct", "h200", 2),
    "qwen2.5-72b-mi300x2": ("qwen2.5-72b", "Qwen/Qwen2.5-72B-Instruct", "mi300x", 2),
}
Deployment = Literal[
    "llama-3.1-8b-h100",
    "llama-3.1-8b-l40s",
    "mistral-7b-a100",
    "llama-3.1-70b-h100x4",
    "llama-3.1-70b-h200x2",
    "qwen2.5-72b-mi300x2",
]


def served_on(dep: str) -> str:
    """ "`meta-llama/Llama-3.1-70B-Instruct` in BF16 on 4 x NVIDIA H100 SXM5 80GB" """
    _, name, acc_slug, tp = DEPLOYMENTS[dep]
    acc = catalog.accelerator(acc_slug)
    where = f"one {acc.prose_name}" if tp == 1 else f"{tp} x {acc.prose_name}"
    return f"`{name}` in BF16 on {where}"


def system(
    dep: str,
    batch: float = 0,
    context: float = 0,
    decode_tok_s: float = 0.0,
    prefill_tok_s: float = 0.0,
    prompt: float = 0.0,
) -> SystemDescription:
    """The deployment running `batch` sequences of `context` cached tokens, decoding and
    prefilling (prompts of `prompt` tokens) at the given rates."""
    slug, _, acc_slug, tp = DEPLOYMENTS[dep]
    return SystemDescription(
        model=Model.of(slug),
        device=Device.of(acc_slug),
        plan=Plan(tp=tp, weights_dtype="bf16", kv_dtype="bf16"),
        traffic=Traffic(
            decode_tok_s=decode_tok_s,
            prefill_tok_s=prefill_tok_s,
            prompt_tokens=prompt,
            context_tokens=context,
            decode_batch=batch or None,
        ),
    )


def _peak(d: SystemDescription) -> float:
    return COMPUTE_CEILING * d.plan.devices * d.device.dense_flops["bf16"]


def prefill_ms(dep: str, prompt: int, slack: float) -> float:
    """One prompt's prefill alone: its FLOPs at the compute ceiling, times the slack."""
    d = system(dep)
    return slack * 1000 * prompt * d.model.flops_per_token(prompt / 2) / _peak(d)


def step_ms(dep: str, batch: int, prompt: int, output: int, slack: float) -> float:
    """A decode step of `batch` sequences in a closed loop of prompt/output requests: the
    longer of the HBM floor and the compute of its tokens, times the slack."""
    context = prompt + output / 2
    d = system(dep, batch, context)
    memory = decode_floor_s(d, batch)
    tokens = batch * d.model.flops_per_token(context)
    tokens += batch * prompt / output * d.model.flops_per_token(prompt / 2)
    return slack * 1000 * max(memory, tokens / _peak(d))


def most_running(dep: str, context: float) -> int:
    """The sequences of `context` tokens the deployment's memory holds at once."""
    return largest_decode_batch(system(dep, 1, context))


def nearest_rank(values: list[int] | list[float], pct: float) -> float:
    """The nearest-rank percentile: the value at rank ceil(pct n / 100), sorted ascending."""
    ordered = sorted(values)
    rank = max(1, math.ceil(pct * len(ordered) / 100))
    return ordered[rank - 1]
