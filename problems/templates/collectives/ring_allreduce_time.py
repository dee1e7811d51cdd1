"""allreduce-ring-time: one ring all-reduce in the alpha-beta model, 2(n-1) latencies
plus 2(n-1)/n of the message over the neighbour bandwidth.

Realism, as the generator enforces it (the fabrics are `_family.FABRICS`):

- NCCL and its ring only on NVIDIA fabrics: NVLink 3/4/5 within a node (or an NVL72
  domain), PCIe Gen4/Gen5 for GPUs without NVLink, and InfiniBand or RoCE NICs (one per
  GPU, nodes of 8) across nodes. AMD MI300X runs RCCL, with a stated model for B: one
  ring over one Infinity Fabric link (64 GB/s per direction, links.yaml), or seven rings
  at once over the seven links (7 x 64 = 448 GB/s). TPUs are not drawn: XLA's
  collectives over the ICI torus are not NCCL's ring.
- Latencies per step are 1.5-3 µs on NVLink and Infinity Fabric, 4-8 µs on PCIe, 5-15 µs
  across nodes; the message is a catalog model's BF16 gradients or a gradient bucket.
- In about half the variants (from a hash of the parameters) the link is given as an
  engineer meets it: NVLink as NVIDIA's bidirectional total, a NIC in Gb/s, an Infinity
  Fabric link as AMD's 128 GB/s both ways; the learner converts (misconceptions
  bidirectional-as-per-direction and bits-vs-bytes).
- Discrimination: a draw is kept only if every named slip lands at least 2.5% from the
  answer and from the others; the latency slips are named only where the latency (or
  one step of it) is at least 3% of the time, and draws where it is between 0.8% and 3%
  (a slip that grades wrong but cannot be named) are redrawn.
"""

from __future__ import annotations

import random
from typing import Any, Literal

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import SECONDS, UNIT_BYTES, params_count, sig
from problems.engine.registry import register
from problems.engine.solutions import formula, sp, step
from problems.engine.template import FactorHints, Misconception, Params, Part, Template
from problems.templates._common import (
    model_with_params,
    separated,
    sig15,
    tex15,
)
from problems.templates.collectives._family import (
    FABRICS,
    GB,
    Fabric,
    fabric_of,
    param_hash,
)

TimeUnit = Literal["us", "ms", "s"]

UNIT_WORD = {"us": "microseconds (µs)", "ms": "milliseconds (ms)", "s": "seconds (s)"}


def _size_phrase(size: float) -> str:
    """A byte count with its nearest round binary or decimal name, if it has one."""
    for unit in ("GiB", "MiB", "KiB", "GB", "MB", "KB"):
        q = size / UNIT_BYTES[unit]
        if q >= 1 and q == int(q):
            return f"{sig15(size)} bytes ({int(q)} {unit})"
    return f"{sig15(size)} bytes"


class RingParams(Params):
    message_bytes: float = Field(gt=0, le=1e15)
    n_gpus: int = Field(ge=1, le=1_000_000)
    bus_bw_gbps: float = Field(gt=0, le=1e6)
    latency_us: float = Field(ge=0, le=1e6)
    unit: TimeUnit


RING = formula(
    "T",
    lambda s: (
        2 * sp.UnevaluatedExpr(s.n - 1) * s.a + 2 * sp.UnevaluatedExpr(s.n - 1) / s.n * s.S / s.B
    ),
    n="n",
    a=r"\alpha",
    S="S",
    B="B",
)

_MIB = 2**20
_BUCKETS = tuple(k * _MIB for k in (1, 2, 4, 8, 16, 25, 25, 32, 64, 128, 256, 512, 1024))
_CONVERT = {  # (given as met in the wild, given per direction)
    "nvlink": ("half NVIDIA's figure, which adds both directions", None),
    "nic": ("the NIC's rate in bits per second over 8 bits per byte", None),
    "mi300x-one-ring": ("AMD's 128 GB/s per link adds both directions: 64 GB/s each way", None),
    "mi300x-seven-rings": (
        "AMD's 128 GB/s per link adds both directions, so 64 GB/s each way; the seven rings "
        "use seven links at once: 7 x 64 = 448 GB/s",
        "seven rings over seven links at once, 64 GB/s each way on each: 7 x 64 = 448 GB/s",
    ),
}
_SEPARATION = 0.025  # a named slip lands at least this far (relative) from the others
_GRAY = (0.008, 0.03)  # latency shares whose slips grade wrong but cannot be named


def _ring_seconds(S: float, n: int, bw_gbps: float, lat_us: float, *, bw_factor: float = 1.0):
    alpha = lat_us * 1e-6
    B = bw_gbps * GB * bw_factor
    return 2 * (n - 1) * alpha + 2 * (n - 1) / n * S / B


def _fitting_units(seconds: float) -> list[str]:
    return [u for u in ("us", "ms", "s") if 0.05 <= seconds / SECONDS[u] < 1e5] or ["s"]


@register
class AllreduceRingTime(Template):
    slug = "allreduce-ring-time"
    title = "Ring all-reduce time in the alpha-beta model"
    family = "collectives"
    lessons = (
        "distributed-training-data-parallel",
        "ai-networking-infiniband-roce",
        "anatomy-of-a-gpu-server",
    )
    skills = ("ring-allreduce", "alpha-beta-model", "link-bandwidth")
    difficulty = 3
    version = 2
    Params = RingParams

    def generate(self, rng: random.Random) -> RingParams:
        fabric = rng.choice(FABRICS)  # drawn once, so that redraws keep the fabrics' mix
        p = self._draw(rng, fabric)
        for _ in range(300):
            if self._separated(p):
                break
            p = self._draw(rng, fabric)
        return p

    def _draw(self, rng: random.Random, fabric: Fabric) -> RingParams:
        n = rng.choice(fabric.ranks)
        models = [
            m for m in catalog.models() if m.total_params <= min(100e9, fabric.max_message / 2)
        ]
        if rng.random() < 0.3 and models:
            message = float(2 * rng.choice(models).total_params)
        else:
            message = float(rng.choice(_BUCKETS))
        lat = rng.choice(fabric.latencies_us)
        unit = rng.choice(_fitting_units(_ring_seconds(message, n, fabric.bw_gbps, lat)))
        return RingParams(
            message_bytes=message, n_gpus=n, bus_bw_gbps=fabric.bw_gbps, latency_us=lat, unit=unit
        )

    def _separated(self, p: RingParams) -> bool:
        """Every named slip at least _SEPARATION from the answer and from each other, and no
        latency share in the gray zone."""
        total = self._value(p)
        n, a = p.n_gpus, p.latency_us * 1e-6 / SECONDS[p.unit]
        for share in (2 * (n - 1) * a / total, a / total):
            if _GRAY[0] <= share < _GRAY[1]:
                return False
        return separated([total, *(float(m.value) for m in self.misconceptions(p))], _SEPARATION)

    def _value(self, p: RingParams, **over: Any) -> float:
        args = {"S": p.message_bytes, "n": p.n_gpus, "bw_gbps": p.bus_bw_gbps}
        args["lat_us"] = p.latency_us
        args.update(over)
        return _ring_seconds(**args) / SECONDS[p.unit]

    def solve(self, p: RingParams) -> dict[str, Part]:
        return {"time": Part("time", self._value(p), p.unit, label="All-reduce time")}

    def _fabric(self, p: RingParams) -> Fabric | None:
        return fabric_of(p.bus_bw_gbps, p.n_gpus, p.latency_us)

    def _wild(self, p: RingParams) -> bool:
        """Whether the statement gives the link as met in the wild (about half)."""
        f = self._fabric(p)
        if f is None or f.wild is None:
            return False
        return param_hash(p.message_bytes, p.n_gpus, p.bus_bw_gbps, p.latency_us, p.unit) % 3 != 0

    def statement(self, p: RingParams) -> str:
        model = model_with_params(p.message_bytes / 2)  # BF16 gradients: 2 bytes each
        if model:
            what = (
                f"the BF16 gradients of **{model.name}** ({params_count(p.message_bytes / 2)} "
                f"parameters at 2 bytes each, $S = {tex15(p.message_bytes)}$ bytes)"
            )
        elif p.message_bytes == 25 * 2**20:
            what = (
                "one 25 MiB gradient bucket (PyTorch DDP's default `bucket_cap_mb`), "
                f"$S = {tex15(p.message_bytes)}$ bytes"
            )
        else:
            what = (
                f"a message of {_size_phrase(p.message_bytes)}, "
                f"$S = {tex15(p.message_bytes)}$ bytes"
            )
        f = self._fabric(p)
        if f is None:
            link = (
                f"{p.n_gpus} GPUs all-reduce {what} with a ring algorithm. Each GPU sends to "
                f"its ring neighbour at $B = {tex15(p.bus_bw_gbps)}$ GB/s per direction"
            )
        else:
            pick = param_hash(p.message_bytes, p.n_gpus, p.latency_us) % len(f.names)
            name = f.names[pick]
            where = "GPUs" if f.key.startswith(("nic", "pcie")) else f"GPUs over {name}"
            if f.key.startswith("mi300x"):
                where = "AMD MI300X GPUs"
            sentence = f.wild if self._wild(p) else f.direct
            link = f"{p.n_gpus} {where} all-reduce {what} with {f.library}. " + sentence.format(
                name=name
            )
        return (
            link + ". Every step of the ring costs a fixed latency "
            f"$\\alpha = {tex15(p.latency_us)}$ µs (and 1 GB/s $= 10^{{9}}$ bytes/s).\n\n"
            "Using the alpha-beta model of the ring (a reduce-scatter followed by an all-gather, "
            "ignoring the time spent on the additions themselves), how long does one all-reduce "
            f"take, in {UNIT_WORD[p.unit]}?"
        )

    def solution(self, p: RingParams) -> str:
        n = p.n_gpus
        seconds = _ring_seconds(p.message_bytes, n, p.bus_bw_gbps, p.latency_us)
        lat_s = 2 * (n - 1) * p.latency_us * 1e-6
        bw_s = seconds - lat_s
        f = self._fabric(p)
        convert = ""
        if f is not None:
            why = _CONVERT.get(f.key, _CONVERT.get(f.key.split("-")[0], (None, None)))
            why = why[0] if self._wild(p) else why[1]
            if why:
                convert = (
                    f"First the ring's bandwidth per direction: $B = {tex15(p.bus_bw_gbps)}$ "
                    f"GB/s ({why}).\n\n"
                )
        return convert + (
            f"The ring takes $2(n-1) = {2 * (n - 1)}$ steps: $n-1$ to reduce-scatter, $n-1$ to "
            "all-gather. Each step pays the latency $\\alpha$ and moves a chunk of $S/n$ bytes, "
            f"so every GPU sends $2(n-1)/n \\cdot S$ bytes in all. In seconds "
            f"($\\alpha = {tex15(p.latency_us * 1e-6)}$ s, $B = {tex15(p.bus_bw_gbps * GB)}$ B/s):"
            "\n\n"
            + step(
                RING,
                {
                    "n": n,
                    "a": p.latency_us * 1e-6,
                    "S": tex15(p.message_bytes),
                    "B": p.bus_bw_gbps * GB,
                },
                seconds,
                "s",
            )
            + f"\n\nLatency contributes {sig(lat_s / SECONDS[p.unit], 4)} {p.unit} and "
            f"bandwidth {sig(bw_s / SECONDS[p.unit], 4)} {p.unit}: "
            f"**{sig(seconds / SECONDS[p.unit], 6)} {p.unit}** in total."
        )

    def misconceptions(self, p: RingParams) -> list[Misconception]:
        n = p.n_gpus
        S, B, a = p.message_bytes, p.bus_bw_gbps * GB, p.latency_us * 1e-6
        unit = SECONDS[p.unit]
        total = self._value(p) * unit
        lat = 2 * (n - 1) * a
        out = [
            Misconception(
                "allreduce-factor",
                "time",
                (lat + S / B) / unit,
                "That sends the message once. In a ring all-reduce every GPU sends 2(n-1)/n "
                "times the message: once around to reduce-scatter, once more to all-gather.",
            ),
            Misconception(
                "reduce-scatter-only",
                "time",
                total / 2 / unit,
                "That is only half the all-reduce: the reduce-scatter. The all-gather that "
                "follows costs the same again.",
            ),
            Misconception(
                "full-message-per-step",
                "time",
                (lat + 2 * (n - 1) * S / B) / unit,
                "That sends the whole message at every step. The ring splits it into n chunks "
                "and each step moves only one chunk of S/n bytes.",
            ),
            Misconception(
                "unit-scale",
                "time",
                self._value(p) * 1000,
                f"That is off by a factor of 1000: check the conversion to {p.unit}.",
            ),
        ]
        if a / total >= _GRAY[1]:
            out.append(
                Misconception(
                    "latency-once",
                    "time",
                    (total - lat + a) / unit,
                    f"That pays the latency once. Each of the 2(n-1) = {2 * (n - 1)} ring steps "
                    "is a separate send that pays alpha.",
                )
            )
        if lat / total >= _GRAY[1]:
            once = "" if a / total >= _GRAY[1] else " (or pays it only once)"
            out.append(
                Misconception(
                    "latency-ignored",
                    "time",
                    (total - lat) / unit,
                    f"That leaves out the per-step latency{once}. Each of the 2(n-1) = "
                    f"{2 * (n - 1)} ring steps pays alpha, and for small messages or large "
                    "rings that term matters.",
                )
            )
        f = self._fabric(p)
        if f is not None and f.wild_slip is not None and self._wild(p):
            code, factor, feedback = f.wild_slip
            out.append(Misconception(code, "time", self._value(p, bw_factor=factor), feedback))
        if f is not None and f.key == "mi300x-seven-rings":
            out.append(
                Misconception(
                    "one-ring-of-seven",
                    "time",
                    self._value(p, bw_factor=1 / 7),
                    "That runs the whole message over one link's 64 GB/s. The seven rings share "
                    "it, a seventh each, over seven links at once: B = 7 x 64 = 448 GB/s.",
                )
            )
        return out

    def factor_hints(self, p: RingParams) -> FactorHints:
        return FactorHints(ranks=p.n_gpus)
