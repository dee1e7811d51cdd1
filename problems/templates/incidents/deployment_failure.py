"""deployment-failure-class: one symptom from a failed model-server rollout on Kubernetes;
sort it into one of four failure classes and pick the check that would have caught it
before users did.

The four classes: allocation (the pod never got its GPUs: the scheduler found no node,
or a ResourceQuota refused the pod), compatibility (the software cannot run on this
hardware or driver: an image built without the GPU's architecture, a CUDA runtime newer
than the node's driver), startup (the container runs but never becomes ready: the
weights do not fit the GPUs given, or a liveness probe kills it mid-load) and device
health (the GPU itself is failing: an uncorrectable ECC error, a GPU fallen off the bus).
Each class has its early signal: scheduler events and a quota/capacity check; a CI or
start-up self-test on the target architecture and driver; for startup, a sizing check of
the weights against the GPUs each replica requests (an OOM at load fails however long a
probe waits) or a startup probe sized to the weight load (a liveness kill mid-load); DCGM
health watches or a node problem detector that cordon a sick node first.

Realism: messages are in the tools' own formats (kube-scheduler's FailedScheduling, the
ReplicaSet controller's quota refusal, PyTorch's capability warning, driver-too-old and
OutOfMemoryError texts, the kubelet's probe events, the NVRM Xid line, CUDA's ECC error),
filled with real models and accelerators; the OOM symptom appears only when the BF16
weights' share per GPU exceeds the GPU's memory, and every other symptom only when it fits.

Discrimination (two codes per symptom, one per part; an OOM at load has a third): a
Pending pod read as a startup failure (pending-as-startup) with a probe proposed for a
container that never ran (probe-for-unscheduled-pod); "CUDA error ... on the device" or
an old driver read as a sick GPU (cuda-error-as-device-fault) with DCGM proposed to
catch it (dcgm-for-software-fault); an OOM at load read as allocation
(oom-as-allocation) with a scheduler check or a startup probe proposed
(scheduler-check-for-oom, probe-for-oom); a probe kill read as a crash
(probe-kill-as-crash) or a bad node (restarts-as-bad-node); a hardware error read as
software (device-error-as-software) with a CI test or a probe proposed to catch it
(ci-cannot-see-hardware, probe-cannot-fix-hardware).
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field, model_validator

from hardware_db import catalog
from problems.engine.registry import register
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates.incidents._deploy_catalog import SYMPTOMS
from problems.templates.incidents._deploy_symptoms import CLASSES, MODELS, SIGNALS, fits, render
from problems.templates.incidents._family import choice_part, fenced, menu

Symptom = Literal[
    "insufficient-gpu",
    "quota-exceeded",
    "no-kernel-image",
    "driver-too-old",
    "oom-weight-load",
    "liveness-kills-load",
    "ecc-uncorrectable",
    "fell-off-bus",
]
Model = Literal["llama-3.1-8b", "llama-3.1-70b", "qwen2.5-72b", "mixtral-8x7b"]
Accelerator = Literal["a100-sxm-80gb", "h100-sxm", "h200", "b200", "l40s"]


class DeployParams(Params):
    symptom: Symptom
    model: Model
    accelerator: Accelerator
    gpus: int = Field(ge=1, le=8)
    detail_seed: int = Field(ge=0, le=2**31 - 1)

    @model_validator(mode="after")
    def _realistic(self) -> DeployParams:
        ok = fits(self.model, self.accelerator, self.gpus)
        if self.symptom == "oom-weight-load" and ok is not False:
            raise ValueError("the weights fit these GPUs: an OOM at load would not happen")
        if self.symptom != "oom-weight-load" and ok is not True:
            raise ValueError("these GPUs are not a sensible size for the weights")
        if self.symptom == "driver-too-old" and self.accelerator == "b200":
            raise ValueError("a driver that old does not support the B200 at all")
        if self.symptom == "no-kernel-image" and self.accelerator in ("a100-sxm-80gb", "l40s"):
            raise ValueError("the stale image in this scenario covers sm_80 and sm_86 GPUs")
        return self


@register
class DeploymentFailureClass(Template):
    slug = "deployment-failure-class"
    title = "Classify a failed model-server rollout"
    family = "incidents"
    lessons = ("four-ways-a-deployment-fails", "gpus-on-kubernetes", "platform-and-operations")
    skills = ("deployment-failures", "health-probes", "kubernetes-gpus", "operations")
    difficulty = 2
    version = 2  # issue 34: an OOM at load is caught by a sizing check, not a probe
    Params = DeployParams

    def generate(self, rng: random.Random) -> DeployParams:
        while True:
            symptom = rng.choice(tuple(SYMPTOMS))
            model = rng.choice(tuple(MODELS))
            acc = rng.choice(("a100-sxm-80gb", "h100-sxm", "h100-sxm", "h200", "b200", "l40s"))
            gpus = rng.choice((1, 1, 2, 4, 8))
            try:
                return DeployParams(
                    symptom=symptom,
                    model=model,
                    accelerator=acc,
                    gpus=gpus,
                    detail_seed=rng.randint(0, 2**31 - 1),
                )
            except ValueError:
                continue

    def solve(self, p: DeployParams) -> dict[str, Part]:
        cls, signal = SYMPTOMS[p.symptom][:2]
        return {
            "failure_class": choice_part("failure_class", cls, tuple(CLASSES), "Failure class"),
            "signal": choice_part("signal", signal, tuple(SIGNALS), "Early signal"),
        }

    def statement(self, p: DeployParams) -> str:
        acc = catalog.accelerator(p.accelerator)
        name = MODELS[p.model]
        where, text = render(p)
        return (
            f"A team rolls out a vLLM server for `{name}` (BF16) on Kubernetes, each replica "
            f"asking for {p.gpus} x {acc.prose_name} "
            f"(`nvidia.com/gpu: {p.gpus}`). The new replicas never serve traffic. {where}\n\n"
            + fenced(text)
            + "\n\n1. Which class of deployment failure is this? One of:\n\n"
            + menu(CLASSES)
            + "\n\n2. Which check or signal would have caught it before users noticed? One "
            "of:\n\n" + menu(SIGNALS)
        )

    def solution(self, p: DeployParams) -> str:
        cls, signal, why = SYMPTOMS[p.symptom][:3]
        return (
            f"{why}\n\nSo the class is **{cls}** and the check that catches it early is "
            f"**{signal}**.\n\n"
            "To sort a failed rollout, ask in order: did the pod get GPUs at all (allocation)? "
            "Did the software run on them (compatibility)? Did it become ready (startup)? "
            "Or did the device itself report an error (device health)? The evidence of each "
            "lives in a different place: scheduler events, the container's first lines of "
            "output, probe events and load logs, and the node's kernel log or DCGM."
        )

    def misconceptions(self, p: DeployParams) -> list[Misconception]:
        return [
            Misconception(code, part, value, feedback)
            for part, value, code, feedback in SYMPTOMS[p.symptom][3]
        ]
