"""framework-layers: where the distributed-training software sits between model code and
the cluster (the framework, a parallelism library, the collective library, a distributed
runtime, the cluster layer), and which layer owns process launch, rank assignment,
communication and placement.

Two parts, each one situation from its bank (problems/templates/concepts/_bank.py).
Facts from each project's documentation: PyTorch's torch.distributed and JAX as
frameworks; FSDP (torch.distributed.fsdp), DeepSpeed ZeRO and Megatron-LM's tensor and
pipeline parallelism as ways to split a model and its state; NCCL (and AMD's RCCL) as
the collective library that moves the bytes; torchrun, which starts one process per GPU
and sets RANK, LOCAL_RANK and WORLD_SIZE through its rendezvous ("torchrun (Elastic
Launch)"), or Slurm's srun (SLURM_PROCID); Ray's tasks and actors on its own cluster;
KubeRay, the operator that runs Ray clusters as Kubernetes resources (RayCluster,
RayJob). Sentences are ours.
"""

from __future__ import annotations

from problems.engine.registry import register
from problems.templates.concepts._bank import ConceptTemplate, Question, Slip, Topic, other_options

FW, PAR, COLL = "framework", "parallelism-library", "collective-library"
RT, CLUSTER = "distributed-runtime", "cluster-layer"
_NAMES = {
    FW: ("placed-as-framework", "Placed in the framework layer"),
    PAR: ("placed-as-parallelism", "Placed in the parallelism layer"),
    COLL: ("placed-as-collectives", "Placed in the collective-library layer"),
    RT: ("placed-as-runtime", "Placed in the distributed-runtime layer"),
    CLUSTER: ("placed-as-cluster", "Placed in the cluster layer"),
}


def _slips(answer: str, why: dict[str, str]) -> tuple[Slip, ...]:
    return other_options(answer, _NAMES, why)


STACK = Topic(
    part="stack",
    label="Layer of the stack under model code",
    clue=(
        "From the model code down: the framework gives tensors, gradients and a "
        "distributed API; a parallelism library decides how the model and its state are "
        "split over GPUs; a collective library moves the bytes between GPUs; a runtime "
        "starts and schedules work across machines; the cluster layer owns the machines."
    ),
    choices=(FW, PAR, COLL, RT, CLUSTER),
    meanings=(
        (FW, "tensors, autograd and the distributed API"),
        (PAR, "how the model and its state are split over GPUs"),
        (COLL, "moves tensors between GPUs"),
        (RT, "starts and schedules work across machines"),
        (CLUSTER, "owns the machines and places jobs on them"),
    ),
    questions=(
        Question(
            "NCCL, which an all-reduce of gradients calls to send them over NVLink and "
            "InfiniBand.",
            COLL,
            "NCCL implements the collectives that move tensors between GPUs.",
            _slips(COLL, {
                FW: "The framework calls NCCL through its distributed API; NCCL itself "
                    "moves the bytes.",
                PAR: "NCCL does not decide how a model is split; it carries whatever the "
                     "split needs to exchange.",
                RT: "NCCL starts no processes; it connects the ones already running.",
                CLUSTER: "NCCL runs inside the job's processes, not in the scheduler.",
            }),
        ),
        Question(
            "DeepSpeed's ZeRO stage 3, which shards parameters, gradients and optimizer "
            "state over the data-parallel GPUs.",
            PAR,
            "ZeRO is a way of splitting the model's state over GPUs: a parallelism library.",
            _slips(PAR, {
                FW: "DeepSpeed builds on PyTorch; the sharding strategy is a layer above "
                    "the framework's tensors.",
                COLL: "ZeRO calls collectives to gather shards; it does not implement them.",
                RT: "The DeepSpeed launcher can start processes, but ZeRO itself is a "
                    "sharding strategy.",
                CLUSTER: "ZeRO runs inside the training processes, not in the scheduler.",
            }),
        ),
        Question(
            "JAX, in which the model code is written and jit-compiled, with sharding "
            "annotations over a device mesh.",
            FW,
            "JAX is the framework: arrays, transformations and the API model code calls.",
            _slips(FW, {
                PAR: "JAX's sharding API expresses a split, but JAX itself is the framework "
                     "the model is written in.",
                COLL: "JAX's compiler emits collectives run by libraries such as NCCL; JAX "
                      "is the layer above them.",
                RT: "JAX runs inside processes something else starts.",
                CLUSTER: "JAX does not own machines or place jobs.",
            }),
        ),
        Question(
            "Ray, which starts actors on the machines of its cluster and schedules tasks "
            "onto them by the GPUs they ask for.",
            RT,
            "Ray is a distributed runtime: it starts and places work across its nodes.",
            _slips(RT, {
                FW: "Ray runs model code written in a framework; it is not one.",
                PAR: "Ray decides where work runs, not how a model is split.",
                COLL: "Ray can pass objects between workers, but GPU collectives are NCCL's.",
                CLUSTER: "Ray schedules inside the nodes it was given; the machines "
                         "themselves are the cluster layer's (Kubernetes, Slurm).",
            }),
        ),
        Question(
            "KubeRay, the operator that creates a RayCluster as Kubernetes pods and scales "
            "its workers.",
            CLUSTER,
            "KubeRay lives in Kubernetes: it turns a Ray cluster into pods that the "
            "cluster layer places.",
            _slips(CLUSTER, {
                FW: "KubeRay runs no model code.",
                PAR: "KubeRay does not split models; it provides Ray's nodes.",
                COLL: "KubeRay moves no tensors.",
                RT: "Ray is the runtime; KubeRay is the Kubernetes operator that gives Ray "
                    "its pods.",
            }),
        ),
        Question(
            "Megatron-LM's tensor parallelism, which splits each attention and MLP matrix "
            "across the GPUs of a node.",
            PAR,
            "splitting layers' matrices over GPUs is a parallelism library's job.",
            _slips(PAR, {
                FW: "Megatron-LM builds on PyTorch; its tensor parallelism is a strategy "
                    "above the framework.",
                COLL: "Tensor parallelism needs all-reduces, which NCCL runs; Megatron-LM "
                      "decides the split.",
                RT: "Megatron-LM does not start or schedule processes across machines.",
                CLUSTER: "The split happens inside the training job, not in the scheduler.",
            }),
        ),
    ),
)  # fmt: skip

LAUNCHER, FRAMEWORK_API, COLLECTIVES, SCHEDULER = (
    "launcher",
    "framework",
    "collectives",
    "scheduler",
)
OWNER = Topic(
    part="owner",
    label="Layer that owns the job",
    clue=(
        "A distributed job is set up in turn: the scheduler grants machines, a launcher "
        "starts one process per GPU and tells each who it is, the framework forms the "
        "process group from that, and the collective library moves data between them."
    ),
    choices=(LAUNCHER, FRAMEWORK_API, COLLECTIVES, SCHEDULER),
    meanings=(
        (LAUNCHER, "torchrun, srun or Ray"),
        (FRAMEWORK_API, "the framework's distributed API, e.g. init_process_group"),
        (COLLECTIVES, "NCCL or RCCL"),
        (SCHEDULER, "Slurm or Kubernetes"),
    ),
    questions=(
        Question(
            "Starting eight training processes on each of four nodes, one per GPU.",
            LAUNCHER,
            "torchrun (or srun) starts the processes on each node.",
            (
                Slip(FRAMEWORK_API, "framework-starts-processes",
                     "The framework thought to start processes",
                     "init_process_group joins processes that already run; something else "
                     "starts them."),
                Slip(COLLECTIVES, "nccl-starts-processes", "NCCL thought to start processes",
                     "NCCL connects running processes; it starts none."),
                Slip(SCHEDULER, "scheduler-starts-ranks",
                     "The scheduler thought to start the ranks",
                     "The scheduler grants the nodes and runs one command there; the "
                     "launcher fans it out to one process per GPU."),
            ),
        ),
        Question(
            "Giving each of the 32 processes its global rank and the world size, as RANK "
            "and WORLD_SIZE.",
            LAUNCHER,
            "torchrun's rendezvous (or srun's SLURM_PROCID) assigns the ranks and sets "
            "the variables.",
            (
                Slip(FRAMEWORK_API, "framework-assigns-ranks",
                     "The framework thought to assign ranks",
                     "init_process_group reads RANK and WORLD_SIZE; it does not choose them."),
                Slip(COLLECTIVES, "nccl-assigns-ranks", "NCCL thought to assign ranks",
                     "NCCL is told each rank when its communicator is created."),
                Slip(SCHEDULER, "scheduler-assigns-ranks", "The scheduler thought to assign ranks",
                     "The scheduler knows nodes, not the processes on them; the launcher "
                     "numbers those."),
            ),
        ),
        Question(
            "Sending a 2 GB gradient bucket between the GPUs in a ring during the "
            "all-reduce.",
            COLLECTIVES,
            "the bytes are moved by NCCL's ring over NVLink and the network.",
            (
                Slip(LAUNCHER, "launcher-moves-data", "The launcher thought to move data",
                     "torchrun's job ends once the processes run and know their ranks."),
                Slip(FRAMEWORK_API, "framework-moves-bytes",
                     "The framework thought to move the bytes",
                     "dist.all_reduce hands the buffer to NCCL, which moves it."),
                Slip(SCHEDULER, "scheduler-moves-data", "The scheduler thought to move data",
                     "The scheduler takes no part once the job runs."),
            ),
        ),
        Question(
            "Deciding which four nodes, with eight free GPUs each, the job runs on.",
            SCHEDULER,
            "Slurm or Kubernetes allocates the nodes before anything starts.",
            (
                Slip(LAUNCHER, "launcher-picks-nodes", "The launcher thought to pick nodes",
                     "torchrun runs on nodes it is given; it does not choose them."),
                Slip(FRAMEWORK_API, "framework-picks-nodes", "The framework thought to pick nodes",
                     "The framework starts inside processes already placed."),
                Slip(COLLECTIVES, "nccl-picks-nodes", "NCCL thought to pick nodes",
                     "NCCL connects whatever processes exist."),
            ),
        ),
        Question(
            "Forming the process group that later collectives run in, from MASTER_ADDR, "
            "RANK and WORLD_SIZE.",
            FRAMEWORK_API,
            "torch.distributed.init_process_group forms the group from the launcher's "
            "variables.",
            (
                Slip(LAUNCHER, "launcher-forms-group", "The launcher thought to form the group",
                     "The launcher sets the variables; the framework's call forms the group "
                     "from them."),
                Slip(COLLECTIVES, "nccl-forms-group", "NCCL thought to form the process group",
                     "The framework creates the NCCL communicator inside its process group."),
                Slip(SCHEDULER, "scheduler-forms-group", "The scheduler thought to form the group",
                     "The scheduler hands out nodes; it knows nothing of process groups."),
            ),
        ),
    ),
)  # fmt: skip


@register
class FrameworkLayers(ConceptTemplate):
    slug = "framework-layers"
    title = "Distributed training's software layers and what each owns"
    family = "concepts"
    lessons = ("ray-distributed-ai-frameworks",)
    skills = ("distributed-frameworks", "distributed-launch")
    INTRO = (
        "A team trains a model over 4 nodes of 8 GPUs each. Answer two questions about "
        "the software between its model code and the cluster: where a piece sits in "
        "that stack, and which layer owns process launch, rank assignment, communication "
        "or placement."
    )
    TOPICS = (STACK, OWNER)
