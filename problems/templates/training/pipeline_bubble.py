"""pipeline-bubble: the share of a training step a pipeline-parallel schedule leaves the
devices idle, (p - 1) / (v·m + p - 1), for p stages, m micro-batches and v virtual stages
(model chunks) per device (Narayanan et al. 2021, interleaved 1F1B).

Realism constraints:
- The layer stack of a real catalog model with at least 40 layers (the models that are
  pipelined: Llama 2/3.1 70B and 405B, Qwen2.5 72B, GPT-3 175B), split evenly: p divides
  the layers, and with interleaving v divides the layers per stage, so every chunk holds
  a whole number of layers.
- p from 2 to 16 (a pipeline over nodes), v from 1 to 4 (1 in half the variants), and
  m a multiple of p from p to 8p (the interleaved schedule needs m divisible by p; the
  plain 1F1B schedule is drawn the same way).

Slips named: the Megatron paper's bubble *time fraction* (p - 1) / (v·m), measured
against the ideal compute time rather than the step; the interleaving ignored; and the
naive pipeline without micro-batches, (p - 1) / p.
"""

from __future__ import annotations

import random
from fractions import Fraction

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import sig
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import parts_separated


class PipelineBubbleParams(Params):
    n_stages: int = Field(ge=2, le=1024)
    n_microbatches: int = Field(ge=1, le=100_000)
    virtual_stages: int = Field(ge=1, le=64)


BUBBLE = formula(
    r"\beta",
    lambda s: (s.p - 1) / (s.v * s.m + s.p - 1),
    p="p",
    m="m",
    v="v",
)
_STAGES = (2, 4, 6, 8, 12, 16)


def bubble(p: PipelineBubbleParams) -> Fraction:
    return Fraction(p.n_stages - 1, p.virtual_stages * p.n_microbatches + p.n_stages - 1)


def pipelined_models() -> list[catalog.ModelArch]:
    return [m for m in catalog.models() if m.n_layers >= 40]


def models_for(p: PipelineBubbleParams) -> list[catalog.ModelArch]:
    """Models whose layers split evenly into these stages and chunks."""
    return [m for m in pipelined_models() if m.n_layers % (p.n_stages * p.virtual_stages) == 0]


@register
class PipelineBubble(Template):
    slug = "pipeline-bubble"
    title = "Pipeline bubble of a 1F1B schedule"
    family = "training"
    lessons = ("model-parallelism", "distributed-training-data-parallel")
    skills = ("pipeline-parallelism", "pipeline-bubble")
    difficulty = 2
    version = 1
    Params = PipelineBubbleParams

    def generate(self, rng: random.Random) -> PipelineBubbleParams:
        while True:
            model = rng.choice(pipelined_models())
            stages = [s for s in _STAGES if model.n_layers % s == 0]
            if not stages:
                continue
            p = rng.choice(stages)
            per_stage = model.n_layers // p
            vs = [v for v in (2, 3, 4) if per_stage % v == 0 and per_stage // v >= 1]
            v = rng.choice(vs) if vs and rng.random() < 0.5 else 1
            m = p * rng.randint(1, 8)
            params = PipelineBubbleParams(n_stages=p, n_microbatches=m, virtual_stages=v)
            if parts_separated(self.solve(params), self.misconceptions(params)):
                return params

    def solve(self, p: PipelineBubbleParams) -> dict[str, Part]:
        return {"bubble": Part("bubble", float(bubble(p) * 100), "%", label="Pipeline bubble")}

    def statement(self, p: PipelineBubbleParams) -> str:
        models = models_for(p)
        layers = ""
        if models:
            m = models[0]
            per = m.n_layers // p.n_stages
            layers = (
                f"{m.name}'s {m.n_layers} layers are split evenly over $p = {p.n_stages}$ "
                f"pipeline stages ({per} layers per device). "
            )
        else:
            layers = f"A model is split evenly over $p = {p.n_stages}$ pipeline stages. "
        if p.virtual_stages > 1:
            chunk = (
                f"The schedule is interleaved: each device holds $v = {p.virtual_stages}$ "
                "separate model chunks (virtual stages) of equal size, each a whole number "
                "of layers. "
            )
        else:
            chunk = "The schedule is not interleaved ($v = 1$: one model chunk per device). "
        return (
            "A training step runs a one-forward-one-backward (1F1B) pipeline schedule. "
            + layers
            + chunk
            + f"Each step's batch is cut into $m = {p.n_microbatches}$ micro-batches; every "
            "stage takes the same time for each micro-batch, and communication is ignored.\n\n"
            "What share of the step's wall-clock time does a device spend idle in the "
            "pipeline bubble (filling and draining the pipeline), in %?"
        )

    def solution(self, p: PipelineBubbleParams) -> str:
        b = bubble(p)
        return (
            "Filling and draining the pipeline costs $p - 1$ stage slots, while the useful "
            "work is $v \\cdot m$ slots of a chunk's size (interleaving makes each slot "
            "$1/v$ as long, so the idle time shrinks by $v$ relative to the work). "
            "The idle share of the whole step:\n\n"
            + step(
                BUBBLE,
                {"p": p.n_stages, "m": p.n_microbatches, "v": p.virtual_stages},
                float(b),
            )
            + f"\n\nThat is **{sig(float(b) * 100, 6)} %** of the step."
        )

    def misconceptions(self, p: PipelineBubbleParams) -> list[Misconception]:
        pm1, m, v = p.n_stages - 1, p.n_microbatches, p.virtual_stages
        out = [
            Misconception(
                "bubble-over-compute",
                "bubble",
                pm1 / (v * m) * 100,
                "That is the bubble time measured against the ideal compute time, (p - 1) / "
                "(v·m), as the Megatron paper reports it. The share of the whole step also "
                "counts the bubble in the denominator: (p - 1) / (v·m + p - 1).",
            ),
            Misconception(
                "no-microbatches",
                "bubble",
                pm1 / p.n_stages * 100,
                "That is a pipeline fed the whole batch at once, (p - 1) / p. Splitting it "
                "into m micro-batches keeps the stages busy: (p - 1) / (v·m + p - 1).",
            ),
        ]
        if v > 1:
            out.append(
                Misconception(
                    "interleaving-ignored",
                    "bubble",
                    pm1 / (m + pm1) * 100,
                    f"That ignores the interleaving. With v = {v} chunks per device each "
                    "slot is 1/v as long, which shrinks the bubble against the work by v.",
                )
            )
        return out
