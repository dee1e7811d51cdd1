"""k8s-gpu-components: what each vendor's GPU operator installs on a node, and the
Kubernetes objects an llm-d deployment runs as, matched to the pieces of earlier lessons
(model servers, the cache-aware router, prefill and decode pools).

Two parts, each one situation from its bank (problems/templates/concepts/_bank.py).
Facts from the projects' documentation: NVIDIA's GPU Operator installs the driver (as a
container), the NVIDIA Container Toolkit, the Kubernetes device plugin, GPU Feature
Discovery, DCGM and its exporter, and the MIG Manager; AMD's GPU Operator installs the
amdgpu driver through the Kernel Module Management operator, the device plugin
(amd.com/gpu), the node labeller, the device metrics exporter and a device test runner.
llm-d builds on the Gateway API and its Inference Extension: a Gateway with an HTTPRoute
takes the traffic, an InferencePool (inference.networking.k8s.io) names the model-server
pods by label and the endpoint picker (EPP) that chooses among them by prefix-cache
hits, queue and KV-cache load; vLLM pods serve the model, as prefill and decode roles
when disaggregated. Sentences are ours.
"""

from __future__ import annotations

from functools import partial

from problems.engine.registry import register
from problems.templates.concepts._bank import ConceptTemplate, Question, Topic, other_options

DRIVER, TOOLKIT, PLUGIN, LABELS, EXPORTER = (
    "driver", "container-toolkit", "device-plugin", "feature-discovery", "metrics-exporter",
)  # fmt: skip
_OP_NAMES = {
    DRIVER: ("operator-driver", "The driver installer credited with another job"),
    TOOLKIT: ("operator-toolkit", "The container toolkit credited with another job"),
    PLUGIN: ("operator-device-plugin", "The device plugin credited with another job"),
    LABELS: ("operator-labels", "Feature discovery credited with another job"),
    EXPORTER: ("operator-exporter", "The metrics exporter credited with another job"),
}
_OP_DOES = {
    DRIVER: "The driver component builds and loads the kernel module on each node",
    TOOLKIT: "The container toolkit mounts the GPU devices and driver libraries into containers",
    PLUGIN: "The device plugin advertises the node's GPUs to the kubelet as a resource",
    LABELS: "Feature discovery labels nodes with their GPUs' model and properties",
    EXPORTER: "The exporter publishes GPU telemetry for Prometheus",
}


_op_slips = partial(
    other_options, names=_OP_NAMES, feedback=_OP_DOES, suffix="; that is not this job."
)


OPERATOR = Topic(
    part="operator",
    label="GPU operator component",
    clue=(
        "A GPU operator turns a bare node into a GPU node in steps: a kernel driver, a way "
        "for containers to reach the devices, a resource the scheduler can count, labels "
        "saying what the node has, and telemetry about how the GPUs are doing."
    ),
    choices=(DRIVER, TOOLKIT, PLUGIN, LABELS, EXPORTER),
    questions=(
        Question(
            "Pods asking for nvidia.com/gpu: 1 stay Pending; the node's allocatable "
            "resources list no GPUs although nvidia-smi on the host shows eight.",
            PLUGIN,
            "the device plugin is what advertises nvidia.com/gpu to the kubelet.",
            _op_slips(PLUGIN),
        ),
        Question(
            "Nodes carry labels such as nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3, which "
            "a deployment's nodeSelector uses.",
            LABELS,
            "GPU Feature Discovery writes those labels.",
            _op_slips(LABELS),
        ),
        Question(
            "Prometheus scrapes DCGM_FI_DEV_GPU_TEMP and DCGM_FI_DEV_POWER_USAGE from every "
            "GPU node.",
            EXPORTER,
            "the DCGM exporter publishes those metrics.",
            _op_slips(EXPORTER),
        ),
        Question(
            "On AMD Instinct nodes, the amdgpu kernel module is built for the running kernel "
            "and loaded through the Kernel Module Management operator.",
            DRIVER,
            "installing the kernel driver is the operator's driver component (KMM on AMD).",
            _op_slips(DRIVER),
        ),
        Question(
            "A container started by containerd finds /dev/nvidia0 and the driver's user-space "
            "libraries inside it without the image shipping them.",
            TOOLKIT,
            "the NVIDIA Container Toolkit hooks the runtime to mount devices and libraries.",
            _op_slips(TOOLKIT),
        ),
        Question(
            "AMD GPU nodes get labels with the GPU family, compute-unit count and VRAM size.",
            LABELS,
            "AMD's node labeller writes those labels.",
            _op_slips(LABELS),
        ),
    ),
)  # fmt: skip

GATEWAY, POOL, EPP, SERVERS = "gateway", "inference-pool", "endpoint-picker", "model-server-pods"
_OBJ_NAMES = {
    GATEWAY: ("object-gateway", "The Gateway credited with another object's job"),
    POOL: ("object-pool", "The InferencePool credited with another object's job"),
    EPP: ("object-epp", "The endpoint picker credited with another object's job"),
    SERVERS: ("object-servers", "The model-server pods credited with another object's job"),
}
_OBJ_DOES = {
    GATEWAY: "The Gateway and its HTTPRoute take traffic in and send it on",
    POOL: "The InferencePool names the serving pods and the picker for them",
    EPP: "The endpoint picker chooses the pod for each request",
    SERVERS: "The vLLM pods hold the weights and run the model",
}


_obj_slips = partial(
    other_options, names=_OBJ_NAMES, feedback=_OBJ_DOES, suffix="; that is not this."
)


OBJECT = Topic(
    part="object",
    label="llm-d object on Kubernetes",
    clue=(
        "A request enters through a gateway, is matched to the pool of pods that serve its "
        "model, has one pod chosen for it by a picker that knows each pod's cache and load, "
        "and is answered by a model server in that pool."
    ),
    choices=(GATEWAY, POOL, EPP, SERVERS),
    meanings=(
        (GATEWAY, "a Gateway API Gateway with its HTTPRoute"),
        (POOL, "an InferencePool"),
        (EPP, "the endpoint picker (EPP) Deployment"),
        (SERVERS, "vLLM Deployments or LeaderWorkerSets"),
    ),
    questions=(
        Question(
            "Where external traffic enters the cluster, with a route sending requests for "
            "the model onward.",
            GATEWAY,
            "the Gateway, with an HTTPRoute, is the entry point.",
            _obj_slips(GATEWAY),
        ),
        Question(
            "The resource that selects, by label, which vLLM pods serve the model and names "
            "the service that chooses among them.",
            POOL,
            "an InferencePool groups the model-server pods and points at their picker.",
            _obj_slips(POOL),
        ),
        Question(
            "The cache-aware router of the routing lesson: it scores each pod by prefix "
            "cache hits, queue length and KV-cache use and picks one.",
            EPP,
            "the endpoint picker is llm-d's inference scheduler.",
            _obj_slips(EPP),
        ),
        Question(
            "The prefill pool and the decode pool of disaggregated serving.",
            SERVERS,
            "both pools are vLLM pods, labelled by role, in the model's InferencePool.",
            _obj_slips(SERVERS),
        ),
        Question(
            "The model servers of the earlier lessons, each holding the weights and its own "
            "KV cache.",
            SERVERS,
            "each model server is a vLLM pod on GPUs.",
            _obj_slips(SERVERS),
        ),
    ),
)  # fmt: skip


@register
class K8sGpuComponents(ConceptTemplate):
    slug = "k8s-gpu-components"
    title = "What a GPU operator installs, and what llm-d runs as on Kubernetes"
    family = "concepts"
    lessons = ("gpus-on-kubernetes", "llm-d-on-kubernetes")
    skills = ("kubernetes-gpus",)
    INTRO = (
        "A platform team runs 24 GPU nodes on Kubernetes with NVIDIA's and AMD's GPU operators, "
        "and serves a model with llm-d. Answer two questions: which GPU operator component "
        "does a job, and which Kubernetes object of the llm-d deployment a piece is."
    )
    TOPICS = (OPERATOR, OBJECT)
