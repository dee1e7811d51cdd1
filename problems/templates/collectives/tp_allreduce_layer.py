"""tp-allreduce-layer: the all-reduce traffic of Megatron tensor parallelism (without
sequence parallelism) over a whole model, and its time over the NVLink ring.

Each transformer layer's attention and MLP blocks end in a row-parallel linear whose
partial outputs are summed by one all-reduce of the layer's activations (tokens x hidden
x bytes) in the forward pass; in the backward pass the column-parallel start of each block
all-reduces its input gradient, of the same size. So 2 all-reduces per layer forward, 4
per layer in a training step (forward and backward), each costing 2(t-1)/t of the message
over the ring's per-direction bandwidth (latency ignored).

Realism, as the generator enforces it:

- The shapes (hidden size and layer count) are a dense catalog model's (Llama, Mistral,
  Qwen, GPT-3), named in the statement; MoE models are not drawn.
- Tensor parallelism stays inside one NVLink domain, as Megatron-LM recommends: t in
  {2, 4, 8} over NVLink 3 (A100, 300 GB/s per direction), NVLink 4 (H100, 450 GB/s) or
  NVLink 5 (B200, 900 GB/s); the per-direction figures are `_family.FABRICS`'s.
- tokens = micro-batch (1, 2, 4 or 8) x sequence (2048, 4096 or 8192, within the model's
  context); activations in BF16 (sometimes FP16).
- In about two thirds of the variants (from a hash of the parameters) NVLink is given as
  NVIDIA quotes it, both directions added, and the learner halves it (misconception
  bidirectional-as-per-direction, named before the other time slips it would collide with).
- Discrimination: in a training step counting one all-reduce per layer per pass gives
  the same 2L as forgetting the backward pass, so only forward-only is named there. A
  slip is named only when it lands at least 2.5% from the answer and
  from the slips named before it on its part (the ring factor is 1 at t = 2, so that
  slip is not named there).
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import BYTES_PER_ELEMENT, sig
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import separated, sig15, tex15
from problems.templates.collectives._family import FABRICS, GB, param_hash

ActDtype = Literal["fp32", "fp16", "bf16", "fp8"]
Mode = Literal["forward", "training"]

MB = 1e6
_TP_FABRICS = {"nvlink-3": "A100", "nvlink-4": "H100", "nvlink-5": "B200"}
_SEPARATION = 0.025
_DTYPE_NAME = {"fp32": "FP32", "fp16": "FP16", "bf16": "BF16", "fp8": "FP8"}


class TpParams(Params):
    tokens: int = Field(ge=1, le=100_000_000)
    hidden: int = Field(ge=1, le=1_000_000)
    act_dtype: ActDtype
    n_layers: int = Field(ge=1, le=10_000)
    tp: int = Field(ge=2, le=1024)
    bus_bw_gbps: float = Field(gt=0, le=1e6)
    mode: Mode


MESSAGE = formula("S", lambda s: s.T * s.h * s.b, T="T", h="h", b="b")
TIME = formula(
    r"t_{\mathrm{AR}}",
    lambda s: s.N * (2 * (s.t - 1)) / s.t * s.S / s.B,
    N="N",
    t="t",
    S="S",
    B="B",
)


def _message(p: TpParams) -> float:
    return p.tokens * p.hidden * BYTES_PER_ELEMENT[p.act_dtype] / MB


def _count(p: TpParams, layers: int | None = None) -> int:
    return (2 if p.mode == "forward" else 4) * (p.n_layers if layers is None else layers)


def _time_ms(p: TpParams, *, count: int | None = None, message_mb: float | None = None,
             factor: float | None = None) -> float:  # fmt: skip
    n = _count(p) if count is None else count
    s = _message(p) if message_mb is None else message_mb
    f = 2 * (p.tp - 1) / p.tp if factor is None else factor
    return n * f * s * MB / (p.bus_bw_gbps * GB) * 1000


def _model_of(p: TpParams) -> catalog.ModelArch | None:
    for m in catalog.models():
        if m.hidden_size == p.hidden and m.n_layers == p.n_layers and m.n_experts is None:
            return m
    return None


def _fabric_of(p: TpParams):
    for f in FABRICS:
        if f.key in _TP_FABRICS and f.bw_gbps == p.bus_bw_gbps:
            return f
    return None


@register
class TpAllreduceLayer(Template):
    slug = "tp-allreduce-layer"
    title = "Tensor-parallel all-reduce traffic per layer"
    family = "collectives"
    lessons = ("model-parallelism", "anatomy-of-a-gpu-server")
    skills = ("tensor-parallelism", "ring-allreduce", "activation-size")
    difficulty = 3
    version = 1
    Params = TpParams

    def generate(self, rng: random.Random) -> TpParams:
        models = [m for m in catalog.models() if m.n_experts is None and m.arch_type == "dense"]
        if not models:
            models = [m for m in catalog.models() if m.n_experts is None]
        fabrics = [f for f in FABRICS if f.key in _TP_FABRICS]
        model = rng.choice(models)
        fabric = rng.choice(fabrics)
        seqs = [s for s in (2048, 4096, 8192) if s <= model.max_context] or [model.max_context]
        tokens = rng.choice((1, 2, 4, 8)) * rng.choice(seqs)
        dtype = "bf16" if rng.random() < 0.8 else "fp16"
        return TpParams(
            tokens=tokens,
            hidden=model.hidden_size,
            act_dtype=dtype,
            n_layers=model.n_layers,
            tp=rng.choice((2, 4, 8)),
            bus_bw_gbps=fabric.bw_gbps,
            mode=rng.choice(("forward", "training")),
        )

    def solve(self, p: TpParams) -> dict[str, Part]:
        return {
            "message": Part("message", _message(p), "MB", label="All-reduce message"),
            "allreduces": Part(
                "allreduces",
                _count(p),
                "",
                label="All-reduces",
                kind=Kind.INTEGER,
                tolerance=Exact(),
            ),
            "time": Part("time", _time_ms(p), "ms", label="All-reduce time"),
        }

    def statement(self, p: TpParams) -> str:
        model = _model_of(p)
        shape = f"hidden size $h = {p.hidden}$ and $L = {p.n_layers}$ layers"
        what = f"**{model.name}** ({shape})" if model else f"a transformer with {shape}"
        fabric = _fabric_of(p)
        gpus = f"{p.tp} {_TP_FABRICS[fabric.key]} GPUs" if fabric else f"{p.tp} GPUs"
        link = f" over {fabric.names[0].split(' (')[0]}" if fabric else ""
        step_word = (
            "one forward pass"
            if p.mode == "forward"
            else "one training step (forward and backward)"
        )
        return (
            f"{what} runs with Megatron-LM tensor parallelism of degree $t = {p.tp}$ on {gpus}"
            f"{link}, without sequence parallelism. A micro-batch holds $T = {p.tokens}$ tokens "
            f"(micro-batch size times sequence length) and activations are "
            f"{_DTYPE_NAME[p.act_dtype]} ({tex15(BYTES_PER_ELEMENT[p.act_dtype])} bytes each).\n\n"
            "In every layer the attention block and the MLP block each end in a row-parallel "
            "linear layer whose partial outputs the GPUs sum with an all-reduce of the full "
            "activation tensor; in the backward pass, the column-parallel linear layer that "
            "starts each block all-reduces its input gradient, of the same size. Each "
            "all-reduce is NCCL's ring: every GPU sends $2(t-1)/t$ times the message at "
            f"{self._bandwidth(p)}; ignore latency and any overlap "
            "with compute (1 MB $= 10^{6}$ bytes, 1 GB/s $= 10^{9}$ bytes/s).\n\n"
            f"For {step_word} of one micro-batch: how large is one all-reduce's message, in MB? "
            "How many all-reduces does it run across the whole model? How long do they take "
            "together, in milliseconds (ms)?"
        )

    def _wild(self, p: TpParams) -> bool:
        """Whether the statement gives NVLink as NVIDIA's bidirectional total (about 2/3)."""
        if _fabric_of(p) is None:
            return False
        return param_hash(p.tokens, p.hidden, p.n_layers, p.tp, p.bus_bw_gbps, p.mode) % 3 != 0

    def _bandwidth(self, p: TpParams) -> str:
        f = _fabric_of(p)
        if self._wild(p) and f is not None and f.wild is not None:
            return "the ring's per-direction bandwidth $B$ to its neighbour (" + f.wild + ")"
        return f"$B = {tex15(p.bus_bw_gbps)}$ GB/s per direction"

    def solution(self, p: TpParams) -> str:
        b = BYTES_PER_ELEMENT[p.act_dtype]
        s_mb = _message(p)
        n = _count(p)
        per = "2 (forward)" if p.mode == "forward" else "4 (2 forward + 2 backward)"
        return (
            "Each all-reduce carries the whole activation tensor, tokens times hidden times "
            f"bytes per element ($b = {sig(b)}$):\n\n"
            + step(MESSAGE, {"T": p.tokens, "h": p.hidden, "b": b}, s_mb * MB, "bytes")
            + f"\n\nThat is **{sig15(s_mb)} MB**.\n\n"
            f"Per layer there are {per} all-reduces, so over $L = {p.n_layers}$ layers "
            f"$N = {n // p.n_layers} \\times {p.n_layers} = $ **{n}**.\n\n"
            + (
                f"NVIDIA's figure adds both directions; a ring sends one way: "
                f"$B = {tex15(p.bus_bw_gbps)}$ GB/s.\n\n"
                if self._wild(p)
                else ""
            )
            + "Each ring all-reduce sends $2(t-1)/t$ of the message per GPU at $B$ "
            f"($S = {tex15(s_mb * MB)}$ bytes, $B = {tex15(p.bus_bw_gbps * GB)}$ B/s):\n\n"
            + step(
                TIME,
                {"N": n, "t": p.tp, "S": tex15(s_mb * MB), "B": p.bus_bw_gbps * GB},
                _time_ms(p) / 1000,
                "s",
            )
            + f"\n\nThat is **{sig(_time_ms(p), 6)} ms**."
        )

    def misconceptions(self, p: TpParams) -> list[Misconception]:
        b = BYTES_PER_ELEMENT[p.act_dtype]
        msg = _message(p)
        training = p.mode == "training"
        raw = [
            Misconception(
                "elements-not-bytes",
                "message",
                msg / b,
                f"That counts elements, not bytes: each activation is {tex15(b)} bytes.",
            ),
            Misconception(
                "activations-sharded",
                "message",
                msg / p.tp,
                "That divides the activations by t. Without sequence parallelism every GPU "
                "holds the full tokens x hidden tensor after the all-reduce, and that is what "
                "it sums.",
            ),
            Misconception(
                "mib-for-mb",
                "message",
                msg * MB / 2**20,
                "That is in MiB (2^20 bytes). The question asks for MB, 10^6 bytes.",
            ),
        ]
        f = _fabric_of(p)
        if self._wild(p) and f is not None and f.wild_slip is not None:
            code, factor, feedback = f.wild_slip
            raw.append(Misconception(code, "time", _time_ms(p) / factor, feedback))
        if training:
            raw += [
                Misconception(
                    "forward-only",
                    "allreduces",
                    2 * p.n_layers,
                    "That counts only the forward pass. The backward pass all-reduces the input "
                    "gradients of both blocks again: 4 per layer in a training step.",
                ),
                Misconception(
                    "forward-only",
                    "time",
                    _time_ms(p, count=2 * p.n_layers),
                    "That counts only the forward pass. The backward pass all-reduces the input "
                    "gradients of both blocks again: 4 per layer in a training step.",
                ),
            ]
        else:
            raw.append(
                Misconception(
                    "backward-counted",
                    "allreduces",
                    4 * p.n_layers,
                    "That adds the backward pass. A forward pass (inference) runs only the two "
                    "forward all-reduces per layer.",
                )
            )
        raw += [
            Misconception(
                "one-per-layer",
                "allreduces",
                _count(p) // 2,
                "That counts one all-reduce per layer. Attention and MLP each end in a "
                "row-parallel linear, so there are two per layer in each direction.",
            ),
            Misconception(
                "one-per-layer",
                "time",
                _time_ms(p, count=_count(p) // 2),
                "That counts one all-reduce per layer. Attention and MLP each end in a "
                "row-parallel linear, so there are two per layer in each direction.",
            ),
        ]
        raw += [
            Misconception(
                "allreduce-factor",
                "time",
                _time_ms(p, factor=1.0),
                "That sends the message once per all-reduce. A ring all-reduce sends "
                f"2(t-1)/t = {tex15(2 * (p.tp - 1) / p.tp)} times the message per GPU.",
            ),
            Misconception(
                "activations-sharded",
                "time",
                _time_ms(p, message_mb=msg / p.tp),
                "That divides the activations by t. Without sequence parallelism each "
                "all-reduce sums the full tokens x hidden tensor.",
            ),
            Misconception(
                "elements-not-bytes",
                "time",
                _time_ms(p, message_mb=msg / b),
                f"That counts elements, not bytes: each activation is {tex15(b)} bytes.",
            ),
        ]
        return _keep_separated(raw, self.solve(p))


def _keep_separated(raw: list[Misconception], solved: dict[str, Part]) -> list[Misconception]:
    """Each slip kept only when it lands _SEPARATION from its part's answer and from the
    slips kept before it."""
    kept: list[Misconception] = []
    for m in raw:
        values = [solved[m.part].value, *(k.value for k in kept if k.part == m.part)]
        if all(separated([v, m.value], _SEPARATION) for v in values):
            kept.append(m)
    return kept
