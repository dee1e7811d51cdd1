"""The vLLM deployments and the /metrics text format vllm-metrics-diagnosis uses: real
models on accelerators that hold them, the num_gpu_blocks and num_cpu_blocks vLLM would
report for each, and the V0 engine's HELP and TYPE lines. Data and formatting only;
registers no template.

The scrape is vLLM 0.7's V0 engine (vllm/engine/metrics.py; a public V0 /metrics capture
in vllm-project/aibrix, docs/source/features/runtime.rst): `num_requests_running` is
"Number of requests currently running on GPU." there (the V1 engine's text, "Number of
requests in model execution batches.", is the one in spec/tool-output/vllm-metrics/
sample-1.txt), the other series share their text with V1. `vllm:cache_config_info`
carries the CacheConfig as sorted labels, num_cpu_blocks among them: the 4 GiB swap
space (swap_space_bytes) over one block's K and V on one GPU, as the capture's 9362
blocks for Qwen2.5-1.5B (28 layers x 2 KV heads x 128 x 2 x 2 bytes x 16 tokens) show."""

from __future__ import annotations

import math
from typing import Literal

from hardware_db import catalog

BLOCK = 16  # vLLM's default block size, tokens
UTIL = 0.9  # --gpu-memory-utilization default
SWAP_BYTES = 4 * 2**30  # --swap-space default, 4 GiB per GPU
# key: (model slug, served name, accelerator slug, tensor-parallel size)
DEPLOYMENTS: dict[str, tuple[str, str, str, int]] = {
    "llama-3.1-8b-h100": ("llama-3.1-8b", "meta-llama/Llama-3.1-8B-Instruct", "h100-sxm", 1),
    "llama-3.1-8b-l40s": ("llama-3.1-8b", "meta-llama/Llama-3.1-8B-Instruct", "l40s", 1),
    "llama-3.1-70b-h100x4": ("llama-3.1-70b", "meta-llama/Llama-3.1-70B-Instruct", "h100-sxm", 4),
    "llama-3.1-70b-h200x2": ("llama-3.1-70b", "meta-llama/Llama-3.1-70B-Instruct", "h200", 2),
    "qwen2.5-72b-h100x4": ("qwen2.5-72b", "Qwen/Qwen2.5-72B-Instruct", "h100-sxm", 4),
    "mixtral-8x7b-h100x2": ("mixtral-8x7b", "mistralai/Mixtral-8x7B-Instruct-v0.1", "h100-sxm", 2),
}
Deployment = Literal[
    "llama-3.1-8b-h100",
    "llama-3.1-8b-l40s",
    "llama-3.1-70b-h100x4",
    "llama-3.1-70b-h200x2",
    "qwen2.5-72b-h100x4",
    "mixtral-8x7b-h100x2",
]


def go_float(x: float) -> str:
    """A sample value as prometheus_client writes it (Go-style exponent from 1e6 up)."""
    s = repr(float(x))
    dot = s.find(".")
    if x > 0 and dot > 6 and "e" not in s:
        mantissa = f"{s[0]}.{s[1:dot]}{s[dot + 1 :]}".rstrip("0").rstrip(".")
        return f"{mantissa}e+0{dot - 1}"
    return s


HELP = {
    "num_requests_running": ("gauge", "Number of requests currently running on GPU."),
    "num_requests_waiting": ("gauge", "Number of requests waiting to be processed."),
    "gpu_cache_usage_perc": ("gauge", "GPU KV-cache usage. 1 means 100 percent usage."),
    "num_preemptions_total": ("counter", "Cumulative number of preemption from the engine."),
    "prompt_tokens_total": ("counter", "Number of prefill tokens processed."),
    "generation_tokens_total": ("counter", "Number of generation tokens processed."),
}
GREP = (
    "grep -E 'vllm:(cache_config|num_requests_(running|waiting)|gpu_cache|num_pre"
    "|[a-z]+_tokens_total)'"
)


def block_bytes(deployment: str) -> float:
    """One 16-token block of BF16 K and V on one GPU of the deployment."""
    slug, _, _, tp = DEPLOYMENTS[deployment]
    return BLOCK * catalog.model(slug).kv_bytes_per_token(2) / tp


def cpu_blocks(deployment: str) -> int:
    """num_cpu_blocks V0 reports: the swap space over one block."""
    return math.floor(SWAP_BYTES / block_bytes(deployment))


def gpu_blocks(deployment: str) -> int:
    """num_gpu_blocks vLLM would report for this deployment (per GPU, 16-token blocks)."""
    slug, _, acc_slug, tp = DEPLOYMENTS[deployment]
    model, acc = catalog.model(slug), catalog.accelerator(acc_slug)
    overhead = 2 if model.total_params < 20e9 else 4  # GiB of activations and graphs
    budget = acc.usable_gib * 2**30 * UTIL - model.total_params * 2 / tp - overhead * 2**30
    return math.floor(budget / block_bytes(deployment))
