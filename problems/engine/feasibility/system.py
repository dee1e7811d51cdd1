"""The system a variant describes, as typed figures the checks can test.

Plain frozen dataclasses of numbers, so a description can come from anywhere: a generator's
parameters, a capstone brief and its plan, an incident drill's cluster state. The `of()`
constructors read hardware_db.catalog (Django-free, cached), so the figures are the ones the
generators state: usable memory as the driver reports it (Accelerator.usable_bytes), dense
peaks per precision, the KV elements per token from ModelArch.kv_bytes_per_token (MLA-aware).
Everything else here is arithmetic; no Django, no database, no file of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from problems.engine.numbers import BYTES_PER_ELEMENT

# What a plan computes in when its weights are stored in a format the tensor cores do not
# multiply in: weight-only INT8/INT4 (AWQ, GPTQ) dequantise to BF16; FP32 matmuls run as
# TF32 on the parts that publish it.
_COMPUTES_IN = {"int8": "bf16", "int4": "bf16", "fp32": "tf32"}


@dataclass(frozen=True)
class Model:
    """What the checks need of a model: parameters (all, and those one token uses), the
    K and V elements one token caches across all layers, and its attention shape for the
    attention FLOPs (2 L n_ctx d_attn per token, Kaplan et al. 2020; formulas.md sec. 7)."""

    name: str
    total_params: float
    active_params: float
    kv_elements_per_token: float
    n_layers: int = 0
    attention_dim: int = 0  # query heads x head dim; 0 leaves the attention FLOPs out
    max_context: int | None = None

    @classmethod
    def of(cls, slug: str) -> Model:
        from hardware_db import catalog

        m = catalog.model(slug)
        return cls(
            name=m.name,
            total_params=float(m.total_params),
            active_params=float(m.active_params),
            kv_elements_per_token=m.kv_bytes_per_token(1),
            n_layers=m.n_layers,
            attention_dim=m.n_heads * m.head_dim,
            max_context=m.max_context,
        )

    def weight_bytes(self, dtype: str) -> float:
        return self.total_params * BYTES_PER_ELEMENT[dtype]

    def kv_bytes_per_token(self, dtype: str) -> float:
        return self.kv_elements_per_token * BYTES_PER_ELEMENT[dtype]

    def flops_per_token(self, context: float) -> float:
        """Forward FLOPs of one token attending to `context` earlier tokens: 2 N_active
        (the 2N approximation every template uses) plus Kaplan's attention term."""
        return 2 * self.active_params + 2 * self.n_layers * context * self.attention_dim


@dataclass(frozen=True)
class Device:
    """One accelerator: usable memory (bytes), HBM bandwidth (bytes/s, decimal), dense
    peaks by precision (FLOP/s), and its scale-up domain (how many devices tensor
    parallelism may span on the fast fabric, and that fabric's per-direction bytes/s)."""

    name: str
    memory_bytes: float
    mem_bw_bytes_per_s: float
    dense_flops: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    scale_up_domain: int | None = None
    scale_up_bytes_per_s: float | None = None

    @classmethod
    def of(cls, slug: str, scale_up_domain: int | None = None) -> Device:
        from hardware_db import catalog

        a = catalog.accelerator(slug)
        return cls(
            name=f"{a.vendor} {a.name}",
            memory_bytes=a.usable_bytes,
            mem_bw_bytes_per_s=float(a.mem_bw_bytes_per_s),
            dense_flops=a.dense_flops,
            scale_up_domain=scale_up_domain,
            scale_up_bytes_per_s=a.scale_up_bw_bytes_per_s_per_direction,
        )


@dataclass(frozen=True)
class Plan:
    """How the model is deployed: `replicas` copies, each over tp x pp devices.

    `compute_dtype` is the precision the matmuls run in; None takes the weights' format
    where tensor cores multiply in it (BF16, FP16, FP8, FP4) and BF16 for weight-only
    INT8/INT4. `memory_fraction` is the share of a device's memory the engine may fill
    (vLLM's gpu_memory_utilization default, 0.9: the rest is CUDA context, activations and
    communication buffers). `decode_capacity_tok_s` is a stated per-replica decode
    throughput, when the variant states one instead of deriving it."""

    replicas: int = 1
    tp: int = 1
    pp: int = 1
    weights_dtype: str = "bf16"
    kv_dtype: str = "bf16"
    compute_dtype: str | None = None
    memory_fraction: float = 0.9
    decode_capacity_tok_s: float | None = None

    @property
    def devices_per_replica(self) -> int:
        return self.tp * self.pp

    @property
    def devices(self) -> int:
        return self.replicas * self.tp * self.pp

    @property
    def computes_in(self) -> str:
        if self.compute_dtype is not None:
            return self.compute_dtype
        return _COMPUTES_IN.get(self.weights_dtype, self.weights_dtype)


@dataclass(frozen=True)
class Traffic:
    """The load on the whole fleet. Tokens per second prefilled (prompt) and decoded
    (output); `prompt_tokens`, the mean prompt (a prefill token attends to half of it on
    average, causal); `context_tokens`, the mean tokens in a decoding sequence's cache
    (read every step, held in memory); `decode_batch`, the sequences one replica decodes
    together in a step (its running batch)."""

    prefill_tok_s: float = 0.0
    decode_tok_s: float = 0.0
    prompt_tokens: float = 0.0
    context_tokens: float = 0.0
    decode_batch: float | None = None


@dataclass(frozen=True)
class Slo:
    """Latency targets: TTFT for a prompt of `ttft_prompt_tokens` (the percentile's
    prompt, say p99), and TPOT as the per-step time of a decoding sequence."""

    ttft_s: float | None = None
    ttft_prompt_tokens: float | None = None
    tpot_s: float | None = None


@dataclass(frozen=True)
class LinkLoad:
    """A demand on one link or collective: bytes/s it needs per direction, and what the
    link carries per direction (busbw against the link peak, a KV transfer against the
    NIC)."""

    name: str
    need_bytes_per_s: float
    link_bytes_per_s: float


@dataclass(frozen=True)
class Cap:
    """A scheduler limit and what is held under it: a user's running GPUs against the
    QOS's MaxTRESPerUser, a server's running sequences against --max-num-seqs. Slurm and
    vLLM enforce these when they start work, so nothing in use can exceed them."""

    name: str
    in_use: float
    limit: float


@dataclass(frozen=True)
class SystemDescription:
    """Everything a check may look at. Leave out what a variant does not describe: a check
    whose inputs are missing does not apply (check_all skips it; a template that declares
    it fails)."""

    model: Model | None = None
    device: Device | None = None
    plan: Plan = field(default_factory=Plan)
    traffic: Traffic = field(default_factory=Traffic)
    slo: Slo = field(default_factory=Slo)
    links: tuple[LinkLoad, ...] = ()
    caps: tuple[Cap, ...] = ()
