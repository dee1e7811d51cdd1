"""k8s-pending-pod: why a GPU training Job on Kubernetes has not started, read from
`kubectl` output, and what would fix it.

Realism: one control-plane node (tainted, as kubeadm and managed clusters do), 0-3 CPU
nodes and 2-6 GPU nodes of one NVIDIA model with 8 GPUs each, labelled by GPU Feature
Discovery (`nvidia.com/gpu.product`, values such as NVIDIA-H100-80GB-HBM3) and tainted
`nvidia.com/gpu=present:NoSchedule` as GKE does. The pod asks for `nvidia.com/gpu` through
the device plugin. The scheduler's message follows kube-scheduler's FitError: each node
counted once under the first filter it fails (TaintToleration, then NodeAffinity, then
NodeResourcesFit), the counts sorted as strings, then the preemption summary (nodes failing
a taint or a selector are "not helpful" to preempt on). Kubernetes 1.30 is named, a
release whose message still names the taint (newer ones may print only "untolerated
taint(s)").

One cause is planted: the GPUs are all taken (insufficient), the nodeSelector names a GPU
model the cluster does not have (selector), the pod lacks the GPU toleration (taint), a
namespace ResourceQuota on `requests.nvidia.com/gpu` refuses the pod so it is never
created (quota: the Job's FailedCreate event), or Kueue holds the whole Job, all pods or
none, until its ClusterQueue has the quota (queue: no pods, the Workload not admitted).

Misconceptions: the "Insufficient nvidia.com/gpu" of CPU nodes read as the cause when a
taint blocks the GPU nodes (taint-read-as-shortage); the control-plane taint blamed
(control-plane-taint-blamed); a selector mismatch on CPU nodes blamed for a real shortage
(selector-blamed); admission refusals read as a shortage (quota-read-as-shortage,
queue-read-as-shortage). On the fix: adding nodes for a taint or selector problem (new
nodes carry the same taint and label: more-nodes-for-taint, more-nodes-for-selector) or for
a quota (capacity-for-quota, capacity-for-queue), and a quota raise for a real shortage
(quota-for-capacity).
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field, model_validator

from problems.engine.registry import register
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates.scheduling._family import accelerator_name, choice_part, detail_rng, fence
from problems.templates.scheduling._kubectl import (
    SHORT,
    draw_ages,
    filter_reasons,
    job_quota_block,
    nodes_block,
    pod_block,
    pods_block,
    scheduler_message,
    workload_blocks,
)

GPUS = 8
PRODUCTS = {  # GFD label value -> catalog part
    "NVIDIA-H100-80GB-HBM3": "h100-sxm",
    "NVIDIA-A100-SXM4-80GB": "a100-sxm-80gb",
    "NVIDIA-H200": "h200",
    "NVIDIA-B200": "b200",
    "NVIDIA-L40S": "l40s",
}
Product = Literal[
    "NVIDIA-H100-80GB-HBM3", "NVIDIA-A100-SXM4-80GB", "NVIDIA-H200", "NVIDIA-B200", "NVIDIA-L40S"
]
Cause = Literal["insufficient", "selector", "taint", "quota", "queue"]
CAUSES = ("insufficient", "selector", "taint", "quota", "queue")
FIXES = ("add-nodes", "fix-selector", "add-toleration", "raise-quota")
FIX = {
    "insufficient": "add-nodes",
    "selector": "fix-selector",
    "taint": "add-toleration",
    "quota": "raise-quota",
    "queue": "raise-quota",
}
JOBS = ("finetune-8b", "pretrain-moe", "sft-70b", "dpo-run", "eval-sweep", "rlhf-actor")
LETTERS = "bcdfghjklmnpqrstvwxz2456789"  # the alphabet of generated name suffixes
NAMESPACES = ("ml-team", "research", "llm-train", "team-a")


class PendingPodParams(Params):
    product: Product
    gpu_nodes: int = Field(ge=1, le=64)
    cpu_nodes: int = Field(ge=0, le=64)
    cause: Cause
    gpus_per_pod: int = Field(ge=1, le=GPUS)
    pods: int = Field(ge=1, le=64)
    selector: Literal["none", "match", "other"]
    tolerates: bool
    quota_limit: int = Field(ge=0, le=4096)  # ResourceQuota or ClusterQueue GPUs; 0 if unused
    quota_used: int = Field(ge=0, le=4096)

    @model_validator(mode="after")
    def _one_cause(self) -> PendingPodParams:
        quota = self.cause in ("quota", "queue")
        need = self.gpus_per_pod * (self.pods if self.cause == "queue" else 1)
        if (self.cause == "selector") != (self.selector == "other"):
            raise ValueError("only a selector variant names a GPU model the cluster lacks")
        if (self.cause == "taint") == self.tolerates:
            raise ValueError("only a taint variant leaves out the GPU toleration")
        if quota != (self.quota_limit > 0) or (not quota and self.quota_used):
            raise ValueError("only quota and queue variants have a quota")
        if quota and not need <= self.quota_limit < self.quota_used + need:
            raise ValueError("the quota must hold the request, but not with what is in use")
        if self.quota_used > self.quota_limit:
            raise ValueError("more in use than the quota allows")
        return self


def reasons(p: PendingPodParams) -> dict[str, int]:
    return filter_reasons(p.gpu_nodes, p.cpu_nodes, p.tolerates, p.selector)


@register
class K8sPendingPod(Template):
    slug = "k8s-pending-pod"
    title = "Why is this GPU pod not running on Kubernetes?"
    family = "scheduling"
    lessons = (
        "gpus-on-kubernetes",
        "the-cluster",
        "scheduling-gpu-clusters",
        "llm-d-on-kubernetes",
    )
    skills = ("kubernetes-gpus", "kubernetes-batch", "gang-scheduling")
    difficulty = 2
    version = 1
    Params = PendingPodParams

    def generate(self, rng: random.Random) -> PendingPodParams:
        cause = rng.choice(CAUSES)
        product = rng.choice(tuple(PRODUCTS))
        gpn = rng.choice((4, 8, 8) if cause == "insufficient" else (1, 2, 4, 8, 8))
        pods = rng.choice((1, 2, 4)) if cause == "queue" else rng.choice((1, 1, 2))
        gpu_nodes = rng.randint(2, 6)
        limit = used = 0
        if cause in ("quota", "queue"):
            # a quota the request fits in when it is free, at most the cluster's GPUs, and
            # short now by 1 to all of the request
            need = gpn * (pods if cause == "queue" else 1)
            gpu_nodes = max(gpu_nodes, -(-need // GPUS))
            limit = rng.choice([q for q in range(8, GPUS * gpu_nodes + 1, 8) if q >= need])
            used = limit - rng.randrange(0, need)
        return PendingPodParams(
            product=product,
            gpu_nodes=gpu_nodes,
            cpu_nodes=rng.randint(1 if cause == "taint" else 0, 3),
            cause=cause,
            gpus_per_pod=gpn,
            pods=pods,
            selector="other" if cause == "selector" else rng.choice(("none", "match")),
            tolerates=cause != "taint",
            quota_limit=limit,
            quota_used=used,
        )

    def solve(self, p: PendingPodParams) -> dict[str, Part]:
        return {
            "cause": choice_part("cause", p.cause, CAUSES, "Why the Job has not started"),
            "fix": choice_part("fix", FIX[p.cause], FIXES, "What would get it running"),
        }

    # --- the tool output ---------------------------------------------------------------

    def _names(self, p: PendingPodParams) -> tuple[str, str, str]:
        r = detail_rng(p)
        suffix = "".join(r.sample(LETTERS, 5))
        return r.choice(JOBS), r.choice(NAMESPACES), suffix

    def _asked(self, p: PendingPodParams) -> str:
        others = [x for x in PRODUCTS if x != p.product]
        return others[detail_rng(p, "asked").randrange(len(others))]

    def _blocks(self, p: PendingPodParams) -> list[list[str]]:
        job, ns, suffix = self._names(p)
        pod = f"{job}-{suffix}"
        r = detail_rng(p, "pods")
        ages = draw_ages(detail_rng(p, "ages"))
        blocks = [nodes_block(p.cpu_nodes, p.gpu_nodes, p.product, ages)]
        if p.cause == "quota":
            blocks.append(pods_block(ns, job, [], ages))
            used, limit = p.quota_used, p.quota_limit
            blocks.append(job_quota_block(ns, job, pod, p.pods, p.gpus_per_pod, used, limit, ages))
        elif p.cause == "queue":
            blocks.append(pods_block(ns, job, [], ages))
            flavor = p.product.split("-")[1].lower()
            more = p.gpus_per_pod * p.pods - (p.quota_limit - p.quota_used)
            workload = f"job-{job}-{''.join(r.choices('0123456789abcdef', k=5))}"
            blocks += workload_blocks(ns, workload, flavor, more, ages)
        else:
            others = [f"{job}-{''.join(r.sample(LETTERS, 5))}" for _ in range(p.pods - 1)]
            blocks.append(pods_block(ns, job, [pod, *others], ages))
            selector = None
            if p.selector != "none":
                value = self._asked(p) if p.selector == "other" else p.product
                selector = f"nvidia.com/gpu.product={value}"
            message = scheduler_message(reasons(p))
            blocks.append(
                pod_block(ns, job, pod, p.gpus_per_pod, selector, p.tolerates, message, ages)
            )
        return blocks

    def statement(self, p: PendingPodParams) -> str:
        job, ns, _ = self._names(p)
        acc = accelerator_name(PRODUCTS[p.product])
        blocks = "\n\n".join(fence(b) for b in self._blocks(p))
        return (
            f"A team submitted the Kubernetes Job `{job}` in namespace `{ns}`: {p.pods} "
            f"pod(s), each asking for {p.gpus_per_pod} GPU(s) as `nvidia.com/gpu` through "
            f"the NVIDIA device plugin. The cluster's GPU nodes each carry {GPUS} {acc} GPUs "
            "and the taint `nvidia.com/gpu=present:NoSchedule`. "
            f"{draw_ages(detail_rng(p, 'ages')).job // 60} minutes later nothing is running:\n\n"
            + blocks
            + "\n\n1. What keeps the Job from running? Answer one of: **insufficient** (no "
            "node has enough free GPUs), **selector** (the pod's nodeSelector or affinity "
            "matches no GPU node), **taint** (the pod does not tolerate the GPU nodes' taint), "
            "**quota** (a namespace ResourceQuota refuses the pod), **queue** (a batch queue "
            "such as Kueue has not admitted the Job).\n"
            "2. What would get it running? Answer one of: **add-nodes** (more nodes like the "
            "cluster's GPU nodes), **fix-selector** (point the nodeSelector at a GPU model the "
            "cluster has), **add-toleration** (tolerate the GPU taint), **raise-quota** (a "
            "larger GPU quota for the namespace or the queue)."
        )

    def solution(self, p: PendingPodParams) -> str:
        counts = reasons(p)
        noise = ""
        if SHORT in counts:
            noise = " The Insufficient count comes from the nodes that have no GPUs at all."
        read = "; ".join(f"{n} for “{reason}”" for reason, n in counts.items())
        why = {
            "insufficient": (
                "The GPU nodes pass the taint and selector filters and fail only on "
                f"resources: none has {p.gpus_per_pod} unallocated `nvidia.com/gpu`. The "
                "control-plane taint and any CPU nodes are expected noise. The pod starts when "
                "GPUs free up or GPU nodes are added."
            ),
            "selector": (
                f"The pod's nodeSelector asks for `{self._asked(p)}`, but `kubectl get nodes` "
                f"shows every GPU node labelled `{p.product}`: no node matches. Point the "
                "selector at the model the cluster has (or add nodes of the asked model)."
            ),
            "taint": (
                f"All {p.gpu_nodes} GPU nodes are rejected on the untolerated "
                "`nvidia.com/gpu: present` taint, before their GPUs are even counted; the pod's "
                f"Tolerations list has no `nvidia.com/gpu` entry.{noise} Add the toleration."
            ),
            "quota": (
                "There is no pod to schedule: the Job controller's FailedCreate event says the "
                f"namespace's ResourceQuota allows {p.quota_limit} GPUs, {p.quota_used} are "
                f"already requested, and {p.gpus_per_pod} more would pass it. The API server "
                "refuses the pod before the scheduler sees it; raise the quota or free GPUs "
                "held in the namespace."
            ),
            "queue": (
                "There are no pods: Kueue keeps the Job suspended until its ClusterQueue can "
                f"admit the whole workload at once ({p.pods} x {p.gpus_per_pod} GPUs), and "
                f"the Workload reports {p.gpus_per_pod * p.pods - p.quota_limit + p.quota_used} "
                "more GPUs of quota needed. It is admitted when quota frees up, or sooner if "
                "the queue's quota is raised or it can borrow."
            ),
        }[p.cause]
        scheduled = "" if p.cause in ("quota", "queue") else f"The scheduler counted {read}. "
        return f"{scheduled}{why}\n\nCause **{p.cause}**; fix **{FIX[p.cause]}**."

    def misconceptions(self, p: PendingPodParams) -> list[Misconception]:
        cause: dict[str, tuple[str, str, str]] = {
            "taint": (
                "taint-read-as-shortage",
                "insufficient",
                (
                    "The Insufficient nvidia.com/gpu count comes from nodes without GPUs; "
                    if SHORT in reasons(p)
                    else "No GPU node was found short of GPUs: "
                )
                + "the GPU nodes were turned away earlier, by the taint the pod does not "
                "tolerate.",
            ),
            "selector": (
                "control-plane-taint-blamed",
                "taint",
                "The one node with the control-plane taint is never a place for this "
                "pod; the GPU nodes failed the node selector.",
            ),
            "quota": (
                "quota-read-as-shortage",
                "insufficient",
                "No pod exists to schedule: the FailedCreate event is the API server "
                "refusing it under the namespace's ResourceQuota.",
            ),
            "queue": (
                "queue-read-as-shortage",
                "insufficient",
                "No pod exists yet: Kueue holds the suspended Job until its queue has "
                "quota for all of it; node capacity is not what it checks.",
            ),
        }
        if p.selector == "match" and p.cpu_nodes:
            cause["insufficient"] = (
                "selector-blamed",
                "selector",
                "Only the CPU nodes fail the selector; the GPU nodes "
                "match it and fail on free GPUs.",
            )
        else:
            cause["insufficient"] = (
                "control-plane-taint-blamed",
                "taint",
                "The control-plane taint only rules out that one node; "
                "the GPU nodes fail on free GPUs.",
            )
        fix: dict[str, tuple[str, str, str]] = {
            "insufficient": (
                "quota-for-capacity",
                "raise-quota",
                "A quota only caps what may be asked for; it adds no GPUs. The nodes are full.",
            ),
            "selector": (
                "more-nodes-for-selector",
                "add-nodes",
                "New nodes from the same pool carry the same product label, so the "
                "selector still matches none of them.",
            ),
            "taint": (
                "more-nodes-for-taint",
                "add-nodes",
                "New GPU nodes carry the same taint, so the pod would not tolerate them either.",
            ),
            "quota": (
                "capacity-for-quota",
                "add-nodes",
                "Adding nodes does not change the namespace's ResourceQuota, which is "
                "what refuses the pod.",
            ),
            "queue": (
                "capacity-for-queue",
                "add-nodes",
                "Kueue admits against the ClusterQueue's quota, not against free nodes; "
                "more nodes alone do not admit the Job.",
            ),
        }
        out = []
        for part, table in (("cause", cause), ("fix", fix)):
            code, value, feedback = table[p.cause]
            out.append(Misconception(code, part, value, feedback))
        return out
