"""cuda-driver-compat: does a PyTorch wheel built for one CUDA version run on the driver a
node's `nvidia-smi` shows, and which driver branch supports that CUDA version outright.

The rule (NVIDIA CUDA Compatibility guide; the Table 3 figures are listed in _family.py):
a driver runs every CUDA build up to the version its nvidia-smi banner reports (backward
compatibility: **native**); a newer build of the same major version still runs on a
driver at or above that major's floor (11.x >= 450.80.02, 12.x >= 525.60.13), with a
limited feature set, through **minor-version** compatibility; a build of a newer major
version does not run at all (**no**, short of the cuda-compat forward-compatibility
package, which the statement rules out). PyTorch wheels bundle their CUDA runtime and
ship compiled kernels for these GPUs, so nothing needs the PTX JIT that minor-version
compatibility lacks.

Realism: real driver versions (Table 3 update rows and published captures) with the CUDA
version each reports, real PyTorch release/CUDA pairs, GPUs only with drivers of their
era (A100 from R470, H100 from R525, L40S from R535, H200 from R550, B200 from R570 and
only with cu128+ builds, the first with sm_100 kernels), and the banner drawn in the
layout its branch prints. The verdict is drawn evenly first, so each answer is common.

Misconceptions: on the verdict, "no" for an older driver of the same major
(no-minor-version-compat), "native" for a newer build on an older driver of the same
major (major-only-compared), "no" for an older build on a newer driver
(exact-match-required), "minor-version" across majors (compat-across-majors), "native"
for a 12.x wheel on an 11.x driver (wheel-bundles-driver), "minor-version" when the
driver is new enough (compat-direction); on the branch, the minor-version floor
(mvc-floor) and the installed branch (installed-branch).
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import model_validator

from problems.engine.registry import register
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates.software_stack._family import (
    BUILD_GA_DRIVER,
    BUILDS,
    DRIVER_VERSIONS,
    DRIVERS,
    MVC_FLOOR,
    NV_GPUS,
    TORCH_VERSIONS,
    WHEELS,
    branch_of,
    cu_tag,
    cuda_tuple,
    idle_smi,
)

VERDICTS = ("native", "minor-version", "no")
BRANCHES = ("R450", "R470", "R510", "R515", "R520", "R525", "R530", "R535", "R545", "R550")
BRANCHES += ("R555", "R560", "R570", "R575", "R580")

Driver = Literal[DRIVER_VERSIONS]  # type: ignore[valid-type]
Torch = Literal[TORCH_VERSIONS]  # type: ignore[valid-type]
Cuda = Literal[BUILDS]  # type: ignore[valid-type]


def _era_ok(gpu: str, driver: str, cuda: str) -> bool:
    g = NV_GPUS[gpu]
    if branch_of(driver) < g.min_branch:
        return False
    return gpu != "b200" or cuda_tuple(cuda) >= (12, 8)


class CompatParams(Params):
    gpu: Literal["a100", "h100", "h200", "l40s", "b200"]
    driver: Driver
    torch: Torch
    cuda: Cuda

    @model_validator(mode="after")
    def _real(self) -> CompatParams:
        if self.cuda not in WHEELS[self.torch]:
            raise ValueError(f"PyTorch {self.torch} published no {cu_tag(self.cuda)} wheel")
        if not _era_ok(self.gpu, self.driver, self.cuda):
            raise ValueError("that GPU does not run with that driver or build")
        return self


def verdict(driver: str, cuda: str) -> str:
    have = cuda_tuple(DRIVERS[driver][1])
    need = cuda_tuple(cuda)
    if have >= need:
        return "native"
    return "minor-version" if have[0] == need[0] else "no"


def ga_branch(cuda: str) -> str:
    return f"R{branch_of(BUILD_GA_DRIVER[cuda])}"


@register
class CudaDriverCompat(Template):
    slug = "cuda-driver-compat"
    title = "Will this CUDA build run on this driver?"
    family = "software_stack"
    lessons = ("the-accelerator-software-stack", "four-ways-a-deployment-fails")
    skills = ("driver-compatibility", "accelerator-software-stack", "deployment-failures")
    difficulty = 2
    version = 1
    Params = CompatParams

    def generate(self, rng: random.Random) -> CompatParams:
        want = rng.choice(VERDICTS)
        while True:
            torch = rng.choice(TORCH_VERSIONS)
            cuda = rng.choice(WHEELS[torch])
            p = dict(
                gpu=rng.choice(tuple(NV_GPUS)),
                driver=rng.choice(DRIVER_VERSIONS),
                torch=torch,
                cuda=cuda,
            )
            if _era_ok(p["gpu"], p["driver"], cuda) and verdict(p["driver"], cuda) == want:
                return CompatParams(**p)

    def solve(self, p: CompatParams) -> dict[str, Part]:
        return {
            "runs": Part(
                "runs",
                verdict(p.driver, p.cuda),
                kind=Kind.CHOICE,
                tolerance=Exact(),
                choices=VERDICTS,
                label="Does the build run?",
            ),
            "branch": Part(
                "branch",
                ga_branch(p.cuda),
                kind=Kind.CHOICE,
                tolerance=Exact(),
                choices=BRANCHES,
                label="Oldest branch that supports it natively",
            ),
        }

    def statement(self, p: CompatParams) -> str:
        rows = "\n".join(
            f"| CUDA {c} GA | >= {BUILD_GA_DRIVER[c]} |" for c in sorted(BUILD_GA_DRIVER)
        )
        return (
            f"A training image installs PyTorch `{p.torch}+{cu_tag(p.cuda)}` from the PyTorch "
            f"wheel index. The wheel bundles its own CUDA {p.cuda} runtime and libraries and "
            "ships compiled kernels for this GPU, so nothing needs PTX JIT compilation. The "
            "host has no CUDA forward-compatibility package (`cuda-compat`). On the node, "
            "`nvidia-smi -i 0` prints:\n\n"
            f"```text\n$ nvidia-smi -i 0\n{idle_smi(p.driver, p.gpu, p.torch)}\n```\n\n"
            "From NVIDIA's release notes, the Linux driver each CUDA toolkit release "
            "requires:\n\n| Toolkit | Driver |\n|---|---|\n"
            f"{rows}\n\n"
            "and, through minor-version compatibility, CUDA 11.x builds run on drivers "
            f">= {MVC_FLOOR[11]} and CUDA 12.x builds on drivers >= {MVC_FLOOR[12]}, with "
            "a limited feature set.\n\n"
            "1. Does this build run on this node? Answer **native** (the driver supports "
            "the build's CUDA version outright), **minor-version** (it runs only through "
            "minor-version compatibility) or **no**.\n"
            f"2. Which is the oldest driver branch that supports CUDA {p.cuda} outright, "
            "without relying on minor-version compatibility? Answer with a branch name: "
            f"{', '.join(BRANCHES)}."
        )

    def solution(self, p: CompatParams) -> str:
        branch, shown = DRIVERS[p.driver]
        answer = verdict(p.driver, p.cuda)
        need = ga_branch(p.cuda)
        major = cuda_tuple(p.cuda)[0]
        read = (
            f"The banner's **CUDA Version: {shown}** is the newest CUDA the installed driver "
            f"({p.driver}, branch R{branch}) supports by itself; it says nothing about any "
            f"toolkit installed on the host. The wheel needs CUDA {p.cuda}.\n\n"
        )
        if answer == "native":
            why = (
                f"{shown} is at least {p.cuda}: drivers are backward compatible, so the "
                "build runs natively: **native**."
            )
        elif answer == "minor-version":
            why = (
                f"{shown} is older than {p.cuda}, but both are CUDA {major}.x and the "
                f"driver is at or above the {major}.x floor of {MVC_FLOOR[major]}, so the "
                "build runs through minor-version compatibility: **minor-version** "
                "(fine for a wheel with compiled kernels; PTX newer than the driver could "
                "not be JIT-compiled)."
            )
        else:
            why = (
                f"The driver only reaches CUDA {shown}, a different major version from "
                f"{p.cuda}. Minor-version compatibility works only within one major, and "
                f"CUDA {major}.x needs at least {MVC_FLOOR[major]}: the build does not run "
                f"(**no**). The fix is a driver of branch R{branch_of(MVC_FLOOR[major])} or "
                f"later, better {need} or later for full support."
            )
        return (
            read + why + f"\n\nFor part 2, the toolkit table gives CUDA {p.cuda} GA at "
            f">= {BUILD_GA_DRIVER[p.cuda]}, so the oldest branch that supports it outright is "
            f"**{need}**. The {major}.x minor-version floor "
            f"(R{branch_of(MVC_FLOOR[major])}) only lets it run with limits."
        )

    def misconceptions(self, p: CompatParams) -> list[Misconception]:
        answer = verdict(p.driver, p.cuda)
        shown = DRIVERS[p.driver][1]
        major = cuda_tuple(p.cuda)[0]
        out: list[Misconception] = []

        def runs(code: str, value: str, text: str) -> None:
            out.append(Misconception(code, "runs", value, text))

        if answer == "minor-version":
            runs(
                "no-minor-version-compat",
                "no",
                f"Since CUDA 11, a build of a newer minor version runs on an older driver of "
                f"the same major: CUDA {shown} and {p.cuda} are both {major}.x and the driver "
                f"is above the {MVC_FLOOR[major]} floor.",
            )
            runs(
                "major-only-compared",
                "native",
                f"The driver reports CUDA {shown}, older than the build's {p.cuda}: it runs, "
                "but only through minor-version compatibility, not natively.",
            )
        elif answer == "native":
            runs(
                "compat-direction",
                "minor-version",
                f"Minor-version compatibility is for builds newer than the driver. This "
                f"driver reports CUDA {shown}, at least the build's {p.cuda}, so it runs "
                "natively.",
            )
            if shown != p.cuda:
                runs(
                    "exact-match-required",
                    "no",
                    f"The CUDA versions need not match: a driver that reports CUDA {shown} "
                    f"runs every older build, {p.cuda} included (backward compatibility).",
                )
        else:
            runs(
                "compat-across-majors",
                "minor-version",
                f"Minor-version compatibility stays within one major version: a CUDA "
                f"{major}.x build needs a driver of at least {MVC_FLOOR[major]}, and this "
                f"one only reaches CUDA {shown}.",
            )
            runs(
                "wheel-bundles-driver",
                "native",
                "The wheel bundles the CUDA runtime and libraries, not the driver: "
                "libcuda.so and the kernel module come from the host, and this host's "
                f"driver only reaches CUDA {shown}.",
            )
        floor = f"R{branch_of(MVC_FLOOR[major])}"
        out.append(
            Misconception(
                "mvc-floor",
                "branch",
                floor,
                f"{floor} is the floor for minor-version compatibility across CUDA {major}.x; "
                f"the question asks for full support of {p.cuda}, which arrives with the "
                "driver its toolkit shipped with.",
            )
        )
        installed = f"R{branch_of(p.driver)}"
        if installed not in (ga_branch(p.cuda), floor):
            out.append(
                Misconception(
                    "installed-branch",
                    "branch",
                    installed,
                    f"{installed} is the branch this node runs; the question asks which "
                    f"branch the CUDA {p.cuda} build needs, read from the toolkit table.",
                )
            )
        return out
