"""stack-layer-error: a job dies before or at its first kernel; from what the engineer
collected (the error and one or two diagnostic commands), name the layer of the stack at
fault and the fix.

Nine failures, each with the wording the real tools print (checked against public logs
and, for PyTorch, its c10/cuda source): PyTorch's "The NVIDIA driver on your system is
too old (found version 11040)" on an R470-R520 node under a CUDA 12 wheel (driver); "Failed
to initialize NVML: Driver/library version mismatch" with the kernel's "NVRM: API mismatch"
lines after a driver update without a reboot (driver); "no kernel image is available for
execution on the device" with PyTorch's sm_100 warning, a pre-cu128 wheel on a B200
(framework); "libcudnn.so.9: cannot open shared object file" after `pip install --no-deps`
(library); "libcudart.so.12: cannot open shared object file" for a CUDA binary in a slim
image (CUDA runtime); "Found no NVIDIA driver on your system" in a container started
without GPUs (container); Docker's 'could not select device driver "" with capabilities:
[[gpu]]' on a host without the NVIDIA container runtime (container); c10d's "The client
socket has failed to connect" and DistNetworkError when nodes pass different
--master-port values (launcher); "NCCL WARN Bootstrap : no socket interface found" with
NCCL_SOCKET_IFNAME naming an interface the nodes do not have (library).

Realism: real GPUs with drivers of their era and real PyTorch/CUDA wheel pairs (as in
cuda-driver-compat); every failure except the old driver's runs on a driver that supports
its wheel, so the driver is never a second suspect. Each failure names two real
misreadings, one per part: the layer that prints the message or shares a word with it
(the runtime for an old driver, "device driver" in Docker's error, NCCL for a rendezvous
timeout...) and the fix that would not help (a driver upgrade for a missing library or a
missing sm_100 kernel, NCCL tuning for a TCP store...).
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field, model_validator

from problems.engine.registry import register
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates.software_stack._family import (
    BUILDS,
    DRIVER_VERSIONS,
    DRIVERS,
    NV_GPUS,
    TORCH_VERSIONS,
    WHEELS,
    branch_of,
    cu_tag,
    cuda_tuple,
    params_hash,
)
from problems.templates.software_stack._stack_logs import (
    FIXES,
    LAYERS,
    SCENARIOS,
    log,
    newer_driver,
)

Scenario = Literal[tuple(SCENARIOS)]  # type: ignore[valid-type]
MODELS = (
    "meta-llama/Llama-3.1-8B",
    "meta-llama/Llama-3.1-70B",
    "mistralai/Mistral-7B-v0.1",
    "Qwen/Qwen2.5-72B",
    "mistralai/Mixtral-8x7B-v0.1",
)


def _supports(driver: str, cuda: str) -> bool:
    have, need = cuda_tuple(DRIVERS[driver][1]), cuda_tuple(cuda)
    return have >= need or have[0] == need[0]


class LayerParams(Params):
    scenario: Scenario
    gpu: Literal["a100", "h100", "h200", "l40s", "b200"]
    driver: Literal[DRIVER_VERSIONS]  # type: ignore[valid-type]
    torch: Literal[TORCH_VERSIONS]  # type: ignore[valid-type]
    cuda: Literal[BUILDS]  # type: ignore[valid-type]
    model: Literal[MODELS]  # type: ignore[valid-type]
    n_nodes: int = Field(ge=1, le=64)

    @model_validator(mode="after")
    def _real(self) -> LayerParams:
        problem = _unrealistic(self)
        if problem:
            raise ValueError(problem)
        return self


def _unrealistic(p: LayerParams) -> str | None:
    """Why these parameters could not describe this failure (None when they can)."""
    if p.cuda not in WHEELS[p.torch]:
        return f"PyTorch {p.torch} published no {cu_tag(p.cuda)} wheel"
    if branch_of(p.driver) < NV_GPUS[p.gpu].min_branch:
        return "that GPU needs a newer driver branch"
    old_wheel = cuda_tuple(p.cuda) < (12, 8)
    if p.scenario == "no-kernel-image":
        return None if p.gpu == "b200" and old_wheel else "needs a B200 and a pre-cu128 wheel"
    if p.gpu == "b200" and old_wheel:
        return "a B200 needs a cu128 or later wheel"
    if p.scenario == "old-driver":
        ok = DRIVERS[p.driver][1].startswith("11.") and p.cuda.startswith("12.")
        return None if ok else "needs an 11.x driver under a 12.x wheel"
    if not _supports(p.driver, p.cuda):
        return "the driver would not run that wheel, a second fault"
    if p.scenario == "nvml-mismatch" and p.driver == DRIVER_VERSIONS[-1]:
        return "no newer driver to have been installed"
    if p.scenario == "cudnn-missing" and (p.torch < "2.4" or not p.cuda.startswith("12.")):
        return "cuDNN 9 wheels start with PyTorch 2.4 for CUDA 12"
    if p.scenario == "cudart-missing" and not p.cuda.startswith("12."):
        return "the log names the CUDA 12 runtime"
    if p.scenario in ("rendezvous-port", "nccl-no-interface") and p.n_nodes < 2:
        return "needs two nodes or more"
    if p.scenario == "nccl-no-interface" and p.torch not in ("2.5.1", "2.6.0"):
        return "the log quotes NCCL 2.21.5, which ships with PyTorch 2.5.1 and 2.6.0"
    return None


@register
class StackLayerError(Template):
    slug = "stack-layer-error"
    title = "Which layer of the stack broke the job?"
    family = "software_stack"
    lessons = (
        "the-accelerator-software-stack",
        "ray-distributed-ai-frameworks",
        "four-ways-a-deployment-fails",
    )
    skills = (
        "accelerator-software-stack",
        "driver-compatibility",
        "distributed-launch",
        "deployment-failures",
    )
    difficulty = 3
    version = 1
    Params = LayerParams

    def generate(self, rng: random.Random) -> LayerParams:
        scenario = rng.choice(tuple(SCENARIOS))
        while True:
            torch = rng.choice(TORCH_VERSIONS)
            data = dict(
                scenario=scenario,
                gpu=rng.choice(tuple(NV_GPUS)),
                driver=rng.choice(DRIVER_VERSIONS),
                torch=torch,
                cuda=rng.choice(WHEELS[torch]),
                model=rng.choice(MODELS),
                n_nodes=rng.choice((1, 2, 2, 4, 8, 16)),
            )
            p = LayerParams.model_construct(**data)
            if _unrealistic(p) is None:
                return LayerParams(**data)

    def solve(self, p: LayerParams) -> dict[str, Part]:
        layer, fix = SCENARIOS[p.scenario]["answer"]
        return {
            "layer": Part(
                "layer",
                layer,
                kind=Kind.CHOICE,
                tolerance=Exact(),
                choices=tuple(LAYERS),
                label="Layer at fault",
            ),
            "fix": Part(
                "fix",
                fix,
                kind=Kind.CHOICE,
                tolerance=Exact(),
                choices=tuple(FIXES),
                label="Fix",
            ),
        }

    def statement(self, p: LayerParams) -> str:
        g = NV_GPUS[p.gpu]
        nodes = "one node" if p.n_nodes == 1 else f"{p.n_nodes} nodes"
        layers = "\n".join(f"   - **{k}**: {v}" for k, v in LAYERS.items())
        fixes = "\n".join(f"   - **{k}**: {v}" for k, v in FIXES.items())
        return (
            f"A job that fine-tunes `{p.model}` on {nodes} of 8 x {g.name} dies before its "
            f"first training step. The team's image pins PyTorch `{p.torch}+{cu_tag(p.cuda)}` "
            f"{_fleet(p)} The engineer on call collected this:\n\n"
            f"```text\n{log(p, params_hash(*p.model_dump().values()))}\n```\n\n"
            "1. Which layer of the stack is at fault? Answer one of:\n"
            f"{layers}\n"
            "2. Which fix makes the job start? Answer one of:\n"
            f"{fixes}"
        )

    def solution(self, p: LayerParams) -> str:
        s = SCENARIOS[p.scenario]
        layer, fix = s["answer"]
        return (
            f"{s['why']}\n\nLayer: **{layer}**, {LAYERS[layer]}. Fix: **{fix}**: "
            f"{FIXES[fix]}.\n\nWhy not **{s['layer_slip'][0]}**: {s['layer_slip'][2]} "
            f"Why not **{s['fix_slip'][0]}**: {s['fix_slip'][2]}"
        )

    def misconceptions(self, p: LayerParams) -> list[Misconception]:
        s = SCENARIOS[p.scenario]
        value, code, text = s["layer_slip"]
        fvalue, fcode, ftext = s["fix_slip"]
        return [
            Misconception(code, "layer", value, text),
            Misconception(fcode, "fix", fvalue, ftext),
        ]


def _fleet(p: LayerParams) -> str:
    if p.scenario == "no-kernel-image":
        return (
            "The image runs on the team's H100 nodes; these B200 nodes are new, with NVIDIA "
            f"driver {p.driver}."
        )
    return (
        "The image runs unchanged on the rest of the fleet, whose nodes have NVIDIA driver "
        f"{_fleet_driver(p)}."
    )


def _fleet_driver(p: LayerParams) -> str:
    """The fleet's driver: the node's own, except where this node's driver is the fault."""
    if p.scenario == "old-driver":
        need = cuda_tuple(p.cuda)
        fleet = [d for d in DRIVER_VERSIONS if cuda_tuple(DRIVERS[d][1]) >= need]
        return fleet[params_hash(p.driver, p.cuda) % len(fleet)]
    if p.scenario == "nvml-mismatch":
        return newer_driver(p.driver)
    return p.driver
