"""fusion-traffic: what fusing a chain of elementwise kernels saves. After a matrix
multiply, a transformer layer applies a few elementwise operations to its B x S x H
activation tensor in BF16 (2 bytes a value): a bias add, GELU, a dropout-style scale, a
residual add. Run as separate kernels, each one reads its input tensor(s) from HBM and
writes its output back (the residual add reads two tensors); fused into one kernel, the
chain reads each distinct input once and writes one output, keeping the intermediates in
registers. Each launch also costs a fixed few microseconds (stated in the question).

Parts: the HBM bytes the unfused chain moves, the bytes the fused kernel moves (GB), and
the time fusion saves (us): the bytes no longer moved at the GPU's memory bandwidth (the
floor these memory-bound kernels run at) plus the launches no longer made. The small
bias vector is left out (said).

Realism: 4,096 to 65,536 tokens per micro-batch (B x S) of a catalog model's hidden size,
on catalog GPUs' HBM bandwidth; 2-4 operations; 4-6 us a launch.

Misconceptions: only the writes counted (writes-only), the residual's second input left
out (residual-read-missed), the launch overhead left out of the time saved
(launches-ignored), GiB taken for GB (gib-for-gb).
"""

from __future__ import annotations

import random

from pydantic import Field, model_validator

from hardware_db import catalog
from problems.engine.numbers import sig
from problems.engine.registry import register
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import parts_separated, tex15

OPS = ("bias add", "GELU", "dropout scale", "residual add")
GPUS = ("a100-sxm-80gb", "h100-sxm", "h200", "b200", "mi300x", "mi325x", "l40s")
MODELS = ("llama-3.1-8b", "llama-3.1-70b", "qwen2.5-72b", "llama-3.1-405b", "mistral-7b")
BYTES = 2  # BF16


class FusionParams(Params):
    accelerator: str
    model: str
    tokens: int = Field(ge=256, le=1_048_576)  # B x S
    ops: int = Field(ge=2, le=4)  # how many of OPS, in order, the residual add last
    residual: bool
    launch_us: float = Field(gt=0, le=50)

    @model_validator(mode="after")
    def _known(self) -> FusionParams:
        if self.accelerator not in GPUS:
            raise ValueError(f"one of {', '.join(GPUS)}")
        if self.model not in MODELS:
            raise ValueError(f"one of {', '.join(MODELS)}")
        if self.ops == 4 and not self.residual:
            raise ValueError("four operations end with the residual add")
        return self


def chain(p: FusionParams) -> list[str]:
    names = list(OPS[:3])[: p.ops - (1 if p.residual else 0)]
    return names + (["residual add"] if p.residual else [])


def _tensor(p: FusionParams) -> float:
    return p.tokens * catalog.model(p.model).hidden_size * BYTES


def traffic(p: FusionParams, *, reads: bool = True, residual_read: bool = True):
    """(unfused bytes, fused bytes)."""
    t = _tensor(p)
    unfused = 0.0
    for name in chain(p):
        inputs = 2 if name == "residual add" and residual_read else 1
        unfused += t + (inputs * t if reads else 0)
    extra = t if p.residual and residual_read else 0
    fused = t + ((t + extra) if reads else 0)
    return unfused, fused


def saved_us(p: FusionParams, unfused: float, fused: float, launches: bool = True) -> float:
    bw = catalog.accelerator(p.accelerator).mem_bw_bytes_per_s
    return (unfused - fused) / bw * 1e6 + ((len(chain(p)) - 1) * p.launch_us if launches else 0)


@register
class FusionTraffic(Template):
    slug = "fusion-traffic"
    title = "What fusing elementwise kernels saves in memory traffic and launches"
    family = "kernels"
    lessons = ("gpu-programming-with-cuda",)
    skills = ("cuda-programming", "memory-vs-compute-bound")
    difficulty = 2
    Params = FusionParams
    version = 1

    def generate(self, rng: random.Random) -> FusionParams:
        for _ in range(10_000):
            ops = rng.randint(2, 4)
            p = FusionParams(
                accelerator=rng.choice(GPUS),
                model=rng.choice(MODELS),
                tokens=rng.choice((4096, 8192, 16384, 32768, 65536)),
                ops=ops,
                residual=ops == 4 or rng.random() < 0.5,
                launch_us=float(rng.choice((4, 5, 6))),
            )
            if parts_separated(self.solve(p), self.misconceptions(p)):
                return p
        raise RuntimeError("fusion-traffic: no separated variant")  # pragma: no cover

    def solve(self, p: FusionParams) -> dict[str, Part]:
        unfused, fused = traffic(p)
        return {
            "unfused": Part("unfused", unfused / 1e9, "GB", label="HBM traffic, unfused"),
            "fused": Part("fused", fused / 1e9, "GB", label="HBM traffic, fused"),
            "saved": Part("saved", saved_us(p, unfused, fused), "us", label="Time saved"),
        }

    def statement(self, p: FusionParams) -> str:
        m, acc = catalog.model(p.model), catalog.accelerator(p.accelerator)
        ops = ", then ".join(chain(p))
        residual = (
            " The residual add also reads the layer's input, a tensor of the same shape."
            if p.residual
            else ""
        )
        return (
            f"A training step of {m.name} on the {acc.prose_name} applies, after a matrix "
            f"multiply, a chain of elementwise operations to its activation tensor of "
            f"$B \\times S = {tex15(p.tokens)}$ tokens by $H = {tex15(m.hidden_size)}$ in "
            f"BF16 (2 bytes a value): {ops}.{residual} Run as {len(chain(p))} separate "
            "kernels, each reads its input from HBM and writes its output back; fused into "
            "one kernel, the chain reads its inputs once, keeps the intermediates in "
            "registers and writes one output. The GPU's memory bandwidth is "
            f"{sig(acc.mem_bw_bytes_per_s / 1e12, 6)} TB/s and each kernel launch costs "
            f"{sig(p.launch_us)} us. Leave out the small bias vector.\n\n"
            "1. How many GB do the separate kernels move to and from HBM?\n"
            "2. How many GB does the fused kernel move?\n"
            "3. How much time does fusion save, in us, at the memory-bandwidth floor "
            "counting the launches it removes?"
        )

    def solution(self, p: FusionParams) -> str:
        t = _tensor(p)
        unfused, fused = traffic(p)
        bw = catalog.accelerator(p.accelerator).mem_bw_bytes_per_s
        k = len(chain(p))
        return (
            f"One tensor is ${tex15(p.tokens)} \\times {tex15(catalog.model(p.model).hidden_size)}"
            f" \\times 2 = {sig(t / 1e9, 6)}$ GB. Each separate kernel reads its input and "
            "writes its output: two tensors each"
            + (", three for the residual add, which reads two" if p.residual else "")
            + f", **{sig(unfused / 1e9, 6)} GB** in all. The fused kernel reads "
            + ("the chain's input and the residual once each" if p.residual else "its input once")
            + f" and writes once: **{sig(fused / 1e9, 6)} GB**.\n\n"
            f"At {sig(bw / 1e12, 6)} TB/s the bytes no longer moved take "
            f"{sig((unfused - fused) / bw * 1e6, 6)} us, and {k - 1} fewer launches save "
            f"{sig((k - 1) * p.launch_us)} us: **{sig(saved_us(p, unfused, fused), 6)} us** "
            "per layer and step. Elementwise kernels do a few FLOPs per byte, so memory "
            "traffic, not arithmetic, sets their time: fusion (and coalesced access, which "
            "lets each warp's loads use whole memory transactions) is how they get faster."
        )

    def misconceptions(self, p: FusionParams) -> list[Misconception]:
        unfused, fused = traffic(p)
        w_unfused, w_fused = traffic(p, reads=False)
        out = [
            Misconception(
                "writes-only", "unfused", w_unfused / 1e9,
                "Each kernel also reads its input from HBM: a read and a write per tensor.",
            ),
            Misconception(
                "gib-for-gb", "unfused", unfused / 2**30,
                "That is GiB (2^30 bytes); a GB is 10^9 bytes.",
            ),
            Misconception(
                "launches-ignored", "saved", saved_us(p, unfused, fused, launches=False),
                "Fusion also removes launches: each costs its few microseconds.",
            ),
        ]  # fmt: skip
        if p.residual:
            r_unfused, r_fused = traffic(p, residual_read=False)
            out += [
                Misconception(
                    "residual-read-missed", "unfused", r_unfused / 1e9,
                    "The residual add reads two tensors: the chain's and the layer's input.",
                ),
                Misconception(
                    "residual-read-missed", "fused", r_fused / 1e9,
                    "The fused kernel still reads the residual input once.",
                ),
            ]  # fmt: skip
        return out
