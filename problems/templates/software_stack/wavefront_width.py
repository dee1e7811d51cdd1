"""wavefront-width: a CUDA kernel written for 32-wide warps, hipified and run on an AMD
Instinct GPU whose wavefronts are 64 wide: count the warps a block makes on an NVIDIA GPU,
the wavefronts it makes on the AMD GPU, and the threads whose contribution the 32-lane
assumption drops.

Facts: NVIDIA warps are 32 threads; every Instinct part here (MI250X, MI300X, MI325X,
MI355X) runs 64-wide wavefronts (ROCm "AMD GPU specifications" table, which also gives
their LLVM targets gfx90a, gfx942 and gfx950). HIP's `__ballot` returns a 64-bit mask on
these GPUs, and `warpSize` is 64.

Two real porting bugs, both losing lanes 32-63 of every wavefront: the ballot result is
kept in a 32-bit `unsigned int` (the high 32 bits, lanes 32-63, are cut off), or a
shuffle reduction keeps CUDA's hard-coded offsets 16, 8, 4, 2, 1 while the write is
guarded with the portable `lane % warpSize == 0`, so only lane 0 writes and the partial
sum lanes 32-63 built for themselves is never stored. The threads lost in a block are
those in lanes 32-63 of each wavefront: B = 96 loses 32, B = 160 loses 32 + 0 = 32 from
its partial last wavefront (lanes 0-31 only).

Realism: block sizes a kernel launches (64-1024 threads, multiples of 32, some that do
not fill the last wavefront); GPU names from the hardware catalog. Misconceptions: 32-wide
wavefronts on AMD (warp-size-on-amd) or 64-wide warps on NVIDIA (wavefront-size-on-nvidia);
a partial wavefront dropped (rounded-down); on the lost threads, half of every wavefront
counted even for a partial last one (whole-upper-half), one wavefront's loss only
(one-wavefront-only).
"""

from __future__ import annotations

import math
import random
from typing import Literal

from pydantic import Field, field_validator

from problems.engine.registry import register
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import drop_close_counts
from problems.templates.software_stack._family import AMD_GPU_SLUGS, AMD_GPUS, amd_name

BLOCKS = (64, 96, 128, 160, 192, 256, 320, 384, 448, 512, 640, 768, 896, 1024)
WARP = 32


class WaveParams(Params):
    gpu: Literal[AMD_GPU_SLUGS]  # type: ignore[valid-type]
    block_threads: int = Field(ge=64, le=1024)
    bug: Literal["ballot", "reduction"]

    @field_validator("block_threads")
    @classmethod
    def _whole_warps(cls, v: int) -> int:
        if v % WARP:
            raise ValueError("block sizes here are whole 32-thread warps")
        return v


def lost_threads(block: int, width: int = 64) -> int:
    """Threads in lanes 32..width-1 of each wavefront of a block of `block` threads."""
    total = 0
    for start in range(0, block, width):
        total += max(0, min(width, block - start) - WARP)
    return total


@register
class WavefrontWidth(Template):
    slug = "wavefront-width"
    title = "Porting a 32-lane warp assumption to 64-wide wavefronts"
    family = "software_stack"
    lessons = ("rocm-hip-on-amd", "gpu-programming-with-cuda")
    skills = ("gpu-porting", "rocm-hip", "cuda-programming")
    difficulty = 2
    version = 1
    Params = WaveParams

    def generate(self, rng: random.Random) -> WaveParams:
        return WaveParams(
            gpu=rng.choice(AMD_GPU_SLUGS),
            block_threads=rng.choice(BLOCKS),
            bug=rng.choice(("ballot", "reduction")),
        )

    def solve(self, p: WaveParams) -> dict[str, Part]:
        width = AMD_GPUS[p.gpu].wavefront
        values = {
            "warps": (math.ceil(p.block_threads / WARP), "Warps per block on the NVIDIA GPU"),
            "wavefronts": (math.ceil(p.block_threads / width), "Wavefronts per block on AMD"),
            "lost": (lost_threads(p.block_threads, width), "Threads lost per block"),
        }
        return {
            name: Part(name, value, "", kind=Kind.INTEGER, tolerance=Exact(), label=label)
            for name, (value, label) in values.items()
        }

    def _code(self, p: WaveParams) -> str:
        if p.bug == "ballot":
            return (
                "```cpp\n"
                "// CUDA original: one 32-bit vote mask per warp\n"
                "unsigned int mask = __ballot_sync(0xffffffffu, x[i] > threshold);\n"
                "if ((threadIdx.x & 31) == 0) atomicAdd(&hits, __popc(mask));\n"
                "// HIP port (hipify), run with 64-wide wavefronts\n"
                "unsigned int mask = __ballot(x[i] > threshold);  // 64-bit mask, 32 bits kept\n"
                "if (threadIdx.x % warpSize == 0) atomicAdd(&hits, __popc(mask));\n"
                "```"
            )
        return (
            "```cpp\n"
            "// HIP port of a warp-level sum; offsets copied from the CUDA kernel\n"
            "float v = x[i];\n"
            "for (int offset = 16; offset > 0; offset /= 2)\n"
            "    v += __shfl_down(v, offset);\n"
            "if (threadIdx.x % warpSize == 0) atomicAdd(&total, v);  // warpSize is 64 here\n"
            "```"
        )

    def statement(self, p: WaveParams) -> str:
        what = (
            "counts the threads whose element passes a threshold with a warp vote"
            if p.bug == "ballot"
            else "adds up one element per thread with a warp-level shuffle reduction"
        )
        lost = "votes are dropped" if p.bug == "ballot" else "values never reach the total"
        assume = (
            "Assume every thread's element passes the test, so a correct port would count "
            "every thread of the block."
            if p.bug == "ballot"
            else "Assume every element is 1.0, so a correct port would add one per thread."
        )
        return (
            f"A CUDA kernel written for NVIDIA H100s {what}. It launches blocks of "
            f"$B = {p.block_threads}$ threads. The team hipifies it and runs it on an "
            f"{amd_name(p.gpu)}, where a wavefront is {AMD_GPUS[p.gpu].wavefront} threads "
            "wide:\n\n"
            f"{self._code(p)}\n\n"
            f"{assume}\n\n"
            "1. How many warps does one block make on the NVIDIA GPU?\n"
            "2. How many wavefronts does one block make on the AMD GPU?\n"
            f"3. In one block on the AMD GPU, how many threads' {lost}?"
        )

    def solution(self, p: WaveParams) -> str:
        parts = self.solve(p)
        b, width = p.block_threads, AMD_GPUS[p.gpu].wavefront
        w = parts["wavefronts"].value
        tail = b - (w - 1) * width
        if p.bug == "ballot":
            how = (
                "`__ballot` returns a 64-bit mask, one bit per lane of the wavefront; stored "
                "in a 32-bit `unsigned int`, it keeps only lanes 0-31, so lanes 32-63 are "
                "never counted."
            )
        else:
            how = (
                "Offsets 16, 8, 4, 2, 1 only combine lanes within each half of the "
                "wavefront: lane 0 ends with the sum of lanes 0-31 and lane 32 with the sum "
                "of lanes 32-63. The write is guarded by `% warpSize`, which is 64, so only "
                "lane 0 writes and the second half's sum is lost."
            )
        return (
            f"On the NVIDIA GPU: $\\lceil {b} / 32 \\rceil$ = **{parts['warps'].value}** "
            f"warps. On the AMD GPU: $\\lceil {b} / {width} \\rceil$ = **{w}** wavefronts"
            + (f" (the last holds only {tail} threads)" if tail < width else "")
            + f".\n\n{how} Every full wavefront loses 32 threads; a partial last wavefront "
            f"of {tail} threads loses {max(0, tail - WARP)}. In all, "
            f"**{parts['lost'].value}** of the {b} threads are lost. Fix the port by "
            "keeping the mask in a 64-bit type (or `__popcll` on the full ballot) and by "
            "starting the shuffle offsets at `warpSize / 2`."
        )

    def misconceptions(self, p: WaveParams) -> list[Misconception]:
        parts = self.solve(p)
        b, width = p.block_threads, AMD_GPUS[p.gpu].wavefront
        w = parts["wavefronts"].value
        out = [
            Misconception(
                "warp-size-on-amd",
                "wavefronts",
                math.ceil(b / WARP),
                f"That divides by 32, the NVIDIA warp size. The wavefronts on this GPU are "
                f"{width} threads wide.",
            ),
            Misconception(
                "wavefront-size-on-nvidia",
                "warps",
                math.ceil(b / width),
                "That divides by 64, the AMD wavefront width. NVIDIA warps are 32 threads.",
            ),
        ]
        if b % width:
            out.append(
                Misconception(
                    "rounded-down",
                    "wavefronts",
                    b // width,
                    f"{b} threads need a partial last wavefront too: round up.",
                )
            )
        out.append(
            Misconception(
                "whole-upper-half",
                "lost",
                WARP * w,
                "That counts 32 lost lanes in every wavefront, but the last wavefront is "
                "only partly filled: only its threads in lanes 32-63 exist to be lost.",
            )
        )
        if w > 1:
            out.append(
                Misconception(
                    "one-wavefront-only",
                    "lost",
                    WARP,
                    f"That is one wavefront's loss; the block has {w} wavefronts.",
                )
            )
        counts = {name: part.value for name, part in parts.items()}
        return drop_close_counts([m for m in out if m.value != counts[m.part]], counts)
