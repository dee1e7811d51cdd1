"""ray-gpu-packing: how many Ray actors with a fractional `num_gpus` fit on one node, and
how many nodes a pool of them needs.

Realism: KubeRay worker pods of one 8-GPU node each (a catalog NVIDIA part named in the
statement), started with `num-gpus: "8"` and a CPU count of 32-128, as a pod's CPU limit
gives them; actors ask for 0.125-1 GPU (the fractions Ray users write: 0.125, 0.2, 0.25,
0.3, 0.4, 0.5, 1) and 1-8 CPUs; pools of 8-240 actors. Ray treats each GPU as a unit
instance (RayConfig predefined_unit_instance_resources defaults to "GPU"): a fractional
request is served from one GPU, so a GPU holds floor(1 / num_gpus) actors and the leftover
fraction of each GPU is wasted. CPUs are a pooled count per node. A variant is redrawn
when both limits give the same count, so the binding one always matters.

Misconceptions: on actors per node, the CPU limit ignored (cpu-limit-ignored), the GPU limit
ignored (gpu-limit-ignored), the GPU fractions pooled across the node's GPUs as if one
actor could take 0.2 of one GPU and 0.1 of another (fractions-pooled), and the actors per
GPU rounded up (fraction-rounded-up); on nodes, the same count from the GPU limit alone
(nodes-gpu-only) and a node count rounded down (nodes-rounded-down). Feedback also says
that a fraction is bookkeeping: Ray does not fence GPU memory between actors.
"""

from __future__ import annotations

import math
import random
from typing import Literal

from pydantic import Field

from problems.engine.numbers import exact, sig
from problems.engine.registry import register
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates.scheduling._family import accelerator_name, count_part, fence

GpuFraction = Literal[0.125, 0.2, 0.25, 0.3, 0.4, 0.5, 1.0]
Gpu = Literal["a100-sxm-80gb", "h100-sxm", "h200", "l40s"]
ACTORS = ("Embedder", "Reranker", "RolloutWorker", "LLMReplica", "Detector", "Scorer")
MEMORY_NOTE = (
    " (A fraction is bookkeeping only: Ray does not fence GPU memory, so each actor must "
    "keep its own use within its share.)"
)


class RayPackingParams(Params):
    gpu: Gpu
    gpus_per_node: int = Field(ge=1, le=16)
    cpus_per_node: int = Field(ge=1, le=1024)
    gpu_per_actor: GpuFraction
    cpus_per_actor: int = Field(ge=1, le=256)
    n_actors: int = Field(ge=1, le=100_000)


def per_gpu(p: RayPackingParams) -> int:
    """Actors one GPU holds: floor(1 / fraction), or 1 for a whole GPU."""
    return math.floor(1 / exact(p.gpu_per_actor))


def gpu_cap(p: RayPackingParams) -> int:
    return p.gpus_per_node * per_gpu(p)


def cpu_cap(p: RayPackingParams) -> int:
    return p.cpus_per_node // p.cpus_per_actor


def per_node(p: RayPackingParams) -> int:
    return min(gpu_cap(p), cpu_cap(p))


def nodes_for(n: int, per: int) -> int:
    return -(-n // per) if per else 0


@register
class RayGpuPacking(Template):
    slug = "ray-gpu-packing"
    title = "Packing fractional-GPU Ray actors onto nodes"
    family = "scheduling"
    lessons = ("ray-distributed-ai-frameworks", "scheduling-gpu-clusters")
    skills = ("distributed-frameworks", "kubernetes-batch", "ray-resources")
    difficulty = 2
    version = 1
    Params = RayPackingParams

    def generate(self, rng: random.Random) -> RayPackingParams:
        while True:
            p = RayPackingParams(
                gpu=rng.choice(("a100-sxm-80gb", "h100-sxm", "h200", "l40s")),
                gpus_per_node=8,
                cpus_per_node=rng.choice((32, 48, 64, 96, 128)),
                gpu_per_actor=rng.choice((0.125, 0.2, 0.25, 0.3, 0.4, 0.5, 1.0)),
                cpus_per_actor=rng.choice((1, 2, 3, 4, 6, 8)),
                n_actors=rng.randint(8, 240),
            )
            if gpu_cap(p) != cpu_cap(p) and per_node(p) >= 2 and p.n_actors > per_node(p):
                return p

    def solve(self, p: RayPackingParams) -> dict[str, Part]:
        return {
            "per_node": count_part("per_node", per_node(p), "Actors on one node"),
            "nodes": count_part("nodes", nodes_for(p.n_actors, per_node(p)), "Nodes needed"),
        }

    def statement(self, p: RayPackingParams) -> str:
        name = ACTORS[p.n_actors % len(ACTORS)]
        code = [
            "import ray",
            "",
            f"@ray.remote(num_gpus={p.gpu_per_actor:g}, num_cpus={p.cpus_per_actor})",
            f"class {name}:",
            "    ...",
            "",
            f"pool = [{name}.remote() for _ in range({p.n_actors})]",
        ]
        return (
            f"A KubeRay cluster's GPU worker group runs one pod per node, each with "
            f"{p.gpus_per_node} {accelerator_name(p.gpu)} GPUs and started with "
            f'`rayStartParams: {{num-gpus: "{p.gpus_per_node}", num-cpus: '
            f'"{p.cpus_per_node}"}}`. Nothing else runs on these workers. A job creates a '
            "pool of actors:\n\n"
            + fence(code).replace("```text", "```python", 1)
            + "\n\n1. How many of these actors can one worker node hold at once?\n"
            f"2. How many worker nodes does the pool of {p.n_actors} need so that every actor "
            "is placed?"
        )

    def solution(self, p: RayPackingParams) -> str:
        g, k = p.gpu_per_actor, per_gpu(p)
        wasted = 1 - k * exact(g)
        left = (
            f" ({sig(float(wasted))} of each GPU is left over: a request is served from one GPU)"
            if wasted
            else ""
        )
        binding = "CPUs" if cpu_cap(p) < gpu_cap(p) else "GPUs"
        n = per_node(p)
        if g == 1:
            gpus = f"**GPUs.** One whole GPU each: {p.gpus_per_node} actors per node.\n\n"
        else:
            gpus = (
                "**GPUs.** Ray hands each fractional request out of a single GPU, so one GPU "
                f"holds $\\lfloor 1 / {g:g} \\rfloor = {k}$ actors{left}, so a node's GPUs take "
                f"${p.gpus_per_node} \\times {k} = {gpu_cap(p)}$.\n\n"
            )
        note = MEMORY_NOTE if g < 1 else ""
        return (
            gpus + f"**CPUs.** $\\lfloor {p.cpus_per_node} / {p.cpus_per_actor} \\rfloor = "
            f"{cpu_cap(p)}$ actors.\n\n"
            f"The {binding} run out first: **{n}** actors per node.{note}\n\n"
            f"**Nodes.** $\\lceil {p.n_actors} / {n} \\rceil = "
            f"{nodes_for(p.n_actors, n)}$ worker nodes (round up: the last node is partly "
            "used)."
        )

    def misconceptions(self, p: RayPackingParams) -> list[Misconception]:
        n, g = per_node(p), exact(p.gpu_per_actor)
        pooled = min(math.floor(p.gpus_per_node / g), cpu_cap(p))
        up = min(p.gpus_per_node * math.ceil(1 / g), cpu_cap(p))
        per = [
            (
                "cpu-limit-ignored",
                gpu_cap(p),
                f"Each actor also reserves {p.cpus_per_actor} CPU(s), and the node has only "
                f"{p.cpus_per_node}: the CPUs run out first.",
            ),
            (
                "gpu-limit-ignored",
                cpu_cap(p),
                "The CPUs would allow that many, but the GPUs run out first.",
            ),
            (
                "fractions-pooled",
                pooled,
                "That divides the node's GPUs as one pool. Ray serves a fractional request from "
                "a single GPU, so each GPU holds floor(1 / num_gpus) actors and the rest of it "
                "is wasted." + MEMORY_NOTE,
            ),
            (
                "fraction-rounded-up",
                up,
                "A GPU cannot take a part of an actor: round the actors per GPU down.",
            ),
        ]
        out: list[Misconception] = []
        seen: dict[str, set[int]] = {"per_node": {n}, "nodes": {nodes_for(p.n_actors, n)}}
        for code, value, feedback in per:
            if value not in seen["per_node"] and value > 0:
                out.append(Misconception(code, "per_node", value, feedback))
                seen["per_node"].add(value)
        nodes = [
            (
                "nodes-gpu-only",
                nodes_for(p.n_actors, gpu_cap(p)),
                "That counts nodes by GPUs alone; each node holds fewer actors because of its "
                "CPUs.",
            ),
            (
                "nodes-rounded-down",
                p.n_actors // n,
                "Round up: the actors left over still need a node of their own.",
            ),
        ]
        for code, value, feedback in nodes:
            if value not in seen["nodes"] and value > 0:
                out.append(Misconception(code, "nodes", value, feedback))
                seen["nodes"].add(value)
        return out
