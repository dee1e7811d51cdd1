"""mig-sharing: how many pods asking for one MIG instance fit on a GPU node, and which of
the three ways to share a GPU on Kubernetes (MIG, time-slicing, MPS) fits a workload.

Realism: the GPUs are catalog parts that support MIG (A100 SXM4 80GB, H100 SXM5 / PCIe
80GB, H100 NVL 94GB, H200 141GB, B200), with NVIDIA's profile names and per-GPU counts
(MIG user guide, "Supported MIG Profiles"; NVIDIA mig-parted's default configuration),
media-extension profiles left out. SXM parts sit 8 (A100, H100 and H200 also 4) to a
node, PCIe and NVL cards 2, 4 or 8. All or some of the node's GPUs are partitioned with
one profile (the rest kept whole for training), and the GPU operator's mixed strategy
exposes each profile as its own resource, nvidia.com/mig-<profile>, which the pod spec
in the statement requests. The statement gives the slice rule (7 compute slices, memory
in eighths), so the count follows from the profile's name.

Misconceptions on the count, each named only when it changes it: memory divided by the
profile's memory (memory-divided: 80 GB / 10 GB = 8, but only 7 compute slices), compute
slices only (compute-only: 7 instances of 1g.20gb, but its two memory slices allow 4),
one GPU's count for the node (per-gpu-count), and every GPU counted when some stay whole
(whole-node-counted). On the sharing mode: time-slicing or MPS taken for isolation
(time-slicing-isolates, mps-isolates), MIG or MPS for oversubscribed idle notebooks
(mig-oversubscribes, mps-for-strangers), and time-slicing or MIG for many small
cooperating processes (time-slicing-concurrent, mig-for-many-small).
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field, model_validator

from hardware_db import catalog
from problems.engine.registry import register
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates.platform._family import (
    COMPUTE_SLICES,
    MIG_PROFILES,
    MigProfile,
    gpu_name,
    mig_profile,
)

MIG, TS, MPS = "MIG", "time-slicing", "MPS"
MODES = (MIG, TS, MPS)
Accel = Literal["a100-sxm-80gb", "h100-sxm", "h100-pcie", "h100-nvl", "h200", "b200"]
Scenario = Literal["tenants", "latency", "notebooks", "ci-smoke", "mpi-ranks", "small-models"]

_NODE_SIZES = {
    "a100-sxm-80gb": (4, 8, 8),
    "h100-sxm": (4, 8, 8),
    "h200": (4, 8, 8),
    "b200": (8,),
    "h100-pcie": (2, 4, 8),
    "h100-nvl": (2, 4, 8),
}
# The profiles drawn, weighted towards those where a named slip changes the count.
_PROFILE_WEIGHTS = (3, 3, 3, 1, 2, 1)

SCENARIOS: dict[str, tuple[str, str]] = {
    "tenants": (
        MIG,
        "two customers' inference services must share each GPU; a crash or a memory leak "
        "in one must never reach the other, and each is sold a fixed amount of GPU memory",
    ),
    "latency": (
        MIG,
        "a latency-critical chat service shares GPUs with a nightly batch-scoring job, and "
        "its p99 latency must not move when the batch job gets busy",
    ),
    "notebooks": (
        TS,
        "forty data scientists' Jupyter notebooks share four GPUs; each notebook is idle "
        "most of the day and bursts for a few minutes; the users accept that one notebook "
        "can run the others out of memory, and want as many notebooks per GPU as possible",
    ),
    "ci-smoke": (
        TS,
        "a CI system runs short GPU smoke tests from many repositories, a dozen or more per "
        "GPU, each a few seconds long; a failed test is simply rerun, and nothing needs a "
        "guaranteed share",
    ),
    "mpi-ranks": (
        MPS,
        "one team's simulation runs 16 MPI ranks per GPU; each rank's kernels keep only a "
        "few SMs busy, the ranks belong to the same job, and their kernels should run on "
        "the GPU at the same time rather than take turns",
    ),
    "small-models": (
        MPS,
        "one service runs ten copies of a small model per GPU; each copy alone leaves most "
        "SMs idle, the copies trust each other, and the team wants their kernels to overlap "
        "to raise throughput",
    ),
}


class MigParams(Params):
    accelerator: Accel
    n_gpus: int = Field(ge=1, le=16)
    mig_gpus: int = Field(ge=1, le=16)
    profile: str = Field(min_length=6, max_length=12)
    scenario: Scenario

    @model_validator(mode="after")
    def _consistent(self) -> MigParams:
        if self.mig_gpus > self.n_gpus:
            raise ValueError("more partitioned GPUs than the node holds")
        if mig_profile(self.accelerator, self.profile) is None:
            raise ValueError(f"{self.profile} is not a MIG profile of {self.accelerator}")
        return self


def _profile(p: MigParams) -> MigProfile:
    return mig_profile(p.accelerator, p.profile)  # type: ignore[return-value]


def _gpu(p: MigParams) -> catalog.Accelerator:
    return catalog.accelerator(p.accelerator)


def _memory_gb(p: MigParams) -> int:
    return MIG_PROFILES[p.accelerator][-1].memory_gb  # the 7g profile holds it all


@register
class MigSharing(Template):
    slug = "mig-sharing"
    version = 1
    title = "MIG instances per node, and choosing how to share a GPU"
    family = "platform"
    lessons = ("gpus-on-kubernetes", "the-cluster")
    skills = ("gpu-sharing", "kubernetes-gpus", "mig-profiles")
    difficulty = 2
    Params = MigParams

    def generate(self, rng: random.Random) -> MigParams:
        """Redraws a node where two count slips give the same number (7 of 8 H100s cut
        into 1g.10gb: 8 x 7 = 7 x 8), so the grader can tell which slip was made."""
        while True:
            accel = rng.choice(sorted(MIG_PROFILES))
            profile = rng.choices(MIG_PROFILES[accel], weights=_PROFILE_WEIGHTS)[0]
            n = rng.choice(_NODE_SIZES[accel])
            whole = rng.choice((0, 0, 0, 1, 2, n // 2)) if n > 2 else rng.choice((0, 0, 1))
            p = MigParams(
                accelerator=accel,
                n_gpus=n,
                mig_gpus=n - whole,
                profile=profile.name,
                scenario=rng.choice(sorted(SCENARIOS)),
            )
            counts = [m.value for m in self.misconceptions(p) if m.part == "pods"]
            if len(counts) == len(set(counts)):
                return p

    def solve(self, p: MigParams) -> dict[str, Part]:
        return {
            "pods": Part(
                "pods",
                p.mig_gpus * _profile(p).per_gpu,
                "",
                kind=Kind.INTEGER,
                tolerance=Exact(),
                label="Pods that fit",
            ),
            "mode": Part(
                "mode",
                SCENARIOS[p.scenario][0],
                kind=Kind.CHOICE,
                tolerance=Exact(),
                choices=MODES,
                label="Sharing mode",
            ),
        }

    def _layout(self, p: MigParams) -> str:
        if p.mig_gpus == p.n_gpus:
            return f"all {p.n_gpus} GPUs are partitioned"
        last = p.mig_gpus - 1
        first = "GPU 0 is" if last == 0 else f"GPUs 0-{last} are"
        rest = "GPU" if p.n_gpus - p.mig_gpus == 1 else "GPUs"
        return (
            f"{first} partitioned, and the other {p.n_gpus - p.mig_gpus} {rest} stay whole "
            "(MIG disabled) for training jobs"
        )

    def statement(self, p: MigParams) -> str:
        gpu, prof = _gpu(p), _profile(p)
        slice_gb = _memory_gb(p) / 8
        spec = (
            "```yaml\napiVersion: v1\nkind: Pod\nmetadata:\n  name: embedder-0\nspec:\n"
            "  containers:\n    - name: embedder\n"
            "      image: registry.example.com/embedder:1.4\n      resources:\n"
            f"        limits:\n          nvidia.com/mig-{prof.name}: 1\n```"
        )
        return (
            f"A Kubernetes node has {p.n_gpus} {gpu.vendor} {gpu_name(gpu)} GPUs. The GPU "
            "operator runs MIG with the mixed strategy, so each MIG profile is advertised as "
            f"its own resource. On this node {self._layout(p)}: each partitioned GPU is cut "
            f"into as many **{prof.name}** instances as it holds. MIG gives a GPU "
            f"{COMPUTE_SLICES} compute slices (the number before the g is how many an "
            "instance takes) and cuts its memory into 8 slices of about "
            f"{slice_gb:.3g} GB; an instance takes whole slices of both.\n\n"
            f"Every pod of a service asks for one instance:\n\n{spec}\n\n"
            "Separately, the platform team must pick how to share GPUs for another "
            f"workload: {SCENARIOS[p.scenario][1]}.\n\n"
            "1. How many of these pods can run on the node at once?\n"
            "2. Which sharing mode fits that other workload: MIG, time-slicing or MPS?"
        )

    def solution(self, p: MigParams) -> str:
        prof = _profile(p)
        slice_gb = _memory_gb(p) / 8
        pods = p.mig_gpus * prof.per_gpu
        by_compute = COMPUTE_SLICES // prof.compute
        by_memory = 8 // prof.memory
        mode = SCENARIOS[p.scenario][0]
        why = {
            MIG: "MIG is the only one of the three that gives each tenant its own memory, "
            "cache and compute with fault isolation, so one workload cannot starve or crash "
            "the other.",
            TS: "Time-slicing hands out any number of replicas of a GPU and lets idle ones "
            "cost nothing; it isolates neither memory nor faults, which this workload "
            "accepts. MIG stops at 7 instances and reserves them even when idle.",
            MPS: "MPS lets the kernels of cooperating processes run on the GPU at the same "
            "time, filling SMs that each alone leaves idle; time-slicing would make them "
            "take turns, and MIG cannot cut a GPU into more than 7 pieces.",
        }[mode]
        return (
            f"A {prof.name} instance takes {prof.compute} of the {COMPUTE_SLICES} compute "
            f"slices and {prof.memory} of the 8 memory slices ({prof.memory_gb} GB in "
            f"slices of about {slice_gb:.3g} GB). Compute allows {COMPUTE_SLICES} / "
            f"{prof.compute}, rounded down, = {by_compute}; memory allows 8 / {prof.memory}, "
            f"rounded down, = {by_memory}; the smaller wins, so each GPU holds "
            f"**{prof.per_gpu}**, as NVIDIA's profile table lists. With one instance per pod and "
            f"{p.mig_gpus} partitioned GPUs, {p.mig_gpus} x {prof.per_gpu} = **{pods}** pods "
            f"fit.\n\nFor the other workload: {why} Answer: **{mode}**."
        )

    def misconceptions(self, p: MigParams) -> list[Misconception]:
        prof = _profile(p)
        pods = p.mig_gpus * prof.per_gpu
        out = []
        naive = p.mig_gpus * (_memory_gb(p) // prof.memory_gb)
        out.append(
            Misconception(
                "memory-divided",
                "pods",
                naive,
                f"That divides the GPU's memory by the instance's {prof.memory_gb} GB. Compute "
                f"runs out first: a GPU has only {COMPUTE_SLICES} compute slices, and an "
                f"instance needs {prof.compute}.",
            )
        )
        out.append(
            Misconception(
                "compute-only",
                "pods",
                p.mig_gpus * (COMPUTE_SLICES // prof.compute),
                f"That counts compute slices only. A {prof.name} instance also takes "
                f"{prof.memory} of the 8 memory slices, so memory runs out first.",
            )
        )
        if p.mig_gpus > 1:
            out.append(
                Misconception(
                    "per-gpu-count",
                    "pods",
                    prof.per_gpu,
                    f"That is one GPU's count. The node has {p.mig_gpus} partitioned GPUs: "
                    "multiply by them.",
                )
            )
        if p.mig_gpus < p.n_gpus:
            out.append(
                Misconception(
                    "whole-node-counted",
                    "pods",
                    p.n_gpus * prof.per_gpu,
                    f"That counts all {p.n_gpus} GPUs, but only {p.mig_gpus} are partitioned; "
                    "the whole GPUs offer no MIG instances.",
                )
            )
        out = [m for m in out if m.value != pods]
        return out + _mode_slips(SCENARIOS[p.scenario][0])


def _mode_slips(mode: str) -> list[Misconception]:
    feedback = {
        (MIG, TS): (
            "time-slicing-isolates",
            "Time-slicing gives pods turns on the whole GPU with no memory or fault "
            "isolation: one pod can take all the memory or crash the GPU for all.",
        ),
        (MIG, MPS): (
            "mps-isolates",
            "MPS shares one GPU context server between clients: a fatal fault in one "
            "client can bring down the others, and it guarantees no memory bandwidth.",
        ),
        (TS, MIG): (
            "mig-oversubscribes",
            "MIG stops at 7 instances per GPU and holds each one even while its "
            "notebook sleeps; it cannot oversubscribe a GPU.",
        ),
        (TS, MPS): (
            "mps-for-strangers",
            "MPS is for cooperating processes that run at the same time; its replicas "
            "get fixed shares, so idle users still hold theirs. Time-slicing lets "
            "many bursty users take turns.",
        ),
        (MPS, TS): (
            "time-slicing-concurrent",
            "Time-slicing makes the processes take turns: their kernels never run at "
            "the same time, so small kernels still leave most SMs idle.",
        ),
        (MPS, MIG): (
            "mig-for-many-small",
            "MIG cuts a GPU into at most 7 fixed instances, too few for these "
            "processes, and an idle instance cannot lend its SMs to a busy one.",
        ),
    }
    return [
        Misconception(code, "mode", wrong, text)
        for (right, wrong), (code, text) in feedback.items()
        if right == mode
    ]
