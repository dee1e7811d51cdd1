"""cuda-hip-terms: the ROCm/HIP counterpart of a CUDA term, asked inside a porting scene.

Pairs (ROCm HIP documentation, its CUDA-to-HIP API tables and glossary, and the ROCm GPU
specifications table): warp -> wavefront, thread block -> work-group, shared memory ->
LDS (local data share), SM -> compute unit, warp size 32 -> 64 on Instinct, sm_90 ->
the gfx target (gfx90a MI250X, gfx942 MI300X/MI325X, gfx950 MI355X), cudaMalloc ->
hipMalloc, nvcc -> hipcc, NCCL -> RCCL, cuBLAS -> hipBLAS (what hipify maps cuBLAS calls
to; rocBLAS implements it on AMD), cuDNN -> MIOpen, nvidia-smi -> amd-smi, Nsight Compute
-> rocprof-compute, Nsight Systems -> rocprof-systems, cuda-gdb -> rocgdb, CUDA stream ->
HIP stream.

Each term offers the answer and two distractors from the AMD side that are confused with
it in practice, each a named misconception: scratch (per-thread spill memory in HBM) or
GDS for LDS, an XCD (a chiplet of 38 or 32 CUs) or a SIMD (one quarter of a CU) for a
compute unit, 32 (RDNA's wave32) or 16 (the SIMD width) for the wavefront size, the CDNA
family name or the product name for the gfx target, pinned-host or managed allocation for
hipMalloc, hipify (a translator) for the compiler, MIOpen or rocBLAS for RCCL, the other
rocprof tool for each profiler, and so on. Choices are listed in an order drawn from the
parameters, so the answer is not always first.
"""

from __future__ import annotations

import random
from typing import Literal

from problems.engine.registry import register
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates.software_stack._family import (
    AMD_GPU_SLUGS,
    AMD_GPUS,
    amd_name,
    params_hash,
)
from problems.templates.software_stack._hip_terms import TERMS

PROJECTS = ("training code", "inference engine", "custom kernel library", "benchmark suite")
PROJECTS += ("research codebase", "serving stack")


class TermParams(Params):
    term: Literal[tuple(TERMS)]  # type: ignore[valid-type]
    gpu: Literal[AMD_GPU_SLUGS]  # type: ignore[valid-type]
    project: Literal[PROJECTS]  # type: ignore[valid-type]


def _answer_and_slips(p: TermParams) -> tuple[str, list[tuple[str, str, str]]]:
    """The answer and the distractors, with the gfx target filled in for this GPU."""
    _, answer, slips = TERMS[p.term]
    amd = AMD_GPUS[p.gpu]
    if p.term == "SM" and p.gpu == "mi250x":
        gcd = (
            "GCD",
            "gcd-vs-cu",
            "A GCD is one of the MI250X's two dies, 110 compute units each; the SM's "
            "counterpart is one compute unit.",
        )
        return answer, [gcd, slips[1]]
    if p.term != "compute capability":
        return answer, list(slips)
    named = {"CDNA": amd.arch, "MI": amd_name(p.gpu).split()[-1]}
    return amd.target, [(named[v], code, text) for v, code, text in slips]


@register
class CudaHipTerms(Template):
    slug = "cuda-hip-terms"
    title = "CUDA terms and their ROCm/HIP counterparts"
    family = "software_stack"
    lessons = ("rocm-hip-on-amd",)
    skills = ("rocm-hip", "gpu-porting")
    difficulty = 1
    version = 1
    Params = TermParams

    def generate(self, rng: random.Random) -> TermParams:
        return TermParams(
            term=rng.choice(tuple(TERMS)),
            gpu=rng.choice(AMD_GPU_SLUGS),
            project=rng.choice(PROJECTS),
        )

    def _choices(self, p: TermParams) -> tuple[str, ...]:
        answer, slips = _answer_and_slips(p)
        items = [answer] + [s[0] for s in slips]
        shift = params_hash(p.term, p.gpu, p.project) % len(items)
        return tuple(items[shift:] + items[:shift])

    def solve(self, p: TermParams) -> dict[str, Part]:
        answer, _ = _answer_and_slips(p)
        return {
            "hip": Part(
                "hip",
                answer,
                kind=Kind.CHOICE,
                tolerance=Exact(),
                choices=self._choices(p),
                label="ROCm/HIP counterpart",
            )
        }

    def statement(self, p: TermParams) -> str:
        scene = TERMS[p.term][0]
        options = ", ".join(f"**{c}**" for c in self._choices(p))
        return (
            f"A team is porting its {p.project} from NVIDIA H100s to the {amd_name(p.gpu)} "
            f"with HIP and ROCm. The CUDA code {scene}.\n\n"
            f"What is the ROCm/HIP counterpart of **{p.term}** on this GPU? "
            f"Answer one of: {options}."
        )

    def solution(self, p: TermParams) -> str:
        answer, slips = _answer_and_slips(p)
        wrong = " ".join(f"**{v}** is not it: {text}" for v, _, text in slips)
        return f"The ROCm/HIP counterpart of {p.term} is **{answer}**.\n\n{wrong}"

    def misconceptions(self, p: TermParams) -> list[Misconception]:
        _, slips = _answer_and_slips(p)
        return [Misconception(code, "hip", value, text) for value, code, text in slips]
