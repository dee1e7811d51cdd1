"""k8s-gpu-request: which Kubernetes object or field delivers a GPU placement need.

A concept question. Each scenario has one mechanism that delivers it, among nine a
platform team reaches for: whole GPUs through the device plugin's extended resource
(`resources.limits: nvidia.com/gpu`), a nodeSelector or node affinity on the GPU Feature
Discovery label `nvidia.com/gpu.product`, a toleration of the GPU nodes' taint, a MIG
resource of the mixed strategy (`nvidia.com/mig-1g.10gb` and its kin), time-slicing in
the device plugin's config, a ResourceQuota on `requests.nvidia.com/gpu`, a Kueue
ClusterQueue with a LocalQueue, a JobSet and a LeaderWorkerSet.

Realism: real GPU models and their smallest MIG profile (1g.10gb on A100 80GB and H100,
1g.18gb on H200, 1g.23gb on B200); the L40S, which has no MIG, is the one used for
time-slicing; counts of whole GPUs a pod can hold (1-8, one node) and namespace caps of
8-64. The taint scenario says the ExtendedResourceToleration admission plugin is off, since
with it a GPU request would bring its toleration along.

Misconceptions, two per scenario, each naming what the wrong mechanism does instead:
count-picks-model, toleration-attracts, selector-overrides-taint,
request-implies-toleration, fractional-gpu-limit, time-slicing-isolates, mig-on-l40s,
mig-for-whole-gpus, quota-requests-gpus, limit-caps-namespace, kueue-for-hard-cap,
quota-queues, quota-as-gang, jobset-is-gang, kueue-defines-group, lws-for-training,
one-pod-spans-nodes.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field, model_validator

from problems.engine.registry import register
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates.scheduling._family import accelerator_name, choice_part

Scenario = Literal[
    "count", "model", "taint", "slice", "share", "cap", "queue", "gang", "group", "replica"
]
Gpu = Literal["a100", "h100", "h200", "b200", "l40s"]
ACCEL = {
    "a100": "a100-sxm-80gb",
    "h100": "h100-sxm",
    "h200": "h200",
    "b200": "b200",
    "l40s": "l40s",
}
LABEL = {
    "a100": "NVIDIA-A100-SXM4-80GB",
    "h100": "NVIDIA-H100-80GB-HBM3",
    "h200": "NVIDIA-H200",
    "b200": "NVIDIA-B200",
    "l40s": "NVIDIA-L40S",
}
MIG = {"a100": "1g.10gb", "h100": "1g.10gb", "h200": "1g.18gb", "b200": "1g.23gb"}
CHOICES = (
    "gpu-limit",
    "node-selector",
    "toleration",
    "mig-resource",
    "time-slicing",
    "resource-quota",
    "kueue",
    "jobset",
    "leaderworkerset",
)
ANSWER = {
    "count": "gpu-limit",
    "model": "node-selector",
    "taint": "toleration",
    "slice": "mig-resource",
    "share": "time-slicing",
    "cap": "resource-quota",
    "queue": "kueue",
    "gang": "kueue",
    "group": "jobset",
    "replica": "leaderworkerset",
}
# scenario -> two (code, wrong choice, feedback) a learner plausibly picks
SLIPS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "count": (
        (
            "mig-for-whole-gpus",
            "mig-resource",
            "MIG resources are slices of one GPU; whole GPUs are asked for as nvidia.com/gpu.",
        ),
        (
            "quota-requests-gpus",
            "resource-quota",
            "A ResourceQuota only caps what a namespace may request; the pod still has to ask.",
        ),
    ),
    "model": (
        (
            "count-picks-model",
            "gpu-limit",
            "nvidia.com/gpu says how many GPUs, not which model; any GPU node would do.",
        ),
        (
            "toleration-attracts",
            "toleration",
            "A toleration only lets a pod onto tainted nodes; it does not steer it to them.",
        ),
    ),
    "taint": (
        (
            "selector-overrides-taint",
            "node-selector",
            "A selector narrows the nodes a pod may use but cannot get it past a taint.",
        ),
        (
            "request-implies-toleration",
            "gpu-limit",
            "Without the ExtendedResourceToleration plugin a GPU request adds no toleration.",
        ),
    ),
    "slice": (
        (
            "fractional-gpu-limit",
            "gpu-limit",
            "nvidia.com/gpu counts whole devices; Kubernetes refuses a fraction such as 0.5.",
        ),
        (
            "time-slicing-isolates",
            "time-slicing",
            "Time-sliced pods share one GPU's memory and faults; only MIG isolates them.",
        ),
    ),
    "share": (
        (
            "mig-on-l40s",
            "mig-resource",
            "The L40S does not support MIG; sharing it means time-slicing (or MPS).",
        ),
        (
            "fractional-gpu-limit",
            "gpu-limit",
            "nvidia.com/gpu counts whole devices; Kubernetes refuses a fraction such as 0.25.",
        ),
    ),
    "cap": (
        (
            "limit-caps-namespace",
            "gpu-limit",
            "A container's limit applies to that container; it cannot cap a whole namespace.",
        ),
        (
            "kueue-for-hard-cap",
            "kueue",
            "Kueue queues work over its share; the ask here is a hard refusal with no queue.",
        ),
    ),
    "queue": (
        (
            "quota-queues",
            "resource-quota",
            "A ResourceQuota refuses pods over the cap at creation; nothing waits in line.",
        ),
        (
            "jobset-is-gang",
            "jobset",
            "A JobSet describes a group of Jobs; it neither queues nor shares quota.",
        ),
    ),
    "gang": (
        (
            "jobset-is-gang",
            "jobset",
            "A JobSet creates the pods but each is scheduled on its own; admission as a "
            "whole needs a queue such as Kueue (or a gang scheduler).",
        ),
        (
            "quota-as-gang",
            "resource-quota",
            "A ResourceQuota admits pods one by one; it cannot hold them until all fit.",
        ),
    ),
    "group": (
        (
            "lws-for-training",
            "leaderworkerset",
            "LeaderWorkerSet runs long-lived serving replicas; a job that runs to completion "
            "with several replicated roles is a JobSet.",
        ),
        (
            "kueue-defines-group",
            "kueue",
            "Kueue queues and admits workloads; it does not define the Jobs inside one.",
        ),
    ),
    "replica": (
        (
            "one-pod-spans-nodes",
            "gpu-limit",
            "A pod runs on one node; a replica larger than a node needs several pods.",
        ),
        (
            "jobset-is-gang",
            "jobset",
            "JobSet is for batch work that finishes; a serving replica of leader and workers "
            "scaled as a unit is a LeaderWorkerSet.",
        ),
    ),
}


class GpuRequestParams(Params):
    scenario: Scenario
    gpu: Gpu
    n_gpus: int = Field(ge=1, le=4096)

    @model_validator(mode="after")
    def _realistic(self) -> GpuRequestParams:
        if self.scenario == "slice" and self.gpu not in MIG:
            raise ValueError("the L40S has no MIG")
        if self.scenario == "share" and self.gpu != "l40s":
            raise ValueError("the time-slicing scenario uses the L40S (no MIG)")
        if self.scenario == "count" and self.n_gpus > 8:
            raise ValueError("one pod holds at most one node's 8 GPUs")
        return self


@register
class K8sGpuRequest(Template):
    slug = "k8s-gpu-request"
    title = "Which Kubernetes object asks for this GPU placement?"
    family = "scheduling"
    lessons = (
        "gpus-on-kubernetes",
        "the-cluster",
        "scheduling-gpu-clusters",
        "llm-d-on-kubernetes",
    )
    skills = ("kubernetes-gpus", "gpu-sharing", "gang-scheduling", "kubernetes-batch")
    difficulty = 2
    version = 1
    Params = GpuRequestParams

    def generate(self, rng: random.Random) -> GpuRequestParams:
        scenario = rng.choice(tuple(ANSWER))
        gpu = {"slice": rng.choice(tuple(MIG)), "share": "l40s"}.get(
            scenario, rng.choice(("a100", "h100", "h200", "b200"))
        )
        n = {
            "count": rng.choice((1, 2, 4, 8)),
            "cap": rng.choice((8, 16, 24, 32, 64)),
            "queue": rng.choice((16, 32, 64)),
            "gang": rng.choice((16, 32, 64)),
            "group": rng.choice((16, 32, 64)),
            "replica": 16,
        }.get(scenario, 1)
        return GpuRequestParams(scenario=scenario, gpu=gpu, n_gpus=n)

    def solve(self, p: GpuRequestParams) -> dict[str, Part]:
        return {"mechanism": choice_part("mechanism", ANSWER[p.scenario], CHOICES, "Mechanism")}

    def _need(self, p: GpuRequestParams) -> str:
        acc, mig = accelerator_name(ACCEL[p.gpu]), MIG.get(p.gpu, "")
        return {
            "count": f"A training pod needs {p.n_gpus} whole {acc} GPU(s) of its own on one node.",
            "model": f"The cluster has GPU nodes of several models; an inference pod must run "
            f"only on {acc} nodes (GPU Feature Discovery labels them `{LABEL[p.gpu]}`).",
            "taint": "The GPU nodes are tainted `nvidia.com/gpu=present:NoSchedule` so that "
            "CPU-only pods stay off them; a GPU pod must be allowed onto them (the "
            "ExtendedResourceToleration admission plugin is not enabled).",
            "slice": f"A small model needs about a seventh of one {acc}, with its own memory "
            f"and fault isolation from its neighbours; the GPU Operator runs MIG with the "
            f"mixed strategy, exposing a `{mig}` profile.",
            "share": f"Twenty light notebooks should share a pool of {acc} GPUs; isolation "
            "does not matter, only that several pods fit on each GPU.",
            "cap": f"Namespace `team-a` may never hold more than {p.n_gpus} GPUs at once; "
            "a pod past that must be refused when it is created. No batch queue is installed.",
            "queue": f"Two teams share {p.n_gpus} GPUs; jobs past a team's share should wait in "
            "line and start on their own as GPUs free up, borrowing the other team's idle "
            "share.",
            "gang": f"A {p.n_gpus // 8}-node training job ({p.n_gpus} GPUs) must start with all "
            "its pods placed at once, or not at all, so that half-started jobs never hold GPUs "
            "while waiting for the rest.",
            "group": f"A multi-node training run ({p.n_gpus} GPUs) has a coordinator Job and a "
            "replicated worker Job that must be created together and restarted together "
            "when any pod fails.",
            "replica": f"One replica of a served model spans two 8-GPU {acc} nodes "
            f"({p.n_gpus} GPUs, tensor- and pipeline-parallel): a leader pod and a worker pod "
            "that must be created, scaled and restarted as a unit.",
        }[p.scenario]

    def statement(self, p: GpuRequestParams) -> str:
        return (
            f"{self._need(p)}\n\n"
            "Which Kubernetes mechanism delivers this? Answer one of: **gpu-limit** "
            "(`resources.limits` of `nvidia.com/gpu` through the device plugin), "
            "**node-selector** (a nodeSelector or node affinity on `nvidia.com/gpu.product`), "
            "**toleration**, **mig-resource** (a MIG resource such as "
            "`nvidia.com/mig-1g.10gb`), **time-slicing** (the device plugin's sharing config), "
            "**resource-quota** (a ResourceQuota on `requests.nvidia.com/gpu`), **kueue** (a "
            "ClusterQueue with a LocalQueue), **jobset**, **leaderworkerset**."
        )

    def solution(self, p: GpuRequestParams) -> str:
        mig = MIG.get(p.gpu, "")
        why = {
            "count": "The NVIDIA device plugin advertises each node's GPUs as the extended "
            f"resource `nvidia.com/gpu`; a limit of {p.n_gpus} makes the scheduler find a node "
            "with that many free and hands the pod those devices.",
            "model": f"Pin the pod with `nodeSelector: nvidia.com/gpu.product: {LABEL[p.gpu]}` "
            "(or the same key in a node affinity); the GPU count alone would accept any model.",
            "taint": "A taint keeps off every pod that does not tolerate it, so the GPU pod "
            "needs `tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: "
            "NoSchedule}]`.",
            "slice": f"With the mixed strategy each MIG profile is its own resource: ask for "
            f"`nvidia.com/mig-{mig}: 1`, a hardware partition with its own memory and "
            "compute.",
            "share": "Time-slicing makes the device plugin advertise each GPU several times "
            "(`replicas` in its sharing config), so several pods ask for `nvidia.com/gpu: 1` "
            "and land on one device, without memory isolation.",
            "cap": f"A ResourceQuota with `requests.nvidia.com/gpu: {p.n_gpus}` makes the API "
            "server refuse any pod that would take the namespace past the cap.",
            "queue": "Kueue holds Jobs in a LocalQueue, admits them against the ClusterQueue's "
            "quota and lets ClusterQueues in one cohort borrow each other's idle quota.",
            "gang": "Kueue admits a workload only when quota for all of its pods is free "
            "(with waitForPodsReady it also evicts one that cannot get every pod running), so "
            "the job starts whole or waits.",
            "group": "A JobSet creates its replicated Jobs together and its failure policy "
            "restarts the whole set when one fails.",
            "replica": "A LeaderWorkerSet creates each replica as a leader pod and its workers, "
            "scales by whole groups and restarts the group together.",
        }[p.scenario]
        return f"{why} Answer **{ANSWER[p.scenario]}**."

    def misconceptions(self, p: GpuRequestParams) -> list[Misconception]:
        return [
            Misconception(code, "mechanism", value, fb) for code, value, fb in SLIPS[p.scenario]
        ]
