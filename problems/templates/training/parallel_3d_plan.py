"""parallel-3d-plan: check a tensor x pipeline x data parallel training plan for a catalog
model on catalog 8-GPU nodes: the memory each GPU holds, the pipeline bubble, and whether
the tensor-parallel group stays inside a node.

The arithmetic (formulas the lesson states; Narayanan et al. 2021, "Efficient Large-Scale
Language Model Training on GPU Clusters Using Megatron-LM", https://arxiv.org/abs/2104.04473,
sections 2.2 and 3: tensor parallelism is kept within a node, whose GPUs share NVLink,
pipeline and data parallelism go across nodes, and the 1F1B bubble is (p - 1) / (m + p - 1)
of the step):

- Mixed-precision Adam holds 16 bytes per parameter (2 BF16 weights + 2 gradients + 12 for
  the FP32 master copy and two moments; ZeRO paper, section 3.1). Without ZeRO every
  data-parallel replica holds all of it, split over its t x p GPUs, so a GPU holds
  16 P / (t p) bytes, plus the activations the statement gives per GPU.
- Bubble of a non-interleaved 1F1B schedule: (p - 1) / (m + p - 1).
- Megatron-LM places a tensor-parallel group on consecutive ranks, so with 8 GPUs per node
  it stays inside one node exactly when t <= 8 (t is a power of two).

Realism, as the generator enforces it: dense catalog models of 60B parameters and more
(those that need all three), on the catalog's 8-GPU training servers (DGX A100, DGX H100,
DGX B200, Azure ND MI300X v5); p divides the layers; t is 16 (across nodes) in about a
fifth of the variants; 2 to 64 data-parallel replicas, never 8 (dividing 16 bytes by
d = 8 gives the 2 bytes of the weights-only slip, and the two could not be told apart).
The plan fits: the template declares the memory check (the description hands the check
the training state, below) and the generator draws p from those that fit before the
check sees it.
"""

from __future__ import annotations

import random

from pydantic import Field, field_validator

from hardware_db import catalog
from problems.engine.feasibility import MEMORY, Device, Feasibility, Model, Plan, SystemDescription
from problems.engine.numbers import params_count, sig
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import choice_part, separated, tex15

GB = 1e9
STATE_BYTES = 16  # per parameter, mixed-precision Adam
GPUS_PER_NODE = 8
_SERVERS = {
    "a100-sxm-80gb": "dgx-a100",
    "h100-sxm": "dgx-h100",
    "b200": "dgx-b200",
    "mi300x": "azure-nd-mi300x-v5",
}
PLACEMENTS = ("within-node", "crosses-nodes")
_SEPARATION = 0.025
_ACTIVATIONS_GB = (0.0, 0.0, 4.0, 6.0, 8.0, 10.0, 12.0, 16.0)


class Plan3dParams(Params):
    model: str
    accelerator: str
    tp: int = Field(ge=1, le=1024)
    pp: int = Field(ge=1, le=1024)
    dp: int = Field(ge=1, le=100_000)
    n_microbatches: int = Field(ge=1, le=100_000)
    activations_gb: float = Field(ge=0, le=1e4)

    @field_validator("model")
    @classmethod
    def _known_model(cls, v: str) -> str:
        if v not in {m.slug for m in catalog.models()}:
            raise ValueError(f"unknown model {v!r}")
        return v

    @field_validator("accelerator")
    @classmethod
    def _known_server_gpu(cls, v: str) -> str:
        if v not in _SERVERS:
            raise ValueError(f"accelerator must be one of {sorted(_SERVERS)}")
        return v


MEMORY_PER_GPU = formula(
    "M",
    lambda s: s.k * s.P / (s.t * s.p) + s.A,
    k="k",
    P="P",
    t="t",
    p="p",
    A="A",
)
BUBBLE = formula(r"\beta", lambda s: (s.p - 1) / (s.m + s.p - 1), p="p", m="m")


def memory_gb(p: Plan3dParams, *, dp: int = 1, k: float = STATE_BYTES, act: bool = True) -> float:
    n = catalog.model(p.model).total_params
    return k * n / (p.tp * p.pp * dp) / GB + (p.activations_gb if act else 0.0)


def bubble_pct(p: Plan3dParams) -> float:
    return (p.pp - 1) / (p.n_microbatches + p.pp - 1) * 100


def placement(p: Plan3dParams) -> str:
    return "within-node" if p.tp <= GPUS_PER_NODE else "crosses-nodes"


def describe(p: Plan3dParams) -> SystemDescription:
    """The plan for the memory check. The check divides a model's weights over the t x p
    GPUs of a replica; what a training GPU holds is the 16-byte-per-parameter state plus
    its activations, so the model handed to the check is that state, as FP32 (4-byte)
    'weights' of the whole replica: (16 P + A t p) / 4 of them."""
    m = catalog.model(p.model)
    held = STATE_BYTES * m.total_params + p.activations_gb * GB * p.tp * p.pp
    state = Model(
        name=f"{m.name} training state",
        total_params=held / 4,
        active_params=held / 4,
        kv_elements_per_token=0.0,
    )
    return SystemDescription(
        model=state,
        device=Device.of(p.accelerator),
        plan=Plan(tp=p.tp, pp=p.pp, weights_dtype="fp32"),
    )


@register
class Parallel3dPlan(Template):
    slug = "parallel-3d-plan"
    title = "A tensor, pipeline and data parallel training plan"
    family = "training"
    lessons = ("model-parallelism",)
    skills = ("3d-parallelism", "training-state-bytes", "pipeline-parallelism")
    difficulty = 3
    version = 1
    Params = Plan3dParams
    feasibility = Feasibility((MEMORY,), describe)

    def generate(self, rng: random.Random) -> Plan3dParams:
        p = self._draw(rng)
        for _ in range(300):
            if self._separated(p):
                break
            p = self._draw(rng)
        return p

    def _draw(self, rng: random.Random) -> Plan3dParams:
        acc = rng.choice(sorted(_SERVERS))
        limit = 0.9 * catalog.accelerator(acc).usable_bytes / GB
        models = [m for m in catalog.models() if m.n_experts is None and m.total_params >= 60e9]
        model = rng.choice(models)
        tp = 16 if rng.random() < 0.2 else rng.choice((2, 4, 8))
        act = rng.choice(_ACTIVATIONS_GB)
        state = STATE_BYTES * model.total_params / GB
        stages = [
            s for s in range(2, 33) if model.n_layers % s == 0 and state / (tp * s) + act <= limit
        ]
        if not stages:  # too big at this t: the redraw loop tries another plan
            stages = [2]
        pp = rng.choice(stages[:4])  # the few smallest that fit: nobody pipelines further
        return Plan3dParams(
            model=model.slug,
            accelerator=acc,
            tp=tp,
            pp=pp,
            dp=rng.choice((2, 4, 16, 32, 64)),
            n_microbatches=rng.randint(pp, 8 * pp),
            activations_gb=act,
        )

    def _separated(self, p: Plan3dParams) -> bool:
        solved = self.solve(p)
        for part in ("memory", "bubble"):
            values = [m.value for m in self.misconceptions(p) if m.part == part]
            if not separated([solved[part].value, *values], _SEPARATION):
                return False
        return True

    def solve(self, p: Plan3dParams) -> dict[str, Part]:
        return {
            "memory": Part("memory", memory_gb(p), "GB", label="Memory per GPU"),
            "bubble": Part("bubble", bubble_pct(p), "%", label="Pipeline bubble"),
            "tp_placement": choice_part(
                "tp_placement", placement(p), PLACEMENTS, "Tensor-parallel group"
            ),
        }

    def statement(self, p: Plan3dParams) -> str:
        m = catalog.model(p.model)
        acc = catalog.accelerator(p.accelerator)
        server = catalog.server(_SERVERS[p.accelerator]).name.split(" (")[0]
        fabric = catalog.link(acc.scale_up_link).name.split(" (")[0]
        n = p.tp * p.pp * p.dp
        act = (
            f"Activations take $A = {tex15(p.activations_gb)}$ GB on each GPU at the "
            "schedule's peak."
            if p.activations_gb
            else "Activations are recomputed and small: count them as $A = 0$."
        )
        return (
            f"**{m.name}** ({m.n_layers} layers, {params_count(m.total_params)} parameters: "
            f"$P = {tex15(m.total_params)}$) is to train on "
            f"{n} {acc.short_name} GPUs in {server} nodes of {GPUS_PER_NODE} GPUs "
            f"({fabric} inside a node, InfiniBand between nodes), with Megatron-LM's "
            f"tensor parallelism $t = {p.tp}$, pipeline parallelism $p = {p.pp}$ (the layers "
            f"split evenly into stages) and data parallelism $d = {p.dp}$. Ranks are "
            "numbered node by node and each tensor-parallel group takes consecutive ranks.\n\n"
            "Training uses mixed-precision Adam, $k = 16$ bytes per parameter (BF16 weights "
            "and gradients, FP32 master weights and two FP32 moments), without ZeRO or any "
            "optimizer sharding, spread evenly over the GPUs that hold one copy of the "
            f"model. {act} Each step runs a 1F1B schedule (not interleaved) of "
            f"$m = {p.n_microbatches}$ micro-batches, every stage taking the same time per "
            "micro-batch; ignore communication.\n\n"
            "How much memory does each GPU hold, in GB ($10^{9}$ bytes)? What share of a "
            "step is the pipeline bubble, in %? Does each tensor-parallel group stay within "
            "one node (`within-node`) or span nodes (`crosses-nodes`)?"
        )

    def solution(self, p: Plan3dParams) -> str:
        m = catalog.model(p.model)
        cross = (
            f"$t = {p.tp} \\le {GPUS_PER_NODE}$: the group's consecutive ranks sit in one "
            "node, on its scale-up fabric: **within-node**."
            if p.tp <= GPUS_PER_NODE
            else f"$t = {p.tp} > {GPUS_PER_NODE}$ GPUs per node: the group spans "
            f"{p.tp // GPUS_PER_NODE} nodes and its per-layer all-reduces go over "
            "InfiniBand: **crosses-nodes**."
        )
        return (
            "One copy of the model lives on the $t \\times p$ GPUs of a data-parallel "
            f"replica ({p.tp * p.pp} GPUs); each of the $d = {p.dp}$ replicas holds its own "
            "copy, so $d$ does not divide the state (only ZeRO would shard it). Per GPU, in "
            f"bytes ($A = {tex15(p.activations_gb * GB)}$ bytes):\n\n"
            + step(
                MEMORY_PER_GPU,
                {
                    "k": STATE_BYTES,
                    "P": tex15(m.total_params),
                    "t": p.tp,
                    "p": p.pp,
                    "A": tex15(p.activations_gb * GB),
                },
                memory_gb(p) * GB,
                "bytes",
            )
            + f"\n\nThat is **{sig(memory_gb(p), 6)} GB**.\n\n"
            "The 1F1B pipeline fills and drains over $p - 1$ slots out of $m + p - 1$:\n\n"
            + step(BUBBLE, {"p": p.pp, "m": p.n_microbatches}, bubble_pct(p) / 100)
            + f"\n\nThat is **{sig(bubble_pct(p), 6)} %** of the step.\n\n"
            + cross
        )

    def misconceptions(self, p: Plan3dParams) -> list[Misconception]:
        out = [
            Misconception(
                "divided-by-dp",
                "memory",
                memory_gb(p, dp=p.dp),
                "That divides the state by the data-parallel degree too. Without ZeRO every "
                "data-parallel replica keeps its own full copy; only t x p split it.",
            ),
            Misconception(
                "weights-only",
                "memory",
                memory_gb(p, k=2),
                "That counts the BF16 weights only. Training also holds the gradients and "
                "Adam's FP32 master weights and moments: 16 bytes per parameter.",
            ),
            Misconception(
                "tp-only",
                "memory",
                memory_gb(p) - memory_gb(p, act=False) + memory_gb(p, act=False) * p.pp,
                "That splits the state over the tensor-parallel group only. Each pipeline "
                "stage holds only its own layers, so the state is divided by t x p.",
            ),
            Misconception(
                "bubble-over-m",
                "bubble",
                (p.pp - 1) / p.n_microbatches * 100,
                "That is (p - 1) / m, the bubble against the useful work. As a share of the "
                "step the bubble also counts itself: (p - 1) / (m + p - 1).",
            ),
            Misconception(
                "no-microbatches",
                "bubble",
                (p.pp - 1) / p.pp * 100,
                "That is a pipeline fed the whole batch at once, (p - 1) / p. With m "
                "micro-batches the stages overlap: (p - 1) / (m + p - 1).",
            ),
        ]
        if p.activations_gb:
            out.append(
                Misconception(
                    "activations-forgotten",
                    "memory",
                    memory_gb(p, act=False),
                    f"That leaves out the {sig(p.activations_gb)} GB of activations each GPU "
                    "also holds.",
                )
            )
        if p.tp <= GPUS_PER_NODE < p.tp * p.pp:
            out.append(
                Misconception(
                    "model-group-per-node",
                    "tp_placement",
                    "crosses-nodes",
                    f"Only the tensor-parallel group needs NVLink, and t = {p.tp} fits in a "
                    "node. The pipeline stages may sit on other nodes: they pass activations "
                    "only between stages.",
                )
            )
        if p.tp > GPUS_PER_NODE:
            out.append(
                Misconception(
                    "tp-degree-unchecked",
                    "tp_placement",
                    "within-node",
                    f"A node has {GPUS_PER_NODE} GPUs, so a group of t = {p.tp} consecutive "
                    "ranks must span nodes, and its per-layer all-reduces cross InfiniBand.",
                )
            )
        return out
