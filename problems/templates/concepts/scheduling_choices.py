"""scheduling-choices: why a multi-GPU job must be placed all at once (gang scheduling)
and what partial placement does to a shared cluster, and when a team should run Slurm
or Kubernetes.

Two parts, each one situation from its bank (problems/templates/concepts/_bank.py).
Facts: Kubernetes' default scheduler places one pod at a time, so two multi-pod jobs can
each hold part of what they need (the reason Kueue, Volcano and the scheduler-plugins'
coscheduling PodGroup exist: admit or place a job's pods all together); Slurm grants a
job's whole allocation at once (sbatch/srun with --nodes and --gpus-per-node) and
backfills short jobs around waiting ones (Slurm's documentation); Kubernetes is built
for long-running services (Deployments, rolling updates, autoscaling). Sentences are
ours.
"""

from __future__ import annotations

from problems.engine.registry import register
from problems.templates.concepts._bank import ConceptTemplate, Question, Slip, Topic

STALL, HELD, WAITS, BOTH = "both-stall", "idle-held", "one-waits", "both-run"
NODES = "The cluster has nodes of 8 GPUs each; each job is two pods (or tasks) of 8 GPUs."
PLACEMENT = Topic(
    part="placement",
    label="What happens to the two multi-GPU jobs",
    clue=(
        "A job of several pods can start only when all of them hold their GPUs. A "
        "scheduler that places pods one at a time can give each job part of what it needs, "
        "and the parts it holds sit idle; gang scheduling places a job's pods together or "
        "not at all."
    ),
    choices=(STALL, HELD, WAITS, BOTH),
    meanings=(
        (STALL, "each job holds part of its GPUs and neither starts"),
        (HELD, "one runs; the other holds GPUs idle while it waits"),
        (WAITS, "one runs; the other waits holding nothing"),
        (BOTH, "both run"),
    ),
    questions=(
        Question(
            f"{NODES} 16 GPUs are free, on two nodes. Jobs A and B arrive together under "
            "Kubernetes' default scheduler, which binds A's first pod and B's first pod "
            "first.",
            STALL,
            "each job holds 8 GPUs and waits for 8 more that the other holds: a deadlock.",
            (
                Slip(HELD, "partial-deadlock-missed", "A deadlock read as one job running",
                     "Neither job has both pods placed, so neither can start."),
                Slip(WAITS, "gang-assumed", "Gang scheduling assumed where there is none",
                     "The default scheduler binds pods one at a time; nothing keeps the "
                     "two jobs from splitting the GPUs."),
                Slip(BOTH, "capacity-double-counted", "The free GPUs counted twice",
                     "16 free GPUs hold one 16-GPU job, not two."),
            ),
        ),
        Question(
            f"{NODES} 16 GPUs are free. Jobs A and B arrive together, both queued through "
            "Kueue, which admits a job only when all its pods fit.",
            WAITS,
            "Kueue admits one job whole; the other stays queued with no GPUs held.",
            (
                Slip(STALL, "gang-ignored", "Gang admission ignored",
                     "Kueue admits all of a job's pods or none, so no partial holds form."),
                Slip(HELD, "gang-holds-partial", "A gang-scheduled job thought to hold part",
                     "A job waiting in Kueue holds nothing until all of it fits."),
                Slip(BOTH, "capacity-double-counted", "The free GPUs counted twice",
                     "16 free GPUs hold one 16-GPU job, not two."),
            ),
        ),
        Question(
            f"{NODES} 16 GPUs are free. Jobs A and B are submitted to Slurm with sbatch "
            "--nodes=2 --gpus-per-node=8.",
            WAITS,
            "Slurm grants a job's whole allocation at once: one runs, the other pends "
            "holding nothing.",
            (
                Slip(STALL, "slurm-partial", "Slurm thought to grant part of an allocation",
                     "Slurm starts a job only when its whole allocation is free."),
                Slip(HELD, "slurm-holds-partial", "A pending Slurm job thought to hold GPUs",
                     "A pending job holds no nodes; they stay free for others (and for "
                     "backfill)."),
                Slip(BOTH, "capacity-double-counted", "The free GPUs counted twice",
                     "16 free GPUs hold one 16-GPU job, not two."),
            ),
        ),
        Question(
            f"{NODES} 24 GPUs are free, on three nodes. Under Kubernetes' default "
            "scheduler A's two pods bind first, then B's first pod.",
            HELD,
            "A runs on 16; B's first pod holds the last 8 GPUs idle until a second node "
            "frees up.",
            (
                Slip(STALL, "deadlock-overcalled", "A deadlock seen where one job runs",
                     "A has both pods and runs; only B waits."),
                Slip(WAITS, "idle-hold-missed", "B's idle GPUs missed",
                     "B's first pod is bound and holds 8 GPUs that nothing uses while it "
                     "waits: the waste gang scheduling avoids."),
                Slip(BOTH, "capacity-double-counted", "The free GPUs counted twice",
                     "24 free GPUs hold one 16-GPU job and half of another."),
            ),
        ),
        Question(
            f"{NODES} 32 GPUs are free, on four nodes. Jobs A and B arrive under "
            "Kubernetes' default scheduler.",
            BOTH,
            "32 GPUs hold both 16-GPU jobs whatever order the pods bind in.",
            (
                Slip(STALL, "deadlock-without-shortage", "A deadlock seen with room for both",
                     "A deadlock needs a shortage; with 32 free GPUs every pod binds."),
                Slip(HELD, "idle-without-shortage", "An idle hold seen with room for both",
                     "Every pod finds a node; nothing waits."),
                Slip(WAITS, "queue-without-shortage", "A wait seen with room for both",
                     "There is room for both jobs at once."),
            ),
        ),
    ),
)  # fmt: skip

SLURM, K8S = "slurm", "kubernetes"
CHOICE = Topic(
    part="choice",
    label="Slurm or Kubernetes for this team",
    clue=(
        "Slurm is a batch scheduler for jobs that start, run and end, shared through "
        "queues, priorities, fair-share and backfill; Kubernetes runs services and "
        "everything around them, and needs an added batch layer (Kueue, Volcano) to "
        "schedule multi-node jobs well."
    ),
    choices=(SLURM, K8S),
    questions=(
        Question(
            "A research group of 40 shares 64 GPU nodes for multi-node training runs "
            "submitted as batch scripts, with fair-share between projects, time limits and "
            "backfill; it serves no models.",
            SLURM,
            "batch jobs shared by queues, fair-share and backfill are what Slurm is built for.",
            (
                Slip(K8S, "services-stack-for-batch", "A services platform chosen for pure batch",
                     "Kubernetes would need Kueue or Volcano added to do what Slurm does out "
                     "of the box for these jobs."),
            ),
        ),
        Question(
            "A product team serves six models behind autoscaled endpoints with rolling "
            "updates, and runs a weekly fine-tuning job on the same GPUs.",
            K8S,
            "long-running services with autoscaling and rolling updates are Kubernetes' "
            "home; the weekly job fits with a batch add-on.",
            (
                Slip(SLURM, "batch-stack-for-services", "A batch scheduler chosen for services",
                     "Slurm runs jobs that end; autoscaled endpoints with rolling updates "
                     "are what Kubernetes is for."),
            ),
        ),
        Question(
            "A company runs every application on Kubernetes with GitOps and one "
            "observability stack; its new GPU training jobs are a small share of the work.",
            K8S,
            "one platform the company already runs, with Kueue for the training jobs, beats "
            "a second stack for a small share of the work.",
            (
                Slip(SLURM, "second-stack-for-minority",
                     "A second stack built for a minority of the work",
                     "A separate Slurm cluster means two platforms to run for a small share "
                     "of the work; Kubernetes with a batch layer covers it."),
            ),
        ),
        Question(
            "A lab's users log in to a head node, compile MPI codes and need exclusive "
            "whole-node allocations, job accounting per grant and a maintenance drain of "
            "nodes between jobs.",
            SLURM,
            "whole-node allocations, accounting and draining between jobs are everyday "
            "Slurm.",
            (
                Slip(K8S, "services-stack-for-batch", "A services platform chosen for pure batch",
                     "Interactive HPC users with accounting per grant fit Slurm's model; "
                     "Kubernetes would need much built around it."),
            ),
        ),
    ),
)  # fmt: skip


@register
class SchedulingChoices(ConceptTemplate):
    slug = "scheduling-choices"
    title = "Placing multi-GPU jobs all at once, and Slurm or Kubernetes"
    family = "concepts"
    lessons = ("scheduling-gpu-clusters",)
    skills = ("gang-scheduling", "slurm", "kubernetes-batch")
    INTRO = (
        "Answer two questions about scheduling a shared GPU cluster: what happens to two "
        "multi-GPU jobs depending on whether they are placed all at once (gang "
        "scheduling), and whether a team should run Slurm or Kubernetes."
    )
    TOPICS = (PLACEMENT, CHOICE)
