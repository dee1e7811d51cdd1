"""allreduce-ring-time: one ring all-reduce in the alpha-beta model, 2(n-1) latencies
plus 2(n-1)/n of the message over the neighbour bandwidth. Ring sizes and per-step
latencies are drawn per kind of link (scale-up, host, scale-out), and the message is
a catalog model's BF16 gradients or a gradient bucket.
"""

from __future__ import annotations

import random
from typing import Any, Literal

from pydantic import Field
from sympy import UnevaluatedExpr

from hardware_db import catalog
from problems.engine.numbers import SECONDS, UNIT_BYTES, params_count, sig
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import FactorHints, Misconception, Params, Part, Template
from problems.templates._common import (
    cached_index,
    group_by,
    model_with_params,
    name_list,
    sig15,
    tex15,
)
from problems.templates.collectives._family import (
    GB,
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


def _link_gbps(link: catalog.Link) -> float:
    """A link's per-direction bandwidth in GB/s as a generator states it (2 decimals)."""
    return round(link.bw_bytes_per_s_per_direction / GB, 2)


def _links_with_gbps(gbps: float) -> tuple[catalog.Link, ...]:
    index = cached_index("links-by-gbps", catalog.links(), lambda ls: group_by(ls, _link_gbps))
    return index.get(gbps, ())


class RingParams(Params):
    message_bytes: float = Field(gt=0, le=1e15)
    n_gpus: int = Field(ge=1, le=1_000_000)
    bus_bw_gbps: float = Field(gt=0, le=1e6)
    latency_us: float = Field(ge=0, le=1e6)
    unit: TimeUnit


RING = formula(
    "T",
    lambda s: 2 * UnevaluatedExpr(s.n - 1) * s.a + 2 * UnevaluatedExpr(s.n - 1) / s.n * s.S / s.B,
    n="n",
    a=r"\alpha",
    S="S",
    B="B",
)

# Per link kind: (ring sizes, per-step latencies in µs) that such a fabric really sees.
_RING_SHAPES: dict[str, tuple[tuple[int, ...], tuple[float, ...]]] = {
    "scale-up": ((2, 4, 8, 8), (1, 2, 2, 3)),
    "host": ((2, 4, 8), (3, 5)),
    "scale-out": ((16, 32, 64, 128, 256, 512, 1024), (5, 6, 8, 10, 15)),
}
_BIG_DOMAINS = {"nvlink-5": (36, 72), "google-ici-v5e": (16, 64, 256), "google-ici-v6e": (16, 256)}
_BUCKETS = (2**20, 4 * 2**20, 25 * 2**20, 25 * 2**20, 64 * 2**20, 256 * 2**20, 2**30, 4 * 2**30)


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
    Params = RingParams

    def generate(self, rng: random.Random) -> RingParams:
        link = rng.choice([li for li in catalog.links() if li.kind in _RING_SHAPES])
        if link.slug == "ethernet-10gbe":
            sizes, lats = (2, 4, 8, 16), (20, 30, 50)
        else:
            sizes, lats = _RING_SHAPES[link.kind]
            sizes = sizes + _BIG_DOMAINS.get(link.slug, ())
        n = rng.choice(sizes)
        if rng.random() < 0.4:
            models = [m for m in catalog.models() if m.total_params <= 100e9]
            message = float(2 * rng.choice(models).total_params)
        else:
            message = float(rng.choice(_BUCKETS))
        bw = _link_gbps(link)
        lat = float(rng.choice(lats))
        unit = rng.choice(_fitting_units(_ring_seconds(message, n, bw, lat)))
        return RingParams(
            message_bytes=message, n_gpus=n, bus_bw_gbps=bw, latency_us=lat, unit=unit
        )

    def _value(self, p: RingParams, **over: Any) -> float:
        args = {"S": p.message_bytes, "n": p.n_gpus, "bw_gbps": p.bus_bw_gbps}
        args["lat_us"] = p.latency_us
        args.update(over)
        return _ring_seconds(**args) / SECONDS[p.unit]

    def solve(self, p: RingParams) -> dict[str, Part]:
        return {"time": Part("time", self._value(p), p.unit, label="All-reduce time")}

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
            what = f"a message of {_size_phrase(p.message_bytes)}, $S = {tex15(p.message_bytes)}$"
        names = name_list((li.name for li in _links_with_gbps(p.bus_bw_gbps)), most=2, conj="or")
        over = f" over {names}" if names else ""
        return (
            f"{p.n_gpus} GPUs{over} all-reduce {what} with NCCL's ring algorithm. "
            f"Each GPU sends to its ring neighbour at $B = {tex15(p.bus_bw_gbps)}$ GB/s per "
            "direction (1 GB/s $= 10^{9}$ bytes/s), and every step of the ring costs a fixed "
            f"latency $\\alpha = {tex15(p.latency_us)}$ µs.\n\n"
            "Using the alpha-beta model of the ring (a reduce-scatter followed by an all-gather, "
            "ignoring the time spent on the additions themselves), how long does one all-reduce "
            f"take, in {UNIT_WORD[p.unit]}?"
        )

    def solution(self, p: RingParams) -> str:
        n = p.n_gpus
        seconds = _ring_seconds(p.message_bytes, n, p.bus_bw_gbps, p.latency_us)
        lat_s = 2 * (n - 1) * p.latency_us * 1e-6
        bw_s = seconds - lat_s
        return (
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
        out = [
            Misconception(
                "allreduce-factor",
                "time",
                (2 * (n - 1) * a + S / B) / unit,
                "That sends the message once. In a ring all-reduce every GPU sends 2(n-1)/n "
                "times the message: once around to reduce-scatter, once more to all-gather.",
            ),
            Misconception(
                "reduce-scatter-only",
                "time",
                ((n - 1) * a + (n - 1) / n * S / B) / unit,
                "That is only half the all-reduce: the reduce-scatter. The all-gather that "
                "follows costs the same again.",
            ),
            Misconception(
                "bits-vs-bytes",
                "time",
                self._value(p, bw_factor=1 / 8),
                f"That reads {sig15(p.bus_bw_gbps)} GB/s as gigabits per second. The bandwidth is "
                "given in bytes per second, so there is no factor of 8.",
            ),
            Misconception(
                "latency-once",
                "time",
                (a + 2 * (n - 1) / n * S / B) / unit,
                f"That pays the latency once. Each of the 2(n-1) = {2 * (n - 1)} ring steps "
                "is a separate send that pays alpha.",
            ),
            Misconception(
                "latency-ignored",
                "time",
                (2 * (n - 1) / n * S / B) / unit,
                "That leaves out the per-step latency. For small messages or large rings the "
                "2(n-1) alpha term can dominate.",
            ),
            Misconception(
                "full-message-per-step",
                "time",
                (2 * (n - 1) * a + 2 * (n - 1) * S / B) / unit,
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
        return out

    def factor_hints(self, p: RingParams) -> FactorHints:
        return FactorHints(ranks=p.n_gpus)
