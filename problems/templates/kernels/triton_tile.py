"""triton-tile: one tile of a tiled matmul written in Triton: the arithmetic intensity of
one k-step as its operand tiles arrive from global memory, and the shared memory the
software pipeline keeps for those tiles, against the per-block limit of a real GPU.

Per k-step a program multiplies a BLOCK_M x BLOCK_K tile of A by a BLOCK_K x BLOCK_N
tile of B: 2·BM·BN·BK FLOP for (BM·BK + BK·BN)·b bytes loaded, so the intensity is
2·BM·BN / ((BM + BN)·b) FLOP/B whatever BLOCK_K is. With num_stages = s the pipeline
keeps s copies of both operand tiles in shared memory, (BM·BK + BK·BN)·b·s bytes; the
fp32 accumulator lives in registers and is not counted.

Realism, as the generator enforces it:

- GPUs and per-block shared-memory limits: A100 SXM4 163 KiB, H100 SXM5 and H200 227 KiB,
  B200 227 KiB (the CUDA C++ Programming Guide's opt-in maximum per block for compute
  capability 8.0, 9.0 and 10.0, as in `_family`), and AMD MI300X 64 KiB of LDS per
  workgroup (AMD CDNA 3 documentation). Triton compares a kernel's shared memory with
  the device's opt-in maximum per block (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_
  OPTIN, triton-lang/triton issue 384) and stops with "out of resource: shared memory"
  when it is exceeded: 227 KiB is 232,448 bytes, 163 KiB 166,912.
- dtypes the GPU runs dot products in: fp32 inputs (4 bytes; Triton's default tf32 dot)
  on A100 and H100 only, fp16/bf16 everywhere, fp8 on Hopper, Blackwell and MI300X.
- Tiles are powers of two as autotuning configs use them: BLOCK_M and BLOCK_N 32-256,
  BLOCK_K 32-128 (at most 32 for fp32, 64 for 16-bit types when the tile is 256 wide),
  num_stages 2-5 on NVIDIA and 2 on MI300X (the AMD stream pipeliner's usual setting).
- A footprint within 4% of the limit is redrawn (the yes/no must not be a rounding
  call), and so is one above 2.5 times the limit (no one would autotune that config).
  The GPU is drawn first, then whether the buffers should fit (60%) or not (40%), so both
  answers are common on every GPU.

The ridge point (peak / HBM bandwidth) is shown in the solution, not asked: with any of
these tiles one k-step's intensity (at most 256 FLOP/B) stays below every listed GPU's
ridge, so a choice part would always answer "memory"; the point is made in prose (reuse
through L2 is what lets a large matmul reach the tensor cores' peak).

Misconceptions named: the output tile counted as loaded (counted-output-tile), one FLOP
per multiply-add (flop-not-doubled) and elements for bytes (elements-not-bytes, only when
b != 1) on the intensity; num_stages forgotten (forgot-num-stages), kB for KiB
(kb-vs-kib), elements for bytes, and the accumulator counted in shared memory
(counted-output-tile) on the footprint; and on the verdict, the single-stage footprint
compared with the limit (forgot-num-stages) when that flips the answer.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field, model_validator

from hardware_db import catalog
from problems.engine.numbers import sig
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import peak_tflops_of
from problems.templates.kernels._family import CC_80, CC_90, CC_100

GpuSlug = Literal["a100-sxm-80gb", "h100-sxm", "h200", "b200", "mi300x"]
Dtype = Literal["fp32", "fp16", "bf16", "fp8"]

BYTES: dict[str, int] = {"fp32": 4, "fp16": 2, "bf16": 2, "fp8": 1}
TL_DTYPE = {"fp32": "tl.float32", "fp16": "tl.float16", "bf16": "tl.bfloat16"}
# Triton's e4m3 types: the OCP one on NVIDIA, the "fnuz" one on MI300X.
FP8_TL = {"mi300x": "tl.float8e4b8"}
# Per-block shared memory (LDS on AMD) a kernel may use, KiB.
SMEM_LIMIT_KIB: dict[str, int] = {
    "a100-sxm-80gb": CC_80.max_smem_per_block_kib,
    "h100-sxm": CC_90.max_smem_per_block_kib,
    "h200": CC_90.max_smem_per_block_kib,
    "b200": CC_100.max_smem_per_block_kib,
    "mi300x": 64,
}
DTYPES: dict[str, tuple[str, ...]] = {
    "a100-sxm-80gb": ("fp32", "fp16", "bf16", "bf16"),
    "h100-sxm": ("fp32", "fp16", "bf16", "bf16", "fp8", "fp8"),
    "h200": ("bf16", "bf16", "fp16", "fp8", "fp8"),
    "b200": ("bf16", "bf16", "fp16", "fp8", "fp8"),
    "mi300x": ("fp16", "bf16", "bf16", "fp8"),
}
# The precision whose dense peak gives the ridge point for a dtype's dot.
PEAK_PRECISION = {"fp32": "tf32", "fp16": "fp16", "bf16": "bf16", "fp8": "fp8"}
_MARGIN = 0.04
# Slips kept at least this far apart: 1.5% leaves kB against KiB (2.4%) nameable.
GAP = 0.015


class TritonTileParams(Params):
    gpu: GpuSlug
    dtype: Dtype
    block_m: int = Field(ge=16, le=512)
    block_n: int = Field(ge=16, le=512)
    block_k: int = Field(ge=16, le=512)
    num_stages: int = Field(ge=1, le=8)

    @model_validator(mode="after")
    def _dtype_runs_there(self) -> TritonTileParams:
        if self.dtype not in DTYPES[self.gpu]:
            raise ValueError(f"{self.gpu} does not run {self.dtype} dot products in Triton")
        return self


INTENSITY = formula(
    "I",
    lambda s: 2 * s.M * s.N * s.K / ((s.M * s.K + s.K * s.N) * s.b),
    M=r"B_M",
    N=r"B_N",
    K=r"B_K",
    b="b",
)
FOOTPRINT = formula(
    r"S_{\mathrm{smem}}",
    lambda s: (s.M * s.K + s.K * s.N) * s.b * s.s / s.u,
    M=r"B_M",
    N=r"B_N",
    K=r"B_K",
    b="b",
    s="s",
    u="1024",
)


def _acc(p: TritonTileParams) -> catalog.Accelerator:
    return next(a for a in catalog.accelerators() if a.slug == p.gpu)


def intensity(p: TritonTileParams) -> float:
    return 2 * p.block_m * p.block_n / ((p.block_m + p.block_n) * BYTES[p.dtype])


def tile_bytes(p: TritonTileParams) -> int:
    """Bytes of one A tile plus one B tile."""
    return (p.block_m + p.block_n) * p.block_k * BYTES[p.dtype]


def footprint_kib(p: TritonTileParams, stages: int | None = None) -> float:
    return tile_bytes(p) * (p.num_stages if stages is None else stages) / 1024


def _tl_dtype(p: TritonTileParams) -> str:
    if p.dtype == "fp8":
        return FP8_TL.get(p.gpu, "tl.float8e4nv")
    return TL_DTYPE[p.dtype]


def ridge(p: TritonTileParams) -> float:
    acc = _acc(p)
    return peak_tflops_of(acc, PEAK_PRECISION[p.dtype]) * 1e12 / acc.mem_bw_bytes_per_s


def keep_apart(answers: dict[str, Part], slips: list[Misconception]) -> list[Misconception]:
    """The slips whose numeric value lies more than GAP (1.5%) from the part's answer and
    from every slip kept before it on that part (a coincidence names the first cause)."""
    kept: list[Misconception] = []
    for m in slips:
        if isinstance(m.value, float | int):
            taken = [answers[m.part].value] + [k.value for k in kept if k.part == m.part]
            if any(abs(m.value - v) <= GAP * max(abs(m.value), abs(v)) for v in taken):
                continue
        kept.append(m)
    return kept


@register
class TritonTile(Template):
    slug = "triton-tile"
    title = "A Triton matmul tile: intensity and pipelined shared memory"
    family = "kernels"
    lessons = ("triton-kernels", "gpu-programming-with-cuda")
    skills = ("triton-kernels", "arithmetic-intensity", "shared-memory-tiling")
    difficulty = 3
    version = 1
    Params = TritonTileParams

    def generate(self, rng: random.Random) -> TritonTileParams:
        gpu = rng.choice(tuple(DTYPES))
        want_fit = rng.random() < 0.6
        for _ in range(5000):
            dtype = rng.choice(DTYPES[gpu])
            bm = rng.choice((32, 64, 128, 128, 256))
            bn = rng.choice((32, 64, 128, 128, 256))
            bk_max = {4: 32, 2: 64 if max(bm, bn) == 256 else 128, 1: 128}[BYTES[dtype]]
            bk = rng.choice(tuple(k for k in (32, 64, 128) if k <= bk_max))
            stages = 2 if gpu == "mi300x" else rng.choice((2, 3, 3, 4, 4, 5))
            p = TritonTileParams(
                gpu=gpu, dtype=dtype, block_m=bm, block_n=bn, block_k=bk, num_stages=stages
            )
            ratio = footprint_kib(p) / SMEM_LIMIT_KIB[gpu]
            if abs(ratio - 1) < _MARGIN or ratio > 2.5 or (ratio < 1) != want_fit:
                continue
            return p
        raise RuntimeError("triton-tile: no realistic variant drawn")

    def solve(self, p: TritonTileParams) -> dict[str, Part]:
        fits = "yes" if footprint_kib(p) <= SMEM_LIMIT_KIB[p.gpu] else "no"
        return {
            "intensity": Part("intensity", intensity(p), "FLOP/B", label="Intensity of one k-step"),
            "smem": Part("smem", footprint_kib(p), "KiB", label="Pipelined shared memory"),
            "fits": Part(
                "fits",
                fits,
                kind=Kind.CHOICE,
                tolerance=Exact(),
                choices=("yes", "no"),
                label="Fits the per-block limit",
            ),
        }

    def statement(self, p: TritonTileParams) -> str:
        acc = _acc(p)
        mem = "LDS (shared memory)" if p.gpu == "mi300x" else "shared memory"
        code = (
            "```python\n"
            "@triton.jit\n"
            "def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,\n"
            "                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,\n"
            "                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,\n"
            "                  BLOCK_K: tl.constexpr):\n"
            "    # ... offsets of this program's output tile, a_ptrs and b_ptrs ...\n"
            "    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)\n"
            "    for k in range(0, tl.cdiv(K, BLOCK_K)):\n"
            "        a = tl.load(a_ptrs)          # BLOCK_M x BLOCK_K\n"
            "        b = tl.load(b_ptrs)          # BLOCK_K x BLOCK_N\n"
            "        acc = tl.dot(a, b, acc)\n"
            "        a_ptrs += BLOCK_K * stride_ak\n"
            "        b_ptrs += BLOCK_K * stride_bk\n"
            "    # ... convert acc and store the C tile ...\n\n"
            f"matmul_kernel[grid](a, b, c, M, N, K, *strides,\n"
            f"                    BLOCK_M={p.block_m}, BLOCK_N={p.block_n}, "
            f"BLOCK_K={p.block_k},\n"
            f"                    num_warps={8 if p.block_m * p.block_n >= 128 * 128 else 4}, "
            f"num_stages={p.num_stages})\n"
            "```"
        )
        return (
            f"A matmul kernel written in Triton runs on an **{acc.prose_name}**. A and "
            f"B are {p.dtype.upper()} tensors ({_tl_dtype(p)}, {BYTES[p.dtype]} "
            f"byte{'s' if BYTES[p.dtype] > 1 else ''} per element); each program computes "
            "one BLOCK_M x BLOCK_N tile of C, keeping its accumulator in registers:\n\n"
            f"{code}\n\n"
            f"With num_stages = {p.num_stages} the compiler software-pipelines the loop: it "
            f"keeps {p.num_stages} buffers of both operand tiles in {mem}, so the loads of "
            "later k-steps overlap the dot of the current one.\n\n"
            "1. What is the arithmetic intensity of one k-step as its operand tiles are "
            "loaded from global memory (FLOP of the tl.dot per byte of the two tl.loads), "
            "in FLOP/B?\n"
            f"2. How much {mem} do the pipelined A and B buffers take, in KiB "
            "(1 KiB = 1,024 bytes)? Count only those buffers.\n"
            f"3. The {acc.short_name} lets one block (program) use at most "
            f"{SMEM_LIMIT_KIB[p.gpu]} KiB of {mem}. Do the buffers fit? Answer yes or no."
        )

    def solution(self, p: TritonTileParams) -> str:
        b = BYTES[p.dtype]
        m, n, k, s = p.block_m, p.block_n, p.block_k, p.num_stages
        fp = footprint_kib(p)
        limit = SMEM_LIMIT_KIB[p.gpu]
        fits = fp <= limit
        acc = _acc(p)
        r = ridge(p)
        return (
            f"Write the block sizes as $B_M = {m}$ (BLOCK_M), $B_N = {n}$ (BLOCK_N) and "
            f"$B_K = {k}$ (BLOCK_K), and $b = {b}$ for the bytes per element. "
            f"One k-step's tl.dot multiplies a ${m} \\times {k}$ tile by a ${k} \\times {n}$ "
            f"tile: ${m} \\times {n} \\times {k}$ multiply-adds, two FLOP each. It loads "
            f"${m} \\times {k} + {k} \\times {n}$ elements of {b} byte(s). The C tile is not "
            "loaded at each step: it accumulates in registers and is stored once.\n\n"
            + step(INTENSITY, {"M": m, "N": n, "K": k, "b": b}, intensity(p), "FLOP/B")
            + f"\n\n$B_K$ cancels: the intensity is $2 B_M B_N / ((B_M + B_N) b)$. "
            f"For comparison, the {acc.short_name}'s ridge point in {p.dtype.upper()} is about "
            f"{sig(r, 3)} FLOP/B (dense peak over HBM bandwidth), above one tile's "
            f"{sig(intensity(p), 4)}: if every tile came from HBM the loop would be "
            "memory-bound. The kernel reaches the tensor cores' peak only because "
            "neighbouring programs re-read the same A and B tiles from L2 rather than "
            "HBM.\n\n"
            f"Each pipeline stage holds one A and one B tile, {tile_bytes(p):,} bytes; "
            f"$s = {s}$ stages take\n\n"
            + step(FOOTPRINT, {"M": m, "N": n, "K": k, "b": b, "s": s, "u": "1024"}, fp, "KiB")
            + f"\n\nAgainst the limit of {limit} KiB per block, {sig(fp, 6)} KiB "
            + (
                "fits: **yes**."
                if fits
                else "does not fit: **no** (Triton would stop with an out-of-resource "
                "error for shared memory; fewer stages or a smaller BLOCK_K would fix it)."
            )
        )

    def misconceptions(self, p: TritonTileParams) -> list[Misconception]:
        b = BYTES[p.dtype]
        m, n, k, s = p.block_m, p.block_n, p.block_k, p.num_stages
        limit = SMEM_LIMIT_KIB[p.gpu]
        out = [
            Misconception(
                "counted-output-tile",
                "intensity",
                2 * m * n * k / ((m * k + k * n + m * n) * b),
                "That counts the C tile as traffic of every k-step. The accumulator stays in "
                "registers across the loop and is written once at the end; per step only the "
                "A and B tiles are loaded.",
            ),
            Misconception(
                "flop-not-doubled",
                "intensity",
                intensity(p) / 2,
                "A multiply-add is two floating-point operations, so a tile product does "
                "2 x BLOCK_M x BLOCK_N x BLOCK_K FLOP.",
            ),
        ]
        if b != 1:
            out.append(
                Misconception(
                    "elements-not-bytes",
                    "intensity",
                    intensity(p) * b,
                    f"That divides by elements, not bytes. Each {p.dtype} element is {b} "
                    "bytes, and intensity is FLOP per byte.",
                )
            )
        out += [
            Misconception(
                "forgot-num-stages",
                "smem",
                footprint_kib(p, 1),
                f"That is one stage. With num_stages = {s} the pipeline keeps {s} buffers of "
                "each operand tile in shared memory at once.",
            ),
            Misconception(
                "kb-vs-kib",
                "smem",
                tile_bytes(p) * s / 1000,
                "That divides by 1,000 (kB). The limit is in KiB: 1 KiB = 1,024 bytes.",
            ),
            Misconception(
                "counted-output-tile",
                "smem",
                footprint_kib(p) + m * n * b / 1024,
                "That adds the C tile. The accumulator is held in registers during the loop; "
                "the pipelined shared memory holds only A and B tiles.",
            ),
        ]
        if b != 1:
            out.append(
                Misconception(
                    "elements-not-bytes",
                    "smem",
                    footprint_kib(p) / b,
                    f"That counts elements, not bytes: multiply by {b} bytes per {p.dtype} "
                    "element.",
                )
            )
        if (footprint_kib(p, 1) <= limit) != (footprint_kib(p) <= limit):
            out.append(
                Misconception(
                    "forgot-num-stages",
                    "fits",
                    "yes" if footprint_kib(p, 1) <= limit else "no",
                    f"One stage would fit, but num_stages = {s} multiplies the buffers: "
                    f"{sig(footprint_kib(p), 6)} KiB against {limit} KiB.",
                )
            )
        return keep_apart(self.solve(p), out)
