"""weight-offload: what keeping part of a model's weights in host memory costs a decode
step, against keeping them all in HBM; the tier a byte is read from sets the speed.

At batch 1 a decode step reads every weight once, so its floor is the bytes read divided
by the bandwidth they are read at. vLLM's `--cpu-offload-gb` (engine arguments: "the
space in GiB to offload to CPU, per GPU"; "part of the model is loaded from CPU memory to
GPU memory on the fly in each model forward pass") keeps that many GiB of weights in
host memory and streams them over the GPU's host link at every step. So the step is the
resident bytes at HBM bandwidth plus the offloaded bytes at the PCIe per-direction rate
(hardware_db: each part's HBM bandwidth and host link, PCIe Gen4/Gen5 x16 after
128b/130b encoding), the two not overlapped (the floor for weights read as they are
needed; prefetching could hide the smaller term, never the PCIe one).

Realism: a dense catalog model in BF16 (FP8 where the part publishes an FP8 peak) on one
catalog GPU with a PCIe host link, where the weights take 60% to 150% of the GPU's usable
memory; the offload is whole GiB, at least what leaves 20% of memory for the KV cache and
activations, as an operator sizes it. Misconceptions: the bidirectional PCIe headline
(bidirectional-host-link), the GiB read as GB (offload-gib-as-gb), every weight read over
PCIe (all-weights-over-pcie), the HBM share forgotten (resident-share-forgotten), and the
slowdown turned over (slowdown-inverted).
"""

from __future__ import annotations

import math
import random

from pydantic import Field, field_validator

from hardware_db import catalog
from problems.engine.numbers import BYTES_PER_ELEMENT, params_count, sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import dense_models, parts_separated

GIB = 2**30
DTYPES = ("bf16", "fp8")

RESIDENT = formula(
    r"t_{\mathrm{HBM}}", lambda s: s.W / s.B, W="W", B=r"B_{\mathrm{HBM}}"
)  # fmt: skip
OFFLOADED = formula(
    r"t_{\mathrm{off}}",
    lambda s: (s.W - s.X) / s.B + s.X / s.P,
    W="W",
    X="X",
    B=r"B_{\mathrm{HBM}}",
    P=r"B_{\mathrm{PCIe}}",
)


def _gpus() -> tuple[catalog.Accelerator, ...]:
    """GPUs vLLM serves from with CPU offload: NVIDIA's and AMD's single-die MI300 line
    (the MI250X is two GPUs in one package; Gaudi and the TPU/Trainium chips run other
    stacks)."""
    return tuple(
        a
        for a in catalog.accelerators()
        if a.host_link
        and a.mem_bw_bytes_per_s
        and (a.vendor == "NVIDIA" or a.slug.startswith("mi3"))
    )


def _models() -> tuple[catalog.ModelArch, ...]:
    """Dense models whose weights are published (GPT-3's never were)."""
    return tuple(m for m in dense_models() if not m.slug.startswith("gpt-3"))


class OffloadParams(Params):
    model: str
    accelerator: str
    dtype: str
    offload_gib: int = Field(ge=1, le=2048)

    @field_validator("model")
    @classmethod
    def _known_model(cls, value: str) -> str:
        if value not in {m.slug for m in _models()}:
            raise ValueError("not a dense catalog model with published weights")
        return value

    @field_validator("accelerator")
    @classmethod
    def _known_gpu(cls, value: str) -> str:
        if value not in {a.slug for a in _gpus()}:
            raise ValueError("not a catalog GPU with a PCIe host link")
        return value

    @field_validator("dtype")
    @classmethod
    def _known_dtype(cls, value: str) -> str:
        if value not in DTYPES:
            raise ValueError(f"one of {DTYPES}")
        return value


def _figures(p: OffloadParams) -> tuple[float, float, float, float]:
    """Weight bytes, offloaded bytes, HBM and PCIe per-direction bytes per second."""
    model = catalog.model(p.model)
    acc = catalog.accelerator(p.accelerator)
    link = catalog.link(acc.host_link)
    weights = model.total_params * BYTES_PER_ELEMENT[p.dtype]
    return weights, p.offload_gib * GIB, acc.mem_bw_bytes_per_s, link.bw_bytes_per_s_per_direction


def _steps(p: OffloadParams) -> tuple[float, float]:
    w, x, hbm, pcie = _figures(p)
    return w / hbm, (w - x) / hbm + x / pcie


@register
class WeightOffload(Template):
    slug = "weight-offload"
    title = "Weights in host memory: what a decode step pays"
    family = "memory"
    lessons = ("where-the-bytes-live", "loading-a-model-onto-a-gpu")
    skills = ("memory-hierarchy", "decode-bandwidth-bound")
    difficulty = 2
    Params = OffloadParams

    def generate(self, rng: random.Random) -> OffloadParams:
        models, gpus = _models(), _gpus()
        while True:
            model, acc = rng.choice(models), rng.choice(gpus)
            dtype = rng.choice([d for d in DTYPES if d == "bf16" or d in acc.dense_flops])
            weights = model.total_params * BYTES_PER_ELEMENT[dtype]
            usable = acc.usable_bytes
            if not 0.6 <= weights / usable <= 1.5:
                continue
            least = max(1, math.ceil((weights - 0.8 * usable) / GIB))
            extra = rng.choice((0, 0, 2, 4, 8))
            offload = least + extra
            if offload * GIB > 0.6 * weights:
                continue
            p = OffloadParams(
                model=model.slug, accelerator=acc.slug, dtype=dtype, offload_gib=offload
            )
            if parts_separated(self.solve(p), self.misconceptions(p)):
                return p

    def solve(self, p: OffloadParams) -> dict[str, Part]:
        resident, offloaded = _steps(p)
        return {
            "resident_ms": Part(
                "resident_ms", resident * 1e3, "ms", label="Decode step, all weights in HBM"
            ),
            "offload_ms": Part(
                "offload_ms", offloaded * 1e3, "ms", label="Decode step with the offload"
            ),
            "slowdown": Part("slowdown", offloaded / resident, "", label="Slowdown (times)"),
        }

    def statement(self, p: OffloadParams) -> str:
        model = catalog.model(p.model)
        acc = catalog.accelerator(p.accelerator)
        link = catalog.link(acc.host_link)
        w, _, hbm, pcie = _figures(p)
        if w > acc.usable_bytes:
            why = "The weights do not fit in its memory"
        else:
            why = "The weights fit, but leave too little room for the KV cache"
        size = BYTES_PER_ELEMENT[p.dtype]
        return (
            f"{model.name} ({params_count(model.total_params)} parameters, stored in "
            f"{p.dtype.upper()}, {sig(size)} {'byte' if size == 1 else 'bytes'} each) is to be "
            f"served from one {acc.prose_name} ({acc.memory_label}, "
            f"{sig(hbm / 1e12, 12)} TB/s of HBM bandwidth), attached to its host by "
            f"{link.name} ({sig(pcie / 1e9, 4)} GB/s each way, "
            f"{sig(2 * pcie / 1e9, 4)} GB/s counting both directions). {why}, so the "
            f"operator starts vLLM with "
            f"`--cpu-offload-gb {p.offload_gib}`: that many GiB of weights stay in host "
            "memory and are copied to the GPU over the host link in every forward pass.\n\n"
            "Take one decode step at batch size 1 as reading every weight once, at the "
            "bandwidth of the tier it is read from, with the host-link copy not overlapped "
            "with the HBM reads (ignore the KV cache and compute).\n\n"
            "1. How long would a decode step take if all the weights were in HBM, in ms?\n"
            "2. How long does it take with the offload, in ms?\n"
            "3. By what factor does the offload slow each step?"
        )

    def solution(self, p: OffloadParams) -> str:
        w, x, hbm, pcie = _figures(p)
        resident, offloaded = _steps(p)
        return (
            "A decode step at batch 1 reads each weight once; each byte costs the time its "
            "tier takes to deliver it, so bytes held in host memory cost the host link's "
            "rate, tens of times slower than HBM.\n\n"
            f"The weights are $W = {tex(w, 15)}$ bytes. Read from HBM alone, at "
            f"$B_{{\\mathrm{{HBM}}}} = {tex(hbm, 15)}$ bytes/s:\n\n"
            + step(RESIDENT, {"W": w, "B": hbm}, resident, "s")
            + f"\n\nThat is **{sig(resident * 1e3)} ms**. vLLM's offload is in GiB: "
            f"$X = {p.offload_gib} \\times 2^{{30}} = {tex(x, 15)}$ bytes, read over the "
            f"host link at its per-direction rate $B_{{\\mathrm{{PCIe}}}} = {tex(pcie, 15)}$ "
            "bytes/s (a copy to the GPU uses one direction), the rest from HBM:\n\n"
            + step(OFFLOADED, {"W": w, "X": x, "B": hbm, "P": pcie}, offloaded, "s")
            + f"\n\nThat is **{sig(offloaded * 1e3)} ms**, a slowdown of "
            f"**{sig(offloaded / resident)}** times: a small share of the bytes in a slow "
            "tier sets the speed of the whole step."
        )

    def misconceptions(self, p: OffloadParams) -> list[Misconception]:
        w, x, hbm, pcie = _figures(p)
        resident, offloaded = _steps(p)
        ms = 1e3
        both_ways = ((w - x) / hbm + x / (2 * pcie)) * ms
        as_gb = ((w - p.offload_gib * 1e9) / hbm + p.offload_gib * 1e9 / pcie) * ms
        return [
            Misconception(
                "bidirectional-host-link", "offload_ms", both_ways,
                "A copy to the GPU moves data one way: use the link's per-direction rate, "
                "half the both-directions headline.",
            ),
            Misconception(
                "offload-gib-as-gb", "offload_ms", as_gb,
                "vLLM's --cpu-offload-gb counts GiB (2^30 bytes), not GB.",
            ),
            Misconception(
                "all-weights-over-pcie", "offload_ms", w / pcie * ms,
                "Only the offloaded GiB cross the host link; the rest are read from HBM.",
            ),
            Misconception(
                "resident-share-forgotten", "offload_ms", x / pcie * ms,
                "The weights left in HBM are still read every step; add their time.",
            ),
            Misconception(
                "slowdown-inverted", "slowdown", resident / offloaded,
                "The slowdown is the offloaded step over the all-HBM step, more than 1.",
            ),
        ]  # fmt: skip
