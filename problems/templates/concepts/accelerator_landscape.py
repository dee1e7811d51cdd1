"""accelerator-landscape: NVIDIA, AMD Instinct, Intel Gaudi, Google TPU and AWS
Trainium and Inferentia side by side: which of four parts leads on memory capacity,
memory bandwidth or dense BF16 compute, which interconnect joins a part to its peers,
and whether a codebase runs on a part as it is or needs work first.

Every figure is the catalog's (hardware_db, each with its source): the vendors' memory
labels as they print them (AWS in GiB, the others in GB), HBM bandwidth, dense BF16
peak, and the scale-up link (NVLink, Infinity Fabric, Gaudi 3's on-chip RoCE Ethernet,
Google's ICI). The software part is a bank of situations (problems/templates/concepts/
_bank.py) on what each stack supports: CUDA C++ kernels compile for NVIDIA only and are
ported to AMD with HIP; PyTorch and Triton have ROCm builds; FlashAttention-3 targets
Hopper; JAX compiles through XLA for TPUs; Trainium and Inferentia run through AWS's
Neuron SDK; vLLM runs on Gaudi through Intel's plugin (the projects' documentation);
the MI355X (gfx950) is supported from ROCm 7.0 (the ROCm 7.0.0 release notes, e.g.
hipFFT's "Added gfx950 support"; ROCm's GPU specifications table gives gfx950).
Sentences are ours.

Four parts in one variant draw from four different vendors; the leader on the asked
figure leads by more than 3%, so no rounding decides it. A wrong pick is named for what
it leads on instead (another figure, or memory with GiB read as GB), else as not the
leader.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field, field_validator

from hardware_db import catalog
from problems.engine.numbers import sig
from problems.engine.registry import register
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import choice_part
from problems.templates.concepts._bank import Question, Slip, Topic

GIB = 2**30
METRICS = {
    "memory": ("memory capacity", lambda a: a.memory_bytes),
    "bandwidth": ("memory bandwidth", lambda a: a.mem_bw_bytes_per_s),
    "compute": ("dense BF16 compute", lambda a: a.dense_flops.get("bf16", 0.0)),
}
LINKS = {
    "nvlink": "NVLink",
    "infinity-fabric": "Infinity Fabric",
    "roce": "RoCE Ethernet on the chip",
    "ici": "ICI (inter-chip interconnect)",
}


def link_family(acc: catalog.Accelerator) -> str | None:
    slug = acc.scale_up_link or ""
    for family in LINKS:
        if slug.startswith(family) or (family == "ici" and slug.startswith("google-ici")):
            return family
    return None


def _parts() -> dict[str, catalog.Accelerator]:
    return {a.slug: a for a in catalog.accelerators() if a.dense_flops.get("bf16")}


AS_IS, WORK = "runs-as-is", "needs-work"
SOFTWARE = Topic(
    part="software",
    label="Can this codebase use that accelerator",
    clue=(
        "Hardware figures only matter for code that runs on the part: a codebase is "
        "limited by the kernels it carries, the framework builds the vendor ships, and "
        "the compiler stack each accelerator needs."
    ),
    choices=(AS_IS, WORK),
    meanings=((AS_IS, "runs as it is"), (WORK, "needs porting, a vendor toolchain or testing")),
    questions=(
        Question(
            "A serving stack whose attention and sampling are hand-written CUDA C++ "
            "kernels, moved to AMD Instinct MI300X.",
            WORK,
            "CUDA C++ compiles for NVIDIA only; the kernels must be ported (HIP) and tuned.",
            (Slip(AS_IS, "cuda-runs-everywhere", "CUDA kernels thought to run on any GPU",
                  "CUDA C++ kernels need porting to HIP before an AMD GPU can run them."),),
        ),
        Question(
            "A PyTorch model that uses only standard operators and a few Triton kernels, "
            "moved to AMD Instinct MI300X with AMD's ROCm build of PyTorch.",
            AS_IS,
            "PyTorch's ROCm build and Triton's AMD backend run it unchanged (then tune).",
            (Slip(WORK, "pytorch-thought-nvidia-only", "PyTorch code thought tied to NVIDIA",
                  "Standard PyTorch operators and Triton kernels have AMD builds; only "
                  "CUDA C++ needs porting."),),
        ),
        Question(
            "A JAX training codebase with sharding over a device mesh, moved from GPUs to "
            "a Google TPU v5p slice.",
            AS_IS,
            "JAX compiles through XLA, whose TPU backend is JAX's home.",
            (Slip(WORK, "jax-thought-gpu-only", "JAX code thought tied to GPUs",
                  "XLA compiles the same JAX program for TPUs; that is what JAX was built "
                  "on."),),
        ),
        Question(
            "A training script that uses FlashAttention-3 for speed, moved from H100 to "
            "A100 GPUs.",
            WORK,
            "FlashAttention-3 is written for Hopper's features; on Ampere the code must "
            "fall back to FlashAttention-2 or another kernel.",
            (Slip(AS_IS, "same-vendor-same-kernels", "Kernels thought to run on every generation",
                  "Some kernels target one generation's features; the same vendor does not "
                  "guarantee them on an older part."),),
        ),
        Question(
            "A PyTorch inference service with custom CUDA extensions, moved to AWS "
            "Inferentia2 instances.",
            WORK,
            "Inferentia runs models compiled by the Neuron SDK; CUDA extensions do not "
            "exist there and must be replaced.",
            (Slip(AS_IS, "pytorch-runs-on-any-chip",
                  "PyTorch code thought to run on any accelerator",
                  "On Inferentia a model is compiled through Neuron; custom CUDA code has "
                  "no place there."),),
        ),
        Question(
            "A PyTorch training image built on ROCm 6.2, which runs well on MI300X "
            "nodes, moved unchanged to new AMD Instinct MI355X nodes.",
            WORK,
            "the MI355X is gfx950, which ROCm supports from 7.0; a ROCm 6.2 build carries "
            "no gfx950 kernels, so rebuild on a ROCm 7 image (and check the node's "
            "driver and firmware against that release's notes).",
            (Slip(AS_IS, "rocm-build-covers-newer-gpu",
                  "A ROCm build thought to cover a GPU newer than the build",
                  "A ROCm build holds kernels for the GPU targets its release knew; gfx950 "
                  "arrived in ROCm 7.0, after 6.2."),),
        ),
    ),
)  # fmt: skip


class LandscapeParams(Params):
    parts: tuple[str, str, str, str]
    metric: Literal["memory", "bandwidth", "compute"]
    linked: str
    software: int = Field(ge=0, lt=len(SOFTWARE.questions))

    @field_validator("parts")
    @classmethod
    def _four_vendors(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        known = _parts()
        if any(v not in known for v in value):
            raise ValueError("catalog accelerators with a BF16 figure")
        if len({known[v].vendor for v in value}) != 4:
            raise ValueError("four different vendors")
        return value

    @field_validator("linked")
    @classmethod
    def _has_link(cls, value: str) -> str:
        acc = _parts().get(value)
        if acc is None or link_family(acc) is None:
            raise ValueError("a catalog accelerator with a known scale-up link")
        return value


def _leader(p: LandscapeParams, metric: str, *, gib_as_gb: bool = False) -> str:
    _, value = METRICS[metric]
    known = _parts()

    def score(slug: str) -> float:
        acc = known[slug]
        if gib_as_gb and metric == "memory" and "GiB" in acc.memory_label:
            return acc.memory_bytes / GIB * 1e9
        return value(acc)

    return max(p.parts, key=score)


def _clear_lead(parts: list[catalog.Accelerator], metric: str) -> bool:
    _, value = METRICS[metric]
    top, second = sorted((value(a) for a in parts), reverse=True)[:2]
    return top > 1.03 * second


@register
class AcceleratorLandscape(Template):
    slug = "accelerator-landscape"
    title = "Accelerators across vendors: figures, interconnects and software"
    family = "concepts"
    lessons = ("the-accelerator-landscape",)
    skills = ("accelerator-selection",)
    difficulty = 2
    Params = LandscapeParams

    def generate(self, rng: random.Random) -> LandscapeParams:
        known = list(_parts().values())
        vendors = sorted({a.vendor for a in known})
        while True:
            chosen = [
                rng.choice([a for a in known if a.vendor == v]) for v in rng.sample(vendors, 4)
            ]
            metric = rng.choice(tuple(METRICS))
            if not _clear_lead(chosen, metric):
                continue
            linked = [a for a in known if link_family(a) is not None]
            return LandscapeParams(
                parts=tuple(a.slug for a in chosen),
                metric=metric,
                linked=rng.choice(linked).slug,
                software=rng.randrange(len(SOFTWARE.questions)),
            )

    def solve(self, p: LandscapeParams) -> dict[str, Part]:
        known = _parts()
        question = SOFTWARE.questions[p.software]
        return {
            "leader": choice_part("leader", _leader(p, p.metric), p.parts, self._ask(p)),
            "link": choice_part(
                "link", link_family(known[p.linked]), tuple(LINKS),
                f"Scale-up interconnect of the {known[p.linked].prose_name}",
            ),
            "software": choice_part("software", question.answer, SOFTWARE.choices, SOFTWARE.label),
        }  # fmt: skip

    def _ask(self, p: LandscapeParams) -> str:
        return f"Which leads on {METRICS[p.metric][0]}"

    def statement(self, p: LandscapeParams) -> str:
        known = _parts()
        rows = "\n".join(
            f"| `{s}` | {known[s].prose_name} | {known[s].memory_label} | "
            f"{sig(known[s].mem_bw_bytes_per_s / 1e12, 4)} TB/s | "
            f"{sig(known[s].dense_flops['bf16'] / 1e12, 4)} TFLOP/s |"
            for s in p.parts
        )
        question = SOFTWARE.questions[p.software]
        links = "; ".join(f"`{k}` ({v})" for k, v in LINKS.items())
        return (
            "A team compares accelerators from four vendors for its next cluster, from "
            "the vendors' own figures (memory as each vendor labels it; dense BF16, "
            "without sparsity):\n\n"
            "| Answer | Accelerator | Memory | Memory bandwidth | Dense BF16 |\n"
            "|---|---|---|---|---|\n"
            f"{rows}\n\n"
            f"1. {self._ask(p)}? Answer with its slug from the first column.\n"
            f"2. Which interconnect joins {known[p.linked].prose_name} accelerators to their "
            f"peers in one scale-up domain? Answer one of: {links}.\n"
            f"3. {question.prompt} Answer `{AS_IS}` or `{WORK}`."
        )

    def solution(self, p: LandscapeParams) -> str:
        known = _parts()
        name, value = METRICS[p.metric]
        ranked = sorted(p.parts, key=lambda s: value(known[s]), reverse=True)
        leader = ranked[0]
        note = (
            " Memory must be compared in one unit: AWS labels in GiB (2^30 bytes), the "
            "others in GB (10^9)."
            if p.metric == "memory"
            else ""
        )
        question = SOFTWARE.questions[p.software]
        return (
            f"Compare the four on {name} alone, in the same unit.{note}\n\n"
            f"{SOFTWARE.clue}\n\n"
            f"1. **{leader}** ({known[leader].prose_name}) leads on {name}. "
            f"2. **{link_family(known[p.linked])}**: the catalog lists the "
            f"{known[p.linked].prose_name}'s scale-up link as "
            f"{catalog.link(known[p.linked].scale_up_link).short_name}. "
            f"3. **{question.answer}**: {question.why}"
        )

    def misconceptions(self, p: LandscapeParams) -> list[Misconception]:
        known = _parts()
        answer = _leader(p, p.metric)
        out = []
        by_other = {_leader(p, m): m for m in METRICS if m != p.metric}
        gib = _leader(p, p.metric, gib_as_gb=True)
        for slug in p.parts:
            if slug == answer:
                continue
            if slug == gib and p.metric == "memory":
                code = "gib-read-as-gb"
                text = (
                    f"{known[slug].memory_label} is in GiB (2^30 bytes): in GB it is "
                    f"{sig(known[slug].memory_bytes / 1e9, 4)} GB."
                )
            elif slug in by_other:
                code = f"ranked-by-{by_other[slug]}"
                other, asked = METRICS[by_other[slug]][0], METRICS[p.metric][0]
                text = f"That part leads on {other}, not on {asked}."
            else:
                code, text = (
                    "not-the-leader",
                    f"Another of the four has more {METRICS[p.metric][0]}.",
                )
            out.append(Misconception(code, "leader", slug, text))
        family = link_family(known[p.linked])
        for other in LINKS:
            if other != family:
                out.append(
                    Misconception(
                        f"link-{other}-misattributed", "link", other,
                        f"{LINKS[other]} belongs to another vendor's parts; this one uses "
                        f"{LINKS[family]}.",
                    )
                )  # fmt: skip
        out += [
            Misconception(s.code, "software", s.choice, s.feedback)
            for s in SOFTWARE.questions[p.software].slips
        ]
        return out
