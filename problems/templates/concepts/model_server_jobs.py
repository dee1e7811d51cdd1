"""model-server-jobs: the jobs a model server such as vLLM does besides running the model
(the HTTP API, queueing and scheduling, KV-cache memory), how serving's costs differ from
training's, and what each serving stack adds.

Three parts, each one situation from its bank (problems/templates/concepts/_bank.py).
Facts from the projects' documentation: vLLM's OpenAI-compatible server tokenizes and
streams (server-sent events), its scheduler picks the running batch at every step up to
max-num-seqs, its block manager allocates KV-cache blocks and preempts when they run out
(PagedAttention, Kwon et al., SOSP 2023); SGLang's RadixAttention keeps shared prefixes
in a radix tree; TensorRT-LLM builds an optimized engine for NVIDIA GPUs ahead of time;
Triton Inference Server serves models of many frameworks (TensorRT, ONNX, PyTorch,
Python backends) with dynamic batching and ensembles; KServe runs servers as Kubernetes
InferenceServices with autoscaling and canary rollouts. Training's memory of about 16
bytes per parameter (weights, gradients, Adam state in mixed precision) is ZeRO's
accounting (Rajbhandari et al., 2020). Sentences are ours.
"""

from __future__ import annotations

from functools import partial

from problems.engine.registry import register
from problems.templates.concepts._bank import ConceptTemplate, Question, Slip, Topic, other_options

API, SCHED, KV, RUNNER = "http-api", "scheduler", "kv-cache-manager", "model-runner"
_JOB_NAMES = {
    API: ("job-as-api", "The API server credited with another job"),
    SCHED: ("job-as-scheduler", "The scheduler credited with another job"),
    KV: ("job-as-kv-manager", "The KV-cache manager credited with another job"),
    RUNNER: ("job-as-model-runner", "The model runner credited with another job"),
}
_JOB_DOES = {
    API: "The API server speaks HTTP: it tokenizes requests and streams tokens back",
    SCHED: "The scheduler decides which requests run in each step and which wait",
    KV: "The KV-cache manager hands out and reclaims cache blocks",
    RUNNER: "The model runner executes the forward pass on the GPUs",
}


_job_slips = partial(
    other_options, names=_JOB_NAMES, feedback=_JOB_DOES, suffix="; this is another job."
)


JOB = Topic(
    part="job",
    label="Part of the model server that does it",
    clue=(
        "Around the forward pass a model server runs an HTTP front end, a scheduler that "
        "forms each step's batch from the requests waiting, and a memory manager for the "
        "KV cache; the model itself is only one of its jobs."
    ),
    choices=(API, SCHED, KV, RUNNER),
    questions=(
        Question(
            "A chat request arrives as JSON; it must become token ids, and the answer must "
            "go back token by token as server-sent events.",
            API,
            "tokenizing and streaming belong to the OpenAI-compatible HTTP server.",
            _job_slips(API),
        ),
        Question(
            "The batch already holds max-num-seqs sequences; three new requests must wait "
            "and join as others finish.",
            SCHED,
            "holding requests and admitting them step by step is the scheduler's job.",
            _job_slips(SCHED),
        ),
        Question(
            "A sequence grows past its last KV block; it needs another, and when none is "
            "free one sequence must be preempted.",
            KV,
            "allocating and reclaiming KV blocks is the cache manager's job.",
            _job_slips(KV),
        ),
        Question(
            "The attention and MLP layers of all 80 layers run for this step's batch on "
            "the GPUs.",
            RUNNER,
            "executing the forward pass is the model runner's job.",
            _job_slips(RUNNER),
        ),
        Question(
            "Each step, which of the running and waiting requests are in the batch, and "
            "how many prompt tokens of a long prefill go in this step?",
            SCHED,
            "choosing the step's batch and its token budget is scheduling.",
            _job_slips(SCHED),
        ),
    ),
)  # fmt: skip

SERVING, TRAINING = "serving", "training"
COST = Topic(
    part="cost",
    label="Serving or training cost profile",
    clue=(
        "Training is one long compute-bound run with a budget in GPU-hours; serving is a "
        "service sized for peak traffic and a latency target, paid per token, whose decode "
        "waits on memory."
    ),
    choices=(SERVING, TRAINING),
    questions=(
        Question(
            "Its cost is a fixed budget of GPU-hours for a run of several weeks, judged by "
            "model FLOPs utilisation.",
            TRAINING,
            "a training run is one long job whose efficiency is MFU.",
            (Slip(SERVING, "serving-as-fixed-run", "A fixed-length run taken for serving",
                  "Serving never ends; it is sized for traffic, not for one run."),),
        ),
        Question(
            "It is sized for the evening peak and sits half idle at night; its price is "
            "quoted per million tokens under a latency target.",
            SERVING,
            "capacity for peak load and a per-token price are serving's profile.",
            (Slip(TRAINING, "training-as-peak-sized", "Peak sizing taken for training",
                  "A training run keeps its GPUs busy to the end; peaks and latency "
                  "targets belong to serving."),),
        ),
        Question(
            "Its memory holds weights, gradients and optimizer state, about 16 bytes per "
            "parameter in mixed precision with Adam.",
            TRAINING,
            "gradients and optimizer state exist only while training.",
            (Slip(SERVING, "serving-holds-optimizer", "Optimizer state thought kept when serving",
                  "Serving keeps the weights and the KV cache; no gradients, no optimizer "
                  "state."),),
        ),
        Question(
            "At small batch its speed is set by memory bandwidth, since every token "
            "re-reads all the weights.",
            SERVING,
            "token-by-token decode is serving's memory-bound phase.",
            (Slip(TRAINING, "training-as-memory-bound", "Training taken for memory-bound decode",
                  "Training processes large batches of whole sequences: compute-bound."),),
        ),
    ),
)  # fmt: skip

VLLM, SGLANG, TRT, TRITON, KSERVE = "vllm", "sglang", "tensorrt-llm", "triton-server", "kserve"
_STACK_LABELS = {
    VLLM: "vLLM",
    SGLANG: "SGLang",
    TRT: "TensorRT-LLM",
    TRITON: "Triton Inference Server",
    KSERVE: "KServe",
}
_STACK_NAMES = {
    c: (f"stack-{c}", f"{label} credited with another stack's feature")
    for c, label in _STACK_LABELS.items()
}
_STACK_DOES = {
    VLLM: "vLLM is the open engine that brought PagedAttention and runs on many vendors",
    SGLANG: "SGLang adds RadixAttention's prefix tree and a language for structured calls",
    TRT: "TensorRT-LLM compiles an engine for NVIDIA GPUs ahead of time",
    TRITON: "Triton Inference Server serves models of many frameworks with ensembles",
    KSERVE: "KServe runs servers on Kubernetes with autoscaling and rollouts",
}


_stack_slips = partial(
    other_options, names=_STACK_NAMES, feedback=_STACK_DOES, suffix="; that is not this."
)


STACK = Topic(
    part="stack",
    label="Serving stack",
    clue=(
        "Engines run LLMs fast on GPUs and differ in how (paging, prefix trees, compiled "
        "kernels); general inference servers host many kinds of model; Kubernetes "
        "platforms deploy and scale whichever server runs inside."
    ),
    choices=(VLLM, SGLANG, TRT, TRITON, KSERVE),
    meanings=tuple(_STACK_LABELS.items()),
    questions=(
        Question(
            "Builds an optimized engine for a model ahead of time, for NVIDIA GPUs only.",
            TRT,
            "TensorRT-LLM compiles a model into an engine tuned for NVIDIA hardware.",
            _stack_slips(TRT),
        ),
        Question(
            "The open-source engine that introduced PagedAttention, with an "
            "OpenAI-compatible server and builds for NVIDIA, AMD and TPU.",
            VLLM,
            "vLLM introduced PagedAttention and ships an OpenAI-compatible server.",
            _stack_slips(VLLM),
        ),
        Question(
            "Keeps the KV cache of shared prefixes in a radix tree (RadixAttention) and "
            "offers a frontend language for multi-call programs.",
            SGLANG,
            "RadixAttention and its frontend language are SGLang's.",
            _stack_slips(SGLANG),
        ),
        Question(
            "Serves models from many frameworks (TensorRT, ONNX, PyTorch, Python backends) "
            "behind one server, with dynamic batching and ensembles.",
            TRITON,
            "a general inference server for many frameworks is Triton Inference Server.",
            _stack_slips(TRITON),
        ),
        Question(
            "Deploys a model server as a Kubernetes InferenceService that scales with "
            "traffic and rolls out new versions as canaries.",
            KSERVE,
            "KServe is the Kubernetes layer that deploys and scales servers.",
            _stack_slips(KSERVE),
        ),
    ),
)  # fmt: skip


@register
class ModelServerJobs(ConceptTemplate):
    slug = "model-server-jobs"
    title = "What a model server does, serving's cost profile, and the serving stacks"
    family = "concepts"
    lessons = (
        "vllm-and-the-job-of-a-model-server",
        "prefill-decode-and-the-cost-of-a-token",
        "serving-models",
    )
    skills = ("model-servers", "serving-capacity", "cost-per-token")
    INTRO = (
        "A team moves a 70B model from a notebook to a model server such as vLLM. Answer three "
        "questions: which part of the server does a job besides running the model, whether "
        "a cost belongs to serving or to training, and which serving stack adds a feature."
    )
    TOPICS = (JOB, COST, STACK)
