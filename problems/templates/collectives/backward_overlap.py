"""allreduce-backward-overlap: a data-parallel step with and without overlapping the
gradient all-reduce with the backward pass, and the scaling efficiency that leaves.

The model (PyTorch DDP's bucketed overlap, as its design note describes it:
https://pytorch.org/docs/stable/notes/ddp.html, "Internal Design": gradients are grouped
into buckets and each bucket's all-reduce is launched as soon as its gradients are ready,
while the backward pass carries on):

- One all-reduce of x bytes over the N GPUs takes t(x) = 2(N-1)/N * x / busbw, with busbw
  the bus bandwidth nccl-tests reports (its doc/PERFORMANCE.md,
  https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md, defines busbw =
  algbw * 2(n-1)/n for all-reduce, so that busbw compares with the link). Latency is
  ignored.
- Without overlap the step is forward + backward + t(S) for the S bytes of gradients.
- With overlap every bucket but the last can all-reduce during the backward pass; the last
  bucket is ready only when the backward pass ends, so its all-reduce is always exposed:
  exposed = max(0, t(S - b) - t_bwd) + t(b) for a last bucket of b bytes. (When the
  backward pass cannot hide the earlier buckets this is t(S) - t_bwd, so forgetting the
  last bucket changes the answer only where the backward pass hides the rest.)
- Scaling efficiency at N GPUs against one (same per-GPU batch, no communication on one
  GPU): (t_fwd + t_bwd) / step.

Realism, as the generator enforces it: the replica is a catalog 7-8B dense model whose
16 bytes per parameter of mixed-precision Adam state fit in 80% of one GPU (so plain data
parallelism, no sharding), on the catalog servers whose GPUs hold it (DGX B200, Azure ND
MI300X v5: 8 GPUs per node, one 400 Gb/s InfiniBand NIC per GPU). N = 8 runs inside a node
over NVLink 5 / Infinity Fabric; 16 to 64 GPUs cross nodes and the NIC is the slowest hop
(not more: at 128 GPUs 2(N-1)/N is within 1% of 2, the grader's bytes-per-parameter factor);
busbw is 80-90% of that link's per-direction figure. Forward and backward times come from
2N and 4N FLOPs per token at 35-50% of the dense BF16 peak. Buckets are 25 MB (DDP's
default `bucket_cap_mb`) to 1 GB. A draw is kept when the whole-communication slip on
the overlapped step lands apart from it (up to 300 tries; in half the seeds the last
bucket's slip too, so that it is taught); any slip that still lands within 2.5% of its
part's answer or of a slip before it is not named.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import params_count, sig
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import FactorHints, Misconception, Params, Part, Template
from problems.templates._common import separated, tex15
from problems.templates.collectives._family import GB

MB = 1e6
_SEPARATION = 0.025
# Catalog servers whose GPUs hold a 7-8B model's full Adam state: (accelerator, server).
_SERVERS = {"b200": "dgx-b200", "mi300x": "azure-nd-mi300x-v5"}
_BUCKETS_MB = (25, 100, 250, 500, 1000)
_TOKENS = (1024, 2048, 4096, 8192, 16384, 32768)
_MFU = (0.35, 0.4, 0.45, 0.5)
_EFF = (0.8, 0.85, 0.9)
_HEADROOM = 0.8


class OverlapParams(Params):
    accelerator: Literal["b200", "mi300x"]
    grad_bytes: float = Field(gt=0, le=1e14)
    n_gpus: int = Field(ge=2, le=100_000)
    busbw_gbps: float = Field(gt=0, le=1e5)
    bucket_mb: float = Field(gt=0, le=1e6)
    forward_ms: float = Field(gt=0, le=1e7)
    backward_ms: float = Field(gt=0, le=1e7)


T_AR = formula(
    r"t_{\mathrm{AR}}",
    lambda s: 2 * (s.n - 1) / s.n * s.S / s.B,
    n="N",
    S="S",
    B=r"B_{\mathrm{bus}}",
)
EXPOSED = (
    r"t_{\mathrm{exp}} = \max\left(0,\ t_{\mathrm{AR}}(S - b) - t_{\mathrm{bwd}}\right)"
    r" + t_{\mathrm{AR}}(b)"
)


def ar_ms(p: OverlapParams, nbytes: float, *, factor: float | None = None) -> float:
    """Ring all-reduce time of nbytes in ms; factor replaces 2(N-1)/N (a slip)."""
    f = 2 * (p.n_gpus - 1) / p.n_gpus if factor is None else factor
    return f * nbytes / (p.busbw_gbps * GB) * 1000


def exposed_ms(p: OverlapParams, *, factor: float | None = None, last: bool = True) -> float:
    b = p.bucket_mb * MB
    if not last:  # the slip: every bucket overlaps, the last one too
        return max(0.0, ar_ms(p, p.grad_bytes, factor=factor) - p.backward_ms)
    rest = ar_ms(p, p.grad_bytes - b, factor=factor)
    return max(0.0, rest - p.backward_ms) + ar_ms(p, b, factor=factor)


def _model(p: OverlapParams) -> catalog.ModelArch | None:
    for m in catalog.models():
        if 2 * m.total_params == p.grad_bytes:
            return m
    return None


def _fits(model: catalog.ModelArch, acc: catalog.Accelerator) -> bool:
    return 16 * model.total_params <= _HEADROOM * acc.usable_bytes


@register
class AllreduceBackwardOverlap(Template):
    slug = "allreduce-backward-overlap"
    title = "Overlapping the gradient all-reduce with the backward pass"
    family = "collectives"
    lessons = ("distributed-training-data-parallel",)
    skills = ("data-parallelism", "ring-allreduce", "bus-bandwidth")
    difficulty = 3
    version = 1
    Params = OverlapParams

    def generate(self, rng: random.Random) -> OverlapParams:
        # Half the variants are drawn so that the last bucket shows (the backward pass
        # hides the rest, and the last bucket is a visible share of the step); the others
        # keep whatever regime the draw gives, mostly communication-bound across nodes.
        want_last = rng.random() < 0.5
        p = self._draw(rng)
        for _ in range(300):
            named = self.misconceptions(p)
            codes = {m.code for m in named if m.part == "step_overlap"}
            if (
                "comm-added-fully" in codes
                and len({m.code for m in named}) >= 2
                and (not want_last or "last-bucket-forgotten" in codes)
            ):
                break
            p = self._draw(rng)
        return p

    def _draw(self, rng: random.Random) -> OverlapParams:
        slug = rng.choice(sorted(_SERVERS))
        acc = catalog.accelerator(slug)
        server = catalog.server(_SERVERS[slug])
        model = rng.choice([m for m in catalog.models() if m.n_experts is None and _fits(m, acc)])
        n = rng.choice((8, 16, 32, 64))
        if n == server.n_accelerators:
            link = acc.scale_up_bw_bytes_per_s_per_direction
        else:
            link = catalog.link(server.nic_link).bw_bytes_per_s_per_direction
        busbw = round(link / GB * rng.choice(_EFF), 1)
        flops = acc.dense_flops["bf16"] * rng.choice(_MFU)
        fwd = round(2 * model.total_params * rng.choice(_TOKENS) / flops * 1000, 1)
        return OverlapParams(
            accelerator=slug,
            grad_bytes=float(2 * model.total_params),
            n_gpus=n,
            busbw_gbps=busbw,
            bucket_mb=float(rng.choice(_BUCKETS_MB)),
            forward_ms=fwd,
            backward_ms=round(2 * fwd, 1),
        )

    def _value(self, p: OverlapParams, part: str) -> float:
        compute = p.forward_ms + p.backward_ms
        if part == "step_no_overlap":
            return compute + ar_ms(p, p.grad_bytes)
        if part == "step_overlap":
            return compute + exposed_ms(p)
        return compute / (compute + exposed_ms(p)) * 100

    def solve(self, p: OverlapParams) -> dict[str, Part]:
        return {
            "step_no_overlap": Part(
                "step_no_overlap", self._value(p, "step_no_overlap"), "ms", label="Step, no overlap"
            ),
            "step_overlap": Part(
                "step_overlap", self._value(p, "step_overlap"), "ms", label="Step, overlapped"
            ),
            "efficiency": Part(
                "efficiency", self._value(p, "efficiency"), "%", label="Scaling efficiency"
            ),
        }

    def statement(self, p: OverlapParams) -> str:
        acc = catalog.accelerator(p.accelerator)
        server = catalog.server(_SERVERS[p.accelerator])
        model = _model(p)
        what = (
            f"**{model.name}** ({params_count(model.total_params)} parameters)"
            if model
            else "a model"
        )
        server_name = server.name.split(" (")[0]
        lib = "RCCL" if p.accelerator == "mi300x" else "NCCL"  # rccl-tests is AMD's port
        if p.n_gpus <= server.n_accelerators:
            where = f"the {p.n_gpus} {acc.short_name} GPUs of one {server_name} node"
        else:
            where = (
                f"{p.n_gpus} {acc.short_name} GPUs in {p.n_gpus // server.n_accelerators} "
                f"{server_name} nodes (8 GPUs each, the ring crossing nodes over the NICs)"
            )
        return (
            f"{what} trains with plain data parallelism on {where}: every GPU holds the whole "
            f"model ($N = {p.n_gpus}$ GPUs) and after each step's backward pass the GPUs "
            f"all-reduce the BF16 gradients, $S = {tex15(p.grad_bytes)}$ bytes, with "
            f"{lib}'s ring. {lib.lower()}-tests "
            f"(`all_reduce_perf`) over the same {p.n_gpus} GPUs reports a bus bandwidth "
            f"(busbw) of {sig(p.busbw_gbps)} GB/s at large messages. On each GPU the "
            f"forward pass takes {sig(p.forward_ms)} ms and the backward pass "
            f"{sig(p.backward_ms)} ms; the per-GPU batch is the same at any GPU count.\n\n"
            "With overlap, the gradients are grouped into buckets and each bucket is "
            "all-reduced as soon as the backward pass has produced it, while the backward "
            "pass goes on; the last bucket, "
            f"$b = {tex15(p.bucket_mb * MB)}$ bytes ({sig(p.bucket_mb)} MB), is ready only "
            "when the backward pass ends. Ignore latency and the optimizer step "
            "(1 MB $= 10^{6}$ bytes, 1 GB/s $= 10^{9}$ bytes/s).\n\n"
            "How long is a step without overlap (all-reduce after the backward pass), and "
            "with overlap, in ms? With overlap, what is the scaling efficiency against one "
            "GPU (which communicates nothing), in %?"
        )

    def solution(self, p: OverlapParams) -> str:
        n, S, b = p.n_gpus, p.grad_bytes, p.bucket_mb * MB
        full = ar_ms(p, S)
        rest, last = ar_ms(p, S - b), ar_ms(p, b)
        compute = p.forward_ms + p.backward_ms
        hidden = (
            "all of it is hidden"
            if rest <= p.backward_ms
            else (f"{sig(rest - p.backward_ms, 4)} ms of it is left over")
        )
        return (
            "busbw is the figure the ring formula takes: a ring all-reduce moves "
            "$2(N-1)/N$ of the message over each GPU's link "
            f"($B_{{\\mathrm{{bus}}}} = {tex15(p.busbw_gbps * GB)}$ B/s):\n\n"
            + step(T_AR, {"n": n, "S": tex15(S), "B": p.busbw_gbps * GB}, full / 1000, "s")
            + f"\n\nWithout overlap the step is $t_{{\\mathrm{{fwd}}}} = {tex15(p.forward_ms)}$ "
            f"ms, then $t_{{\\mathrm{{bwd}}}} = {tex15(p.backward_ms)}$ ms, then the all-reduce: "
            f"**{sig(self._value(p, 'step_no_overlap'), 6)} ms**.\n\n"
            f"With overlap, the buckets before the last, $S - b$ bytes, take "
            f"{sig(rest, 6)} ms to all-reduce and run during the {sig(p.backward_ms)} ms "
            f"backward pass: {hidden}. The last bucket starts only when the backward pass "
            f"ends and takes {sig(last, 6)} ms, always exposed:\n\n"
            + f"$${EXPOSED} = {tex15(round(exposed_ms(p), 6))}"
            "\\ \\mathrm{ms}$$" + f"\n\nThe step is {sig(compute, 6)} + {sig(exposed_ms(p), 6)} = "
            f"**{sig(self._value(p, 'step_overlap'), 6)} ms**. One GPU runs the same per-GPU "
            f"batch in {sig(compute, 6)} ms with nothing to communicate, so the efficiency "
            f"is {sig(compute, 6)} / {sig(self._value(p, 'step_overlap'), 6)} = "
            f"**{sig(self._value(p, 'efficiency'), 6)} %**."
        )

    def _raw(self, p: OverlapParams) -> list[Misconception]:
        compute = p.forward_ms + p.backward_ms
        no_overlap = self._value(p, "step_no_overlap")
        forgot = compute + exposed_ms(p, last=False)
        algbw_no = compute + ar_ms(p, p.grad_bytes, factor=1.0)
        algbw_ov = compute + exposed_ms(p, factor=1.0)
        added = (
            "That adds the whole all-reduce after the backward pass, as without overlap. "
            "The buckets before the last all-reduce while the backward pass runs; only what "
            "does not fit in it, and the last bucket, add to the step."
        )
        last = (
            "That lets every bucket hide behind the backward pass. The last bucket is filled "
            "only when the backward pass ends, so its all-reduce always adds to the step."
        )
        algbw = (
            "That divides the message by busbw as if it were the algorithm bandwidth. busbw "
            "already counts the 2(N-1)/N the ring moves: t = 2(N-1)/N x S / busbw."
        )
        return [
            Misconception("comm-added-fully", "step_overlap", no_overlap, added),
            Misconception("last-bucket-forgotten", "step_overlap", forgot, last),
            Misconception("busbw-as-algbw", "step_overlap", algbw_ov, algbw),
            Misconception("busbw-as-algbw", "step_no_overlap", algbw_no, algbw),
            Misconception("comm-added-fully", "efficiency", compute / no_overlap * 100, added),
            Misconception("last-bucket-forgotten", "efficiency", compute / forgot * 100, last),
            Misconception("busbw-as-algbw", "efficiency", compute / algbw_ov * 100, algbw),
            Misconception(
                "efficiency-inverted",
                "efficiency",
                self._value(p, "step_overlap") / compute * 100,
                "That divides the step at N GPUs by the step on one: the efficiency is the "
                "other way round, the one-GPU step over the N-GPU step (at most 100%).",
            ),
        ]

    def misconceptions(self, p: OverlapParams) -> list[Misconception]:
        solved = self.solve(p)
        kept: list[Misconception] = []
        for m in self._raw(p):
            values = [solved[m.part].value, *(k.value for k in kept if k.part == m.part)]
            if all(separated([v, m.value], _SEPARATION) for v in values):
                kept.append(m)
        return kept

    def factor_hints(self, p: OverlapParams) -> FactorHints:
        return FactorHints(ranks=p.n_gpus)
