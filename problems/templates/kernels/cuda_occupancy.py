"""cuda-occupancy: how many blocks of a kernel fit on one streaming multiprocessor (the
tightest of the thread, block, register and shared-memory limits), the occupancy that
gives, and how many waves the grid runs in.

blocks_per_sm = min(max_blocks_per_sm, floor(max_threads_per_sm / threads_per_block),
floor(regs_per_sm / (regs_per_thread x threads_per_block)), floor(smem_per_sm /
smem_per_block) when the block uses shared memory); allocation granularity is ignored.
occupancy = blocks_per_sm x threads_per_block / max_threads_per_sm; waves =
ceil(total_blocks / (blocks_per_sm x n_sms)). A block that cannot fit on an SM at all is
refused as out of range. All arithmetic is exact (integers and Fractions).

Realism, as the generator enforces it (limits and SM counts in `_family`, with sources):

- The GPU is a real one, named in the statement: A100 (compute capability 8.0), H100
  SXM5/PCIe and H200 (9.0), B200 (10.0), with the per-SM limits of the CUDA C++
  Programming Guide for its compute capability and its datasheet SM count.
- Blocks are whole warps, 64-1024 threads (powers of two, as kernels are written);
  registers per thread are values nvcc reports (32-255, the architectural maximum being
  255), kept so that a block's registers fit the SM's 64K; shared memory per block is 0 or
  a typical tile (4-227 KiB) within the architecture's per-block opt-in maximum.
- The grid is a realistic launch: a multiple of the SM count, or 1,000 to 100,000 blocks.
- Discrimination: a slip is named only when it lands at least 2.5% from its part's answer
  and from the slips named before it (a slip that changes nothing is not named).
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

from pydantic import Field, model_validator

from problems.engine.numbers import sig
from problems.engine.registry import register
from problems.engine.solutions import formula, sp, step
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import separated, tex15
from problems.templates.kernels._family import GPUS, Gpu

_SEPARATION = 0.025
_THREADS = (64, 128, 128, 256, 256, 256, 512, 512, 1024)
_REGS = (32, 40, 48, 56, 64, 64, 72, 80, 96, 128, 128, 168, 255)
_SMEM = (4, 8, 16, 24, 32, 48, 48, 64, 96, 100, 128, 160, 192, 227)
_GRIDS = (1000, 2048, 4096, 10000, 16384, 20000, 65536, 100000)


class OccupancyParams(Params):
    threads_per_block: int = Field(ge=1, le=1024)
    regs_per_thread: int = Field(ge=1, le=255)
    smem_per_block_kib: float = Field(ge=0, le=1e6)
    n_sms: int = Field(ge=1, le=100_000)
    total_blocks: int = Field(ge=1, le=2**31 - 1)
    max_threads_per_sm: int = Field(ge=1, le=1_000_000)
    max_blocks_per_sm: int = Field(ge=1, le=10_000)
    regs_per_sm: int = Field(ge=1, le=100_000_000)
    smem_per_sm_kib: float = Field(ge=0, le=1e6)

    @model_validator(mode="after")
    def _block_fits(self) -> OccupancyParams:
        if _limits(self)["min"] < 1:
            raise ValueError("a block of this kernel cannot fit on one SM")
        return self


def _frac(x: float) -> Fraction:
    return Fraction(str(x))


def _limits(p: OccupancyParams) -> dict[str, int]:
    """Each limit's count of blocks per SM, and their minimum."""
    t = p.threads_per_block
    out = {
        "blocks": p.max_blocks_per_sm,
        "threads": p.max_threads_per_sm // t,
        "registers": p.regs_per_sm // (p.regs_per_thread * t),
    }
    if p.smem_per_block_kib > 0:
        out["smem"] = math.floor(_frac(p.smem_per_sm_kib) / _frac(p.smem_per_block_kib))
    out["min"] = min(out.values())
    return out


def _occupancy(p: OccupancyParams, blocks: int) -> float:
    return float(Fraction(100 * blocks * p.threads_per_block, p.max_threads_per_sm))


def _waves(p: OccupancyParams, blocks: int) -> int:
    return -(-p.total_blocks // (blocks * p.n_sms))


def _gpu_of(p: OccupancyParams) -> Gpu | None:
    for g in GPUS:
        lim = g.limits
        if (
            g.n_sms == p.n_sms
            and lim.max_threads_per_sm == p.max_threads_per_sm
            and lim.max_blocks_per_sm == p.max_blocks_per_sm
            and lim.regs_per_sm == p.regs_per_sm
            and lim.smem_per_sm_kib == p.smem_per_sm_kib
        ):
            return g
    return None


OCCUPANCY = formula("O", lambda s: 100 * s.b * s.t / s.T, b="b", t="t", T=r"T_{\mathrm{SM}}")

WAVES = formula("W", lambda s: sp.ceiling(s.N / (s.b * s.n)), N="N", b="b", n="n")


@register
class CudaOccupancy(Template):
    slug = "cuda-occupancy"
    title = "CUDA occupancy: blocks per SM and waves"
    family = "kernels"
    lessons = ("gpu-programming-with-cuda", "inside-a-gpu")
    skills = ("cuda-occupancy", "sm-resource-limits", "wave-quantization")
    difficulty = 3
    version = 1
    Params = OccupancyParams

    def generate(self, rng: random.Random) -> OccupancyParams:
        gpu = rng.choice(GPUS)
        p = self._draw(rng, gpu)
        for _ in range(200):
            if len(self.misconceptions(p)) >= 3:
                break
            p = self._draw(rng, gpu)
        return p

    def _draw(self, rng: random.Random, gpu: Gpu) -> OccupancyParams:
        lim = gpu.limits
        threads = rng.choice(_THREADS)
        regs = rng.choice([r for r in _REGS if r * threads <= lim.regs_per_sm])
        smem = 0.0
        if rng.random() < 0.6:
            smem = float(rng.choice([s for s in _SMEM if s <= lim.max_smem_per_block_kib]))
        if rng.random() < 0.3:
            grid = gpu.n_sms * rng.choice((1, 2, 4, 8, 16, 32))
        else:
            grid = rng.choice(_GRIDS)
        return OccupancyParams(
            threads_per_block=threads,
            regs_per_thread=regs,
            smem_per_block_kib=smem,
            n_sms=gpu.n_sms,
            total_blocks=grid,
            max_threads_per_sm=lim.max_threads_per_sm,
            max_blocks_per_sm=lim.max_blocks_per_sm,
            regs_per_sm=lim.regs_per_sm,
            smem_per_sm_kib=float(lim.smem_per_sm_kib),
        )

    def solve(self, p: OccupancyParams) -> dict[str, Part]:
        b = _limits(p)["min"]
        return {
            "blocks_per_sm": Part(
                "blocks_per_sm",
                b,
                "",
                kind=Kind.INTEGER,
                tolerance=Exact(),
                label="Resident blocks per SM",
            ),
            "occupancy": Part("occupancy", _occupancy(p, b), "%", label="Occupancy"),
            "waves": Part(
                "waves", _waves(p, b), "", kind=Kind.INTEGER, tolerance=Exact(), label="Waves"
            ),
        }

    def statement(self, p: OccupancyParams) -> str:
        gpu = _gpu_of(p)
        where = (
            f"an {gpu.name} (compute capability {gpu.limits.cc}, {p.n_sms} SMs)"
            if gpu
            else f"a GPU with {p.n_sms} streaming multiprocessors (SMs)"
        )
        smem = (
            f"{tex15(p.smem_per_block_kib)} KiB of shared memory per block"
            if p.smem_per_block_kib > 0
            else "no shared memory"
        )
        return (
            f"A CUDA kernel is launched on {where} as a grid of {p.total_blocks:,} blocks of "
            f"{p.threads_per_block} threads. The compiler reports {p.regs_per_thread} "
            f"registers per thread, and the kernel uses {smem}.\n\n"
            f"Each SM holds at most {p.max_threads_per_sm:,} resident threads and "
            f"{p.max_blocks_per_sm} resident blocks, and has {p.regs_per_sm:,} 32-bit "
            f"registers and {tex15(p.smem_per_sm_kib)} KiB of shared memory. A block is "
            "resident on one SM only when all of its threads, registers and shared memory "
            "fit there; ignore the allocation granularity of registers and shared memory.\n\n"
            "How many blocks can be resident on one SM at once? What is the occupancy "
            "(resident threads as a share of the SM's maximum), in %? If every block takes "
            "the same time, in how many waves does the grid run (a partly filled last wave "
            "counts as a wave)?"
        )

    def solution(self, p: OccupancyParams) -> str:
        lim = _limits(p)
        t, r = p.threads_per_block, p.regs_per_thread
        lines = [
            f"- block slots: $B_{{\\max}} = {p.max_blocks_per_sm}$",
            f"- threads: $\\lfloor {p.max_threads_per_sm} / {t} \\rfloor = {lim['threads']}$",
            f"- registers: $\\lfloor {p.regs_per_sm} / ({r} \\times {t}) \\rfloor = "
            f"\\lfloor {p.regs_per_sm} / {r * t} \\rfloor = {lim['registers']}$",
        ]
        if "smem" in lim:
            lines.append(
                f"- shared memory: $\\lfloor {tex15(p.smem_per_sm_kib)} / "
                f"{tex15(p.smem_per_block_kib)} \\rfloor = {lim['smem']}$"
            )
        else:
            lines.append("- shared memory: none used, so no limit")
        b = lim["min"]
        binding = [k for k in ("blocks", "threads", "registers", "smem") if lim.get(k) == b]
        names = {
            "blocks": "block slots",
            "threads": "threads",
            "registers": "registers",
            "smem": "shared memory",
        }
        occ = _occupancy(p, b)
        per_wave = b * p.n_sms
        return (
            "Each resource limits how many blocks fit on one SM:\n\n"
            + "\n".join(lines)
            + f"\n\nThe tightest limit wins ({', '.join(names[k] for k in binding)}): "
            f"**{b} blocks per SM**.\n\n"
            f"Those $b = {b}$ blocks of $t = {t}$ threads hold ${b} \\times {t} = {b * t}$ "
            f"threads of the SM's $T_{{\\mathrm{{SM}}}} = {p.max_threads_per_sm}$, in %:"
            "\n\n"
            + step(OCCUPANCY, {"b": b, "t": t, "T": p.max_threads_per_sm}, occ, "%")
            + f"\n\nOccupancy is **{sig(occ, 6)}%**. One wave runs ${b} \\times {p.n_sms} = "
            f"{per_wave}$ blocks at once on the $n = {p.n_sms}$ SMs; the grid's "
            f"$N = {tex15(p.total_blocks)}$ blocks take whole waves, a partly filled last one "
            "too:\n\n"
            + step(WAVES, {"N": p.total_blocks, "b": b, "n": p.n_sms}, _waves(p, b), "")
            + f"\n\nThe grid runs in **{_waves(p, b)} waves**."
        )

    def misconceptions(self, p: OccupancyParams) -> list[Misconception]:
        lim = _limits(p)
        b = lim["min"]
        raw: list[Misconception] = []
        no_regs = min(v for k, v in lim.items() if k not in ("registers", "min"))
        no_smem = min(v for k, v in lim.items() if k not in ("smem", "min"))
        threads_only = min(lim["threads"], p.max_blocks_per_sm)
        for code, blocks, feedback in (
            (
                "registers-ignored",
                no_regs,
                "That leaves out the register file. A block of "
                f"{p.threads_per_block} threads at {p.regs_per_thread} registers each needs "
                f"{p.threads_per_block * p.regs_per_thread:,} of the SM's {p.regs_per_sm:,}.",
            ),
            (
                "smem-ignored",
                no_smem,
                "That leaves out shared memory: each block needs its "
                f"{tex15(p.smem_per_block_kib)} KiB, and the SM has "
                f"{tex15(p.smem_per_sm_kib)} KiB.",
            ),
            (
                "threads-limit-only",
                threads_only,
                "That counts only threads (and block slots). Registers and shared memory "
                "limit resident blocks too; the tightest limit wins.",
            ),
        ):
            if blocks < 1:
                continue
            raw.append(Misconception(code, "blocks_per_sm", blocks, feedback))
            raw.append(Misconception(code, "occupancy", _occupancy(p, blocks), feedback))
            raw.append(Misconception(code, "waves", _waves(p, blocks), feedback))
        raw.append(
            Misconception(
                "occupancy-as-block-slots",
                "occupancy",
                float(Fraction(100 * b, p.max_blocks_per_sm)),
                "That is the share of block slots in use. Occupancy counts resident threads "
                f"(warps): {b} x {p.threads_per_block} of {p.max_threads_per_sm}.",
            )
        )
        raw.append(
            Misconception(
                "waves-floor",
                "waves",
                p.total_blocks // (b * p.n_sms),
                "That rounds down. The last, partly filled wave still takes a whole wave's "
                "time: round up.",
            )
        )
        raw.append(
            Misconception(
                "one-block-per-sm",
                "waves",
                -(-p.total_blocks // p.n_sms),
                f"That runs one block per SM at a time. Each SM holds {b} blocks at once, so a "
                f"wave is {b} x {p.n_sms} blocks.",
            )
        )
        return _keep_separated(raw, self.solve(p))


def _keep_separated(raw: list[Misconception], solved: dict[str, Part]) -> list[Misconception]:
    """Each slip kept only when it is a positive value at least _SEPARATION from its part's
    answer and from the slips kept before it."""
    kept: list[Misconception] = []
    for m in raw:
        if m.value <= 0:
            continue
        values = [solved[m.part].value, *(k.value for k in kept if k.part == m.part)]
        if all(separated([v, m.value], _SEPARATION) for v in values):
            kept.append(m)
    return kept
