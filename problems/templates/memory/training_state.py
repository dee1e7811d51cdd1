"""training-memory-adam: the model states (weights, gradients, Adam's FP32 state) per
GPU for each ZeRO stage, from the ZeRO paper's 2 + 2 + 12 bytes per parameter.

Realism constraints the generator enforces (issue #11):

- Models are catalog models; GPUs are the catalog's training GPUs (A100 SXM4 80GB, H100
  SXM5, H200, B200, Instinct MI300X, MI325X, MI355X): never an inference part, never a
  TPU, Trainium or Gaudi, since the statement says "GPU", and not the MI250X, whose
  128 GB is two 64 GB dies that software sees as two GPUs.
- Every generated configuration fits: the per-GPU model states take at most
  `HEADROOM` (80%) of the named GPU's usable memory, leaving room for activations, and
  at least 2 GB (nobody shards a model so thinly its states are a rounding error). The
  GPU is named in the statement, drawn from the parameters among those it fits on, so
  no variant asks for 1,167 GB on one GPU as if that were a plan. (A `fits` yes/no part
  for configurations that do not fit would need the contract sweep to accept extra
  parts; see the report of issue #11.)
- Data-parallel degrees are whole 8-GPU nodes from 16 to 512 GPUs, never 8 or 1024:
  with 8 GPUs a per-GPU-versus-total slip is also the 8x bits-for-bytes one, and 16
  bytes / 8 is the 2 bytes of "weights only"; 1024 is within tolerance of a 1000x
  unit-prefix slip.

Conventions examined: in two fifths of the variants (from a hash of the parameters) the
statement gives the model states as data types (BF16 weights and gradients, an FP32
master copy, FP32 momentum and variance) rather than bytes, and the learner converts;
forgetting the FP32 master copy (8 bytes of optimizer state, not 12) is a named slip.
"""

from __future__ import annotations

import random
import zlib

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import UNIT_BYTES, params_count, sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import FactorHints, Misconception, Params, Part, Template
from problems.templates.memory._family import (
    OTHER_UNIT,
    SizeUnit,
    model_name,
    unit_note,
)


class TrainingParams(Params):
    n_params: float = Field(gt=0, le=1e14)
    n_gpus: int = Field(ge=1, le=1_000_000)
    zero_stage: int = Field(ge=0, le=3)
    unit: SizeUnit


# Mixed-precision Adam (ZeRO paper, section 3.1): 2 B weights + 2 B gradients + 12 B
# optimizer state per parameter; each ZeRO stage shards one more of the three over N.
_STAGE_EXPR = {
    0: lambda s: 16 * s.P,
    1: lambda s: 4 * s.P + 12 * s.P / s.n,
    2: lambda s: 2 * s.P + 14 * s.P / s.n,
    3: lambda s: 16 * s.P / s.n,
}
TRAINING = {
    stage: formula(r"M_{\mathrm{GPU}}", build, P=r"\Psi", n="N_d")
    for stage, build in _STAGE_EXPR.items()
}

TRAINING_GPUS = (
    "a100-sxm-80gb",
    "h100-sxm",
    "h200",
    "b200",
    "mi300x",
    "mi325x",
    "mi355x",
)
HEADROOM = 0.8  # model states may take at most this share of a GPU's usable memory
MIN_STATE_BYTES = 2e9
_DEGREES = (16, 32, 48, 64, 96, 128, 192, 256, 384, 512)


def _training_bytes(n: float, gpus: int, stage: int, optimizer: int = 12) -> float:
    """Model-state bytes per GPU; `optimizer` is the optimizer's bytes per parameter."""
    if stage == 0:
        return (4 + optimizer) * n
    if stage == 1:
        return 4 * n + optimizer * n / gpus
    if stage == 2:
        return 2 * n + (2 + optimizer) * n / gpus
    return (4 + optimizer) * n / gpus


def _key(p: TrainingParams) -> int:
    return zlib.crc32(f"{p.n_params}|{p.n_gpus}|{p.zero_stage}|{p.unit}".encode())


def gpus_it_fits(p: TrainingParams) -> list[catalog.Accelerator]:
    """The training GPUs whose usable memory holds these model states with headroom."""
    need = _training_bytes(p.n_params, p.n_gpus, p.zero_stage)
    return [
        catalog.accelerator(slug)
        for slug in TRAINING_GPUS
        if need <= HEADROOM * catalog.accelerator(slug).usable_bytes
    ]


def named_gpu(p: TrainingParams) -> catalog.Accelerator | None:
    """The GPU the statement names: one the states fit on, drawn from the parameters."""
    fits = gpus_it_fits(p)
    return fits[_key(p) % len(fits)] if fits else None


def gpu_label(gpu: catalog.Accelerator) -> str:
    """'NVIDIA H100 SXM5 80GB', 'NVIDIA B200' (the catalog's per-GPU note dropped)."""
    return f"{gpu.vendor} {gpu.name.split(' (')[0]}"


def states_as_dtypes(p: TrainingParams) -> bool:
    """Two fifths of the statements give the states as data types, not bytes."""
    return _key(p) % 5 < 2


@register
class TrainingMemoryAdam(Template):
    slug = "training-memory-adam"
    version = 2
    title = "Training memory per GPU with Adam and ZeRO"
    family = "memory"
    lessons = ("gpu-memory-math", "model-parallelism")
    skills = ("training-state-bytes", "zero-sharding")
    difficulty = 2
    Params = TrainingParams

    def generate(self, rng: random.Random) -> TrainingParams:
        models = catalog.models()
        while True:
            p = TrainingParams(
                n_params=float(rng.choice(models).total_params),
                n_gpus=rng.choice(_DEGREES),
                zero_stage=rng.randint(0, 3),
                unit=rng.choice(["GB", "GiB"]),
            )
            state = _training_bytes(p.n_params, p.n_gpus, p.zero_stage)
            if state >= MIN_STATE_BYTES and named_gpu(p) is not None:
                return p

    def solve(self, p: TrainingParams) -> dict[str, Part]:
        value = _training_bytes(p.n_params, p.n_gpus, p.zero_stage) / UNIT_BYTES[p.unit]
        return {"per_gpu": Part("per_gpu", value, p.unit, label="Model-state memory per GPU")}

    def statement(self, p: TrainingParams) -> str:
        stage = (
            "plain data parallelism (no ZeRO)"
            if p.zero_stage == 0
            else f"ZeRO stage {p.zero_stage}"
        )
        gpu = named_gpu(p)
        gpus = f"{p.n_gpus} {gpu_label(gpu)} GPUs" if gpu else f"{p.n_gpus} GPUs"
        if states_as_dtypes(p):
            states = (
                "The model states are the BF16 weights, the BF16 gradients, and Adam's FP32 "
                "optimizer state: an FP32 master copy of the weights plus FP32 momentum and "
                "FP32 variance."
            )
        else:
            states = (
                "Per parameter the model states are 2 bytes of BF16 weights, 2 bytes of "
                "BF16 gradients and 12 bytes of FP32 optimizer state (master weights, "
                "momentum, variance)."
            )
        return (
            f"You train {model_name(p.n_params) or 'a model'} "
            f"({params_count(p.n_params)} parameters, $\\Psi = {tex(p.n_params, 12)}$) "
            f"with mixed-precision Adam on {gpus} using {stage}, data-parallel degree "
            f"$N_d = {p.n_gpus}$. {states}\n\n"
            f"Ignoring activations and buffers, how much memory do the model states take on "
            f"**each** GPU, in {unit_note(p.unit)}?"
        )

    def solution(self, p: TrainingParams) -> str:
        total = _training_bytes(p.n_params, p.n_gpus, p.zero_stage)
        value = total / UNIT_BYTES[p.unit]
        what = {
            0: "Without ZeRO every GPU holds all 16 bytes per parameter.",
            1: "Stage 1 shards the 12 bytes of optimizer state; weights and gradients stay whole.",
            2: "Stage 2 shards optimizer state and gradients; only the 2-byte weights stay whole.",
            3: "Stage 3 shards weights, gradients and optimizer state: all 16 bytes.",
        }[p.zero_stage]
        bytes_note = (
            "BF16 is 2 bytes and FP32 is 4, so weights and gradients are 2 + 2 bytes per "
            "parameter and Adam's master copy, momentum and variance are 4 + 4 + 4 = 12.\n\n"
            if states_as_dtypes(p)
            else ""
        )
        divisor = "2^{30}" if p.unit == "GiB" else "10^{9}"
        text = (
            f"{bytes_note}{what}\n\n"
            + step(TRAINING[p.zero_stage], {"P": p.n_params, "n": p.n_gpus}, total, "B")
            + f"\n\nDivide by ${divisor}$ bytes per {p.unit}: **{sig(value, 6)} {p.unit}** per GPU."
        )
        gpu = named_gpu(p)
        if gpu is not None:
            share = total / gpu.usable_bytes
            text += (
                f" That is {sig(share * 100, 3)}% of the {gpu_label(gpu)}'s "
                f"{sig(gpu.usable_gib, 4)} GiB usable, leaving the rest for activations."
            )
        return text

    def misconceptions(self, p: TrainingParams) -> list[Misconception]:
        unit = UNIT_BYTES[p.unit]
        answer = _training_bytes(p.n_params, p.n_gpus, p.zero_stage)
        out = [
            Misconception(
                "gb-vs-gib",
                "per_gpu",
                answer / UNIT_BYTES[OTHER_UNIT[p.unit]],
                f"That is the figure in {OTHER_UNIT[p.unit]}; the question asks for {p.unit}.",
            )
        ]
        if p.zero_stage != 0:
            out.append(
                Misconception(
                    "zero-not-applied",
                    "per_gpu",
                    16 * p.n_params / unit,
                    "That is the unsharded 16 bytes per parameter. ZeRO stage "
                    f"{p.zero_stage} divides part of the state across the {p.n_gpus} GPUs.",
                )
            )
        if p.zero_stage != 3:
            out.append(
                Misconception(
                    "zero-stage-confused",
                    "per_gpu",
                    16 * p.n_params / p.n_gpus / unit,
                    "That shards all 16 bytes, which only stage 3 does. "
                    f"Stage {p.zero_stage} keeps some of the state whole on every GPU.",
                )
            )
        out.append(
            Misconception(
                "weights-only",
                "per_gpu",
                2 * p.n_params / unit,
                "That counts only the BF16 weights. Training with Adam also keeps gradients "
                "and 12 bytes of FP32 optimizer state per parameter.",
            )
        )
        no_master = _training_bytes(p.n_params, p.n_gpus, p.zero_stage, optimizer=8)
        if abs(no_master - answer) > 0.03 * answer:  # stages 1-2 at large N: too close
            out.append(
                Misconception(
                    "no-master-copy",
                    "per_gpu",
                    no_master / unit,
                    "That counts 8 bytes of optimizer state: momentum and variance only. "
                    "Mixed-precision Adam also keeps an FP32 master copy of the weights, "
                    "so the optimizer state is 4 + 4 + 4 = 12 bytes per parameter.",
                )
            )
        return out

    def factor_hints(self, p: TrainingParams) -> FactorHints:
        return FactorHints(parallelism=p.n_gpus)
