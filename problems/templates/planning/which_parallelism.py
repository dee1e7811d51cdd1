"""which-parallelism: which parallelism a model and a cluster call for first, and the
fewest GPUs whose memory holds the model. A catalog model is trained (mixed-precision
Adam, 16 bytes per parameter: BF16 weights and gradients, FP32 master copy and two FP32
moments) or served (weights only, in BF16, FP8 or INT4) on 8-GPU nodes of a catalog
accelerator, keeping a stated share of each GPU free for activations or the KV cache.

The rule taught is the usual ladder, going up a rung only when memory forces it:
a replica that fits one GPU needs only data parallelism; for a dense model, training
states that fit once sharded over one node call for FSDP / ZeRO-3, and served weights
that fit one node call for tensor parallelism over the node's NVLink (or Infinity
Fabric); weights too big for one node add pipeline parallelism across nodes, with
tensor parallelism inside each (vLLM's documented recipe: TP = GPUs per node, PP =
nodes). Since that layout uses both, the question says so: when one node cannot hold
the model, tensor parallelism inside each node is given and the answer is the split
between the nodes (issue 34: "pipeline-parallel" alone read as wrong to anyone who
would run TP = 8 in the node). A mixture-of-experts model that does not fit one GPU is
split by experts (expert parallelism), since the routed experts hold nearly all its
weights; on one node, tensor parallelism over the node's links is as common a choice
(DeepSeek-V3 is served with TP = 8 on one 8-GPU node as often as with EP), so the part
accepts it too (`Part.also_correct`).

Realism: the clusters are `_family.CLUSTERS` (an 8-GPU node is the scale-up domain;
the real NICs between nodes); FP8 only on parts that compute in it; reserves of 10-40%
(KV cache, activations). The generator draws the answer first, so every rung appears,
and redraws variants within 7% of a rung's boundary or whose GPU count is within 3% of
a whole number. Left out, because experts argue about them: dense training too big
for one node (FSDP across nodes and 3D parallelism are both in real use; `solve`
answers pipeline-parallel, the 3D layout's cross-node axis), Mixtral-style MoE models
with a handful of experts that do not fit one GPU (TP is as common there as EP), and a
wide MoE that spans nodes (served with EP, PP or TP across nodes alike, and trained
with PP and EP together: DeepSeek-V3 was; `solve` answers expert-parallel and names TP
across nodes as tp-for-experts).

Misconceptions, on the choice: data parallel when a replica does not fit
(replica-does-not-fit); splitting a model that fits one GPU (split-when-it-fits);
tensor parallel across nodes over the network (tp-across-nodes); pipeline parallel
when one node holds the model (pipeline-when-node-fits); FSDP at inference
(fsdp-at-inference); TP before sharding the states in training (tp-before-sharding);
expert parallel for a dense model (expert-parallel-dense); TP across nodes for a wide
MoE (tp-for-experts, explicit parameters only). On the GPU count: the reserve ignored
(reserve-ignored), weights only in training (weights-only), the FP32 master copy
forgotten (master-copy-forgotten), the active parameters of an MoE model instead of all
of them (active-params-only), GiB read as GB (gib-read-as-gb).
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Literal

from pydantic import Field, field_validator, model_validator

from hardware_db import catalog
from problems.engine.numbers import BYTES_PER_ELEMENT, exact, sig
from problems.engine.registry import register
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates.planning._family import (
    CHOICES,
    CLUSTERS,
    DP,
    EP,
    FSDP,
    GPUS_PER_NODE,
    PP,
    TP,
    choice_slips,
    cluster_sentence,
    scale_up_name,
    usable_gib,
)

TRAIN_BYTES = 16
_RESERVES = (10, 15, 20, 25, 30, 40)
_DTYPE_LABEL = {"bf16": "BF16 (2 bytes)", "fp8": "FP8 (1 byte)", "int4": "INT4 (half a byte)"}


class ParallelismParams(Params):
    model: str
    accelerator: str
    workload: Literal["training", "inference"]
    weight_dtype: Literal["bf16", "fp8", "int4"]
    reserve_pct: int = Field(ge=0, le=90)

    @field_validator("model")
    @classmethod
    def _known_model(cls, v: str) -> str:
        if v not in {m.slug for m in catalog.models()}:
            raise ValueError("not a catalog model")
        return v

    @field_validator("accelerator")
    @classmethod
    def _known_cluster(cls, v: str) -> str:
        if v not in CLUSTERS:
            raise ValueError(f"one of {sorted(CLUSTERS)}")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> ParallelismParams:
        if self.workload == "training" and self.weight_dtype != "bf16":
            raise ValueError("training keeps BF16 weights (mixed-precision Adam)")
        if (
            self.weight_dtype == "fp8"
            and "fp8" not in catalog.accelerator(self.accelerator).dense_flops
        ):
            raise ValueError("this accelerator does not compute in FP8")
        return self


def _model(p: ParallelismParams) -> catalog.ModelArch:
    return catalog.model(p.model)


def _bytes(p: ParallelismParams, n_params: int, per_param: float | None = None) -> Fraction:
    if per_param is None:
        per_param = TRAIN_BYTES if p.workload == "training" else BYTES_PER_ELEMENT[p.weight_dtype]
    return Fraction(n_params) * exact(per_param)


def _gpu_bytes(p: ParallelismParams, gib_bytes: int = 2**30, reserve: bool = True) -> Fraction:
    keep = Fraction(100 - p.reserve_pct, 100) if reserve else Fraction(1)
    return exact(usable_gib(p.accelerator)) * gib_bytes * keep


def _gpus(need: Fraction, per_gpu: Fraction) -> int:
    return math.ceil(need / per_gpu)


def strategy(p: ParallelismParams) -> str:
    m = _model(p)
    need, per_gpu = _bytes(p, m.total_params), _gpu_bytes(p)
    if need <= per_gpu:
        return DP
    if m.arch_type == "moe":
        return EP
    if need <= per_gpu * GPUS_PER_NODE:
        return FSDP if p.workload == "training" else TP
    return PP


def _ratios(p: ParallelismParams) -> tuple[float, float]:
    r = float(_bytes(p, _model(p).total_params) / _gpu_bytes(p))
    return r, r / GPUS_PER_NODE


def spans_nodes(p: ParallelismParams) -> bool:
    """More than one node's memory, after the reserve, is needed."""
    return _bytes(p, _model(p).total_params) > _gpu_bytes(p) * GPUS_PER_NODE


def also_correct(p: ParallelismParams) -> tuple[str, ...]:
    """Tensor parallelism for a wide MoE that one node holds: as common as EP there."""
    return (TP,) if strategy(p) == EP and not spans_nodes(p) else ()


@register
class WhichParallelism(Template):
    slug = "which-parallelism"
    title = "Which parallelism to reach for first"
    family = "planning"
    lessons = (
        "model-parallelism",
        "distributed-training-data-parallel",
        "splitting-a-model-across-gpus",
        "serving-models",
    )
    skills = (
        "3d-parallelism",
        "tensor-parallelism",
        "pipeline-parallelism",
        "zero-sharding",
        "data-parallelism",
        "tensor-parallel-sizing",
        "training-state-bytes",
        "weights-bytes",
        "expert-parallelism",
    )
    difficulty = 3
    Params = ParallelismParams
    version = 2  # issue 34: the cross-node split asked for; TP accepted for a MoE in one node

    def generate(self, rng: random.Random) -> ParallelismParams:
        target = rng.choice(CHOICES)
        models = catalog.models()
        for _ in range(20_000):
            acc = rng.choice(sorted(CLUSTERS))
            workload = rng.choice(("training", "inference"))
            dtypes = ["bf16", "int4"] + (
                ["fp8"] if "fp8" in catalog.accelerator(acc).dense_flops else []
            )
            p = ParallelismParams(
                model=rng.choice(models).slug,
                accelerator=acc,
                workload=workload,
                weight_dtype="bf16" if workload == "training" else rng.choice(sorted(dtypes)),
                reserve_pct=rng.choice(_RESERVES[1:] if workload == "training" else _RESERVES),
            )
            if strategy(p) == target and self._realistic(p):
                return p
        raise RuntimeError("which-parallelism: no variant drawn")  # pragma: no cover

    def _realistic(self, p: ParallelismParams) -> bool:
        m = _model(p)
        one, node = _ratios(p)
        if any(0.93 < r < 1.07 for r in (one, node)):
            return False
        if one > 1 and min(one % 1, 1 - one % 1) < 0.03:
            return False
        if m.arch_type == "dense" and p.workload == "training" and node > 1:
            return False  # contested rung (module docstring)
        if m.arch_type == "moe" and one > 1 and (m.n_experts or 0) < 64:
            return False
        if m.arch_type == "moe" and node > 1:
            return False  # a wide MoE across nodes: contested (module docstring)
        answer = _gpus(_bytes(p, m.total_params), _gpu_bytes(p))
        slips = [s.value for s in _count_slips(p) if s.value != answer]
        if len(set(slips)) < len(slips):
            return False  # two count slips on one number: the grader could name only one
        return one <= 8 * GPUS_PER_NODE

    def solve(self, p: ParallelismParams) -> dict[str, Part]:
        m = _model(p)
        return {
            "strategy": Part(
                "strategy",
                strategy(p),
                kind=Kind.CHOICE,
                tolerance=Exact(),
                choices=CHOICES,
                label="Parallelism to reach for first",
                also_correct=also_correct(p),
            ),
            "min_gpus": Part(
                "min_gpus",
                _gpus(_bytes(p, m.total_params), _gpu_bytes(p)),
                kind=Kind.INTEGER,
                tolerance=Exact(),
                label="Fewest GPUs that hold it",
            ),
        }

    def _model_sentence(self, p: ParallelismParams) -> str:
        m = _model(p)
        verb = "train" if p.workload == "training" else "serve"
        text = (
            f"You are to {verb} **{m.name}**, a "
            f"{'dense' if m.arch_type == 'dense' else 'mixture-of-experts (MoE)'} transformer "
            f"with {m.total_params:,} parameters in {m.n_layers} layers"
        )
        if m.arch_type == "moe":
            text += (
                f". Each MoE layer routes every token to {m.experts_per_token} of its "
                f"{m.n_experts} experts, so only {m.active_params:,} parameters are active per "
                "token, but every expert must be held in memory"
            )
        return text + "."

    def statement(self, p: ParallelismParams) -> str:
        if p.workload == "training":
            states = (
                "Training uses mixed-precision Adam: BF16 weights and gradients (2 + 2 bytes) "
                "plus an FP32 master copy and two FP32 Adam moments (4 + 4 + 4 bytes), "
                f"$16$ bytes per parameter. Keep {p.reserve_pct}% of each GPU's memory free "
                "for activations."
            )
            held = "the weights, gradients and optimizer states"
        else:
            states = (
                f"The weights are served in {_DTYPE_LABEL[p.weight_dtype]} per parameter. "
                f"Keep {p.reserve_pct}% of each GPU's memory free for the KV cache and "
                "activations."
            )
            held = "the weights"
        link = scale_up_name(p.accelerator)
        return (
            f"{self._model_sentence(p)} {states}\n\n{cluster_sentence(p.accelerator)}\n\n"
            "1. Which parallelism do you reach for first: the simplest layout that fits the "
            "memory while keeping the heaviest traffic on the fastest links? If one node "
            f"cannot hold {held}, the GPUs inside each node split every layer with tensor "
            f"parallelism over {link}: name the split between the nodes. Answer one of "
            "`data-parallel` (a full copy on every GPU), `fsdp` (FSDP / ZeRO-3: shard "
            "weights, gradients and optimizer states over the data-parallel GPUs), "
            "`tensor-parallel` (split every layer's matrices across GPUs), "
            "`pipeline-parallel` (give each group of GPUs a block of consecutive layers) "
            "or `expert-parallel` (place different experts of each MoE layer on different "
            "GPUs).\n"
            f"2. What is the fewest GPUs whose memory, after the reserve, holds {held}? "
            "(Count bytes only: ignore how the layers or heads divide.)"
        )

    def solution(self, p: ParallelismParams) -> str:
        m = _model(p)
        need = _bytes(p, m.total_params)
        per_gpu = _gpu_bytes(p)
        per_param = TRAIN_BYTES if p.workload == "training" else BYTES_PER_ELEMENT[p.weight_dtype]
        n = _gpus(need, per_gpu)
        gib = usable_gib(p.accelerator)
        node = per_gpu * GPUS_PER_NODE
        why = {
            DP: "A full replica fits one GPU, so no split is needed: run one replica per GPU "
            "and add GPUs for throughput (data parallelism).",
            FSDP: "The states do not fit one GPU but fit once sharded over one node, so shard "
            "them with FSDP / ZeRO-3: no change to the model code, the matrices stay whole on "
            "every GPU, and the all-gathers and reduce-scatters overlap with compute.",
            TP: "The weights do not fit one GPU but fit one node, so split each layer across "
            "the node's GPUs with tensor parallelism: its two all-reduces per layer run over "
            "the fast in-node links.",
            PP: "Even one node cannot hold the model, so tensor parallelism stays inside each "
            "node, as the question gives, and the split between the nodes is pipeline "
            "parallelism: only one activation tensor per micro-batch crosses the slower "
            "network at each stage boundary, where tensor parallelism across the nodes would "
            "put two all-reduces per layer on it.",
            EP: "The model does not fit one GPU and nearly all its weights sit in the routed "
            "experts, so place whole experts on different GPUs (expert parallelism): each GPU "
            "runs its experts' matrices whole, and only the routed tokens move (all-to-all).",
        }[strategy(p)]
        if also_correct(p):
            why += (
                " One node holds it, so tensor parallelism over the node's links is an "
                "equally common first choice (DeepSeek-V3 is served with TP = 8 on one 8-GPU "
                "node as often as with EP), and `tensor-parallel` is accepted too."
            )
        return (
            f"{sig(m.total_params / 1e9, 6)} billion parameters at {sig(per_param)} bytes each "
            f"need {sig(float(need) / 1e9, 6)} GB. One GPU keeps "
            f"{sig(gib)} GiB x {100 - p.reserve_pct}% = {sig(float(per_gpu) / 2**30, 6)} GiB "
            f"= {sig(float(per_gpu) / 1e9, 6)} GB for them, and one node "
            f"{sig(float(node) / 1e9, 6)} GB.\n\n"
            f"The fewest GPUs: {sig(float(need) / 1e9, 6)} / {sig(float(per_gpu) / 1e9, 6)} = "
            f"{sig(float(need / per_gpu), 4)}, rounded up to **{n}**.\n\n"
            f"{why} Answer: **{strategy(p)}**."
        )

    def misconceptions(self, p: ParallelismParams) -> list[Misconception]:
        m = _model(p)
        moe = m.arch_type == "moe"
        training = p.workload == "training"
        slips = choice_slips(strategy(p), m.name, moe, training, spans_nodes(p))
        return slips + _count_slips(p)


def _count_slips(p: ParallelismParams) -> list[Misconception]:
    m = _model(p)
    need, per_gpu = _bytes(p, m.total_params), _gpu_bytes(p)
    out = [
        Misconception(
            "reserve-ignored",
            "min_gpus",
            _gpus(need, _gpu_bytes(p, reserve=False)),
            f"That uses each GPU's whole memory. {p.reserve_pct}% is kept free, so only "
            f"{100 - p.reserve_pct}% of it holds the model.",
        ),
        Misconception(
            "gib-read-as-gb",
            "min_gpus",
            _gpus(need, _gpu_bytes(p, gib_bytes=10**9)),
            "That reads the GPU's GiB as GB. 1 GiB is 2^30 bytes, about 7% more than 10^9.",
        ),
    ]
    if p.workload == "training":
        out += [
            Misconception(
                "weights-only",
                "min_gpus",
                _gpus(_bytes(p, m.total_params, 2), per_gpu),
                "That counts the BF16 weights only. Training also holds gradients and "
                "Adam's FP32 states: 16 bytes per parameter.",
            ),
            Misconception(
                "master-copy-forgotten",
                "min_gpus",
                _gpus(_bytes(p, m.total_params, 12), per_gpu),
                "That leaves out the FP32 master copy of the weights (4 bytes per "
                "parameter) that mixed-precision Adam updates.",
            ),
        ]
    if m.arch_type == "moe":
        out.append(
            Misconception(
                "active-params-only",
                "min_gpus",
                _gpus(_bytes(p, m.active_params), per_gpu),
                "That sizes only the parameters active per token. Every expert must be in "
                "memory, since any token may be routed to any of them.",
            )
        )
    return out
