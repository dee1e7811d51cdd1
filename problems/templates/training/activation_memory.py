"""activation-memory: the activation memory a training step keeps per GPU for the
backward pass, from Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large
Transformer Models"), 16-bit activations, under four schemes: no parallelism, tensor
parallelism, tensor plus sequence parallelism, and that with selective recomputation.

Realism constraints:
- The layer shape (hidden, heads, layers) of a catalog model, dense or MoE, with a
  sequence length it supports (2,048 to 8,192) and micro-batches of 1, 2 or 4.
- Tensor parallelism of 2, 4 or 8, within one 8-GPU server and dividing the heads;
  scheme "none" has t = 1 (the contract's convention).
- Answers from 1 to 400 GB or GiB: the unrecomputed totals of a large model are the
  point of the lesson (they can exceed one device), but not by a silly margin.
- The statement quotes the paper's four per-layer estimates, so the examined skill is
  choosing the scheme's and applying it; the paper's constants assume its GPT layer.

Slips named: one layer only, tensor parallelism without its division (the "none"
formula), sequence parallelism ignored (the "tp" formula for tp-sp), the attention
term kept under selective recomputation, and the attention term dropped where nothing
is recomputed.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Literal

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import UNIT_BYTES, sig
from problems.engine.registry import register
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import parts_separated

Scheme = Literal["none", "tp", "tp-sp", "tp-sp-selective"]


class ActivationParams(Params):
    seq_len: int = Field(ge=1, le=10_000_000)
    micro_batch: int = Field(ge=1, le=100_000)
    hidden: int = Field(ge=1, le=1_000_000)
    n_heads: int = Field(ge=1, le=10_000)
    n_layers: int = Field(ge=1, le=10_000)
    tp: int = Field(ge=1, le=1024)
    scheme: Scheme
    unit: Literal["GB", "GiB"]


def layer_bytes(scheme: str, s: int, b: int, h: int, a: int, t: int) -> Fraction:
    """Bytes of one layer's activations per GPU (Korthikanti et al. 2022, Table 2)."""
    sbh = Fraction(s * b * h)
    attn = Fraction(5 * a * s, h)
    if scheme == "none":
        return sbh * (34 + attn)
    if scheme == "tp":
        return sbh * (10 + Fraction(24, t) + attn / t)
    if scheme == "tp-sp":
        return sbh / t * (34 + attn)
    return 34 * sbh / t


def total(p: ActivationParams, scheme: str | None = None, layers: int | None = None) -> float:
    t = 1 if (scheme or p.scheme) == "none" else p.tp
    per = layer_bytes(scheme or p.scheme, p.seq_len, p.micro_batch, p.hidden, p.n_heads, t)
    return float(per * (p.n_layers if layers is None else layers) / UNIT_BYTES[p.unit])


_SEQS = (2048, 4096, 8192)
_SCHEME_TEXT = {
    "none": "no model parallelism and no recomputation",
    "tp": "tensor parallelism of degree $t = {t}$ (without sequence parallelism), no recomputation",
    "tp-sp": "tensor parallelism of degree $t = {t}$ with sequence parallelism, no recomputation",
    "tp-sp-selective": "tensor parallelism of degree $t = {t}$ with sequence parallelism "
    "and selective recomputation (the attention scores, softmax and dropout are recomputed "
    "in the backward pass instead of stored)",
}


def models_for(p: ActivationParams) -> list[catalog.ModelArch]:
    return [
        m
        for m in catalog.models()
        if (m.hidden_size, m.n_heads, m.n_layers) == (p.hidden, p.n_heads, p.n_layers)
    ]


@register
class ActivationMemory(Template):
    slug = "activation-memory"
    title = "Activation memory per GPU under tensor and sequence parallelism"
    family = "training"
    lessons = ("model-parallelism", "gpu-memory-math")
    skills = ("activation-memory", "sequence-parallelism", "tensor-parallel-sizing")
    difficulty = 3
    version = 1
    Params = ActivationParams

    def generate(self, rng: random.Random) -> ActivationParams:
        while True:
            m = rng.choice(catalog.models())
            seqs = [s for s in _SEQS if s <= m.max_context]
            scheme = rng.choice(["none", "tp", "tp-sp", "tp-sp-selective"])
            tps = [t for t in (2, 4, 8) if m.n_heads % t == 0]
            if not seqs or (scheme != "none" and not tps):
                continue
            p = ActivationParams(
                seq_len=rng.choice(seqs),
                micro_batch=rng.choice((1, 1, 2, 4)),
                hidden=m.hidden_size,
                n_heads=m.n_heads,
                n_layers=m.n_layers,
                tp=1 if scheme == "none" else rng.choice(tps),
                scheme=scheme,
                unit=rng.choice(("GB", "GiB")),
            )
            value = self.solve(p)["per_gpu"].value
            if 1 <= value <= 400 and parts_separated(self.solve(p), self.misconceptions(p)):
                return p

    def solve(self, p: ActivationParams) -> dict[str, Part]:
        return {"per_gpu": Part("per_gpu", total(p), p.unit, label="Activation memory per GPU")}

    def statement(self, p: ActivationParams) -> str:
        models = models_for(p)
        who = models[0].name if models else "A transformer"
        unit = "GB ($10^9$ bytes)" if p.unit == "GB" else "GiB ($2^{30}$ bytes)"
        seq = f"{p.seq_len:,}".replace(",", "{,}")
        baseline = (
            " (the baseline, as if one GPU held the whole model)" if p.scheme == "none" else ""
        )
        return (
            f"{who} has $h = {p.hidden}$, $a = {p.n_heads}$ attention heads and "
            f"$L = {p.n_layers}$ layers. You train it with sequence length "
            f"$s = {seq}$"
            + f" and micro-batch $b = {p.micro_batch}$, with "
            + _SCHEME_TEXT[p.scheme].format(t=p.tp)
            + baseline
            + ".\n\n"
            "Use Korthikanti et al. (2022)'s estimates of the activations one layer keeps "
            "for the backward pass, in bytes per GPU, with 16-bit activations:\n\n"
            "- no parallelism: $s b h\\,(34 + 5 a s / h)$\n"
            "- tensor parallelism: $s b h\\,(10 + 24 / t + 5 a s / (h t))$\n"
            "- tensor + sequence parallelism: $\\frac{s b h}{t}\\,(34 + 5 a s / h)$\n"
            "- tensor + sequence parallelism + selective recomputation: $34\\,s b h / t$\n\n"
            "Every layer keeps its own activations (no pipeline parallelism; ignore the "
            "embedding and output layers). How much activation memory does each GPU hold "
            f"for the whole model, in {unit}?"
        )

    def solution(self, p: ActivationParams) -> str:
        t = 1 if p.scheme == "none" else p.tp
        per = layer_bytes(p.scheme, p.seq_len, p.micro_batch, p.hidden, p.n_heads, t)
        sbh = f"{p.seq_len * p.micro_batch * p.hidden:,}".replace(",", "{,}")
        return (
            f"The scheme is {_SCHEME_TEXT[p.scheme].format(t=p.tp)}. Here $s b h = {sbh}"
            + f"$ and $5 a s / h = {sig(float(Fraction(5 * p.n_heads * p.seq_len, p.hidden)), 8)}"
            "$, "
            f"so one layer keeps {sig(float(per), 10)} bytes per GPU. Times the "
            f"{p.n_layers} layers: {sig(float(per * p.n_layers), 12)} bytes, divided by "
            f"{'$10^9$' if p.unit == 'GB' else '$2^{30}$'}: "
            f"**{sig(total(p), 6)} {p.unit}**."
        )

    def misconceptions(self, p: ActivationParams) -> list[Misconception]:
        out = [
            Misconception(
                "per-layer-only",
                "per_gpu",
                total(p, layers=1),
                f"That is one layer's activations. All {p.n_layers} layers keep theirs for "
                "the backward pass: multiply by L.",
            )
        ]
        if p.scheme != "none":
            out.append(
                Misconception(
                    "tp-not-divided",
                    "per_gpu",
                    total(p, scheme="none"),
                    f"That is the unsharded figure. Tensor parallelism splits the layer over "
                    f"t = {p.tp} GPUs; use the scheme's own estimate.",
                )
            )
        if p.scheme in ("tp-sp", "tp-sp-selective"):
            out.append(
                Misconception(
                    "sp-ignored",
                    "per_gpu",
                    total(p, scheme="tp"),
                    "That is tensor parallelism alone, which leaves the layer norms and "
                    "dropouts (the 10·sbh term) replicated. Sequence parallelism splits "
                    "them too, so everything is divided by t.",
                )
            )
        if p.scheme == "tp-sp-selective":
            out.append(
                Misconception(
                    "attention-kept",
                    "per_gpu",
                    total(p, scheme="tp-sp"),
                    "That keeps the attention scores (the 5as/h term). Selective "
                    "recomputation recomputes them in the backward pass, so only 34·sbh/t "
                    "stays.",
                )
            )
        if p.scheme == "none":
            out.append(
                Misconception(
                    "attention-dropped",
                    "per_gpu",
                    total(p, scheme="tp-sp-selective"),
                    "That leaves out the attention scores (the 5as/h term). Without "
                    "recomputation they are stored too: sbh(34 + 5as/h).",
                )
            )
        return out
