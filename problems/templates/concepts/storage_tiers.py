"""storage-tiers: which storage tier suits each thing an AI cluster keeps (local NVMe,
a parallel filesystem, object storage), and what shortens a model server's cold start:
GPUDirect Storage, weights cached near the GPU, or neither.

Two parts, each one situation from its bank (problems/templates/concepts/_bank.py).
Facts: local NVMe is fast and private to a node and lost with it; parallel filesystems
(Lustre, IBM Storage Scale, WEKA and the like) give every node one shared namespace at
aggregate bandwidth that grows with their servers; object storage (S3 and compatible)
is the cheapest durable tier, read by key over HTTP; GPUDirect Storage (NVIDIA's cuFile
and GDS documentation) opens a direct DMA path between storage and GPU memory that skips
the bounce buffer in host memory. Sentences are ours.
"""

from __future__ import annotations

from functools import partial

from problems.engine.registry import register
from problems.templates.concepts._bank import ConceptTemplate, Question, Slip, Topic, other_options

NVME, PFS, OBJECT = "local-nvme", "parallel-fs", "object-storage"
_TIER_NAMES = {
    NVME: ("tier-local-nvme", "Local NVMe chosen where it does not fit"),
    PFS: ("tier-parallel-fs", "A parallel filesystem chosen where it does not fit"),
    OBJECT: ("tier-object-storage", "Object storage chosen where it does not fit"),
}
_TIER_IS = {
    NVME: "Local NVMe is fast but private to one node and lost with it",
    PFS: "A parallel filesystem is shared by all nodes at high bandwidth, and costly per byte",
    OBJECT: "Object storage is cheap and durable but slow to reach and not a filesystem",
}


_tier_slips = partial(
    other_options, names=_TIER_NAMES, feedback=_TIER_IS, suffix="; that does not suit this."
)


TIER = Topic(
    part="tier",
    label="Storage tier",
    clue=(
        "Match each dataset to how it is read: by many nodes at once and fast, by one node "
        "over and over, or rarely but for years; the fast tiers cost more per byte and the "
        "node-local one is lost with its node."
    ),
    choices=(NVME, PFS, OBJECT),
    meanings=(
        (NVME, "local NVMe in each node"),
        (PFS, "a parallel filesystem such as Lustre"),
        (OBJECT, "object storage such as S3"),
    ),
    questions=(
        Question(
            "A 40 TB tokenized training dataset that 64 nodes read together every epoch, "
            "at hundreds of GB/s in aggregate.",
            PFS,
            "many nodes reading one dataset fast need a shared filesystem with aggregate "
            "bandwidth.",
            _tier_slips(PFS),
        ),
        Question(
            "A 10 PB archive of crawled web pages, read a few times a year to build new "
            "datasets, to be kept for years.",
            OBJECT,
            "rarely read, huge and long-lived: the cheapest durable tier.",
            _tier_slips(OBJECT),
        ),
        Question(
            "A node's own 1 TB shard of the data, reread every epoch, and the staging area "
            "where checkpoints land before draining to shared storage.",
            NVME,
            "node-private, rewritable and fast: local NVMe.",
            _tier_slips(NVME),
        ),
        Question(
            "A 2 TB checkpoint that all 512 ranks write at once every hour, and that any "
            "node must read back after a failure.",
            PFS,
            "a shared namespace every node reaches, fast enough for a burst of writes.",
            _tier_slips(PFS),
        ),
        Question(
            "Released model weights kept by version for deployment in several regions.",
            OBJECT,
            "durable, versioned and reachable from anywhere: object storage.",
            _tier_slips(OBJECT),
        ),
        Question(
            "A serving node's copy of the 140 GB of weights it loads at every restart.",
            NVME,
            "a local cache next to the GPU turns a network download into a disk read.",
            _tier_slips(NVME),
        ),
    ),
)  # fmt: skip

GDS, CACHE, GPU = "gpudirect-storage", "cached-weights", "faster-gpu"
COLD = Topic(
    part="coldstart",
    label="What shortens the cold start",
    clue=(
        "A cold start reads the weights from wherever they are kept, through host memory, "
        "into the GPU: keep them close to cut the distance, or send them straight into GPU "
        "memory to cut the hop through host memory."
    ),
    choices=(GDS, CACHE, GPU),
    meanings=(
        (GDS, "GPUDirect Storage"),
        (CACHE, "weights cached on the node"),
        (GPU, "a faster GPU model"),
    ),
    questions=(
        Question(
            "Every new replica pulls its 140 GB of weights from object storage in another "
            "zone at about 1 GB/s.",
            CACHE,
            "a copy already on the node's NVMe removes the slow download.",
            (
                Slip(GDS, "gds-for-download", "GPUDirect Storage expected to speed a download",
                     "GDS shortens the path from local or parallel storage into the GPU; it "
                     "cannot speed a cross-zone download."),
                Slip(GPU, "gpu-for-loading", "A faster GPU expected to load weights faster",
                     "Loading waits on storage and links, not on the GPU's compute."),
            ),
        ),
        Question(
            "The weights sit on fast local NVMe, yet loading is slow: the CPU spends its "
            "time copying them through pinned host buffers into the GPU.",
            GDS,
            "GPUDirect Storage DMAs from the NVMe straight into GPU memory, skipping the "
            "host bounce buffer.",
            (
                Slip(CACHE, "cache-already-there", "A cache proposed where the weights are local",
                     "The weights are already on local NVMe; the hop through host memory is "
                     "what remains."),
                Slip(GPU, "gpu-for-loading", "A faster GPU expected to load weights faster",
                     "Loading waits on the copy path, not on the GPU's compute."),
            ),
        ),
        Question(
            "A replica restarted on the same node downloads the same weights again from the "
            "model registry.",
            CACHE,
            "keeping the weights on the node after the first load skips the repeat download.",
            (
                Slip(GDS, "gds-for-download", "GPUDirect Storage expected to speed a download",
                     "The time goes to a network download that GDS does not touch."),
                Slip(GPU, "gpu-for-loading", "A faster GPU expected to load weights faster",
                     "Loading waits on the network, not on the GPU."),
            ),
        ),
        Question(
            "Weights are read from a parallel filesystem at high bandwidth, but through the "
            "page cache and a bounce buffer in host memory before reaching the GPU.",
            GDS,
            "GPUDirect Storage lets supported parallel filesystems DMA into GPU memory "
            "directly.",
            (
                Slip(CACHE, "cache-for-copy-path", "Caching proposed for a copy-path problem",
                     "The read bandwidth is fine; the hop through host memory is the cost."),
                Slip(GPU, "gpu-for-loading", "A faster GPU expected to load weights faster",
                     "Loading waits on the copy path, not on the GPU's compute."),
            ),
        ),
    ),
)  # fmt: skip


@register
class StorageTiers(ConceptTemplate):
    slug = "storage-tiers"
    title = "Storage tiers for datasets, checkpoints and weights, and the cold start"
    family = "concepts"
    lessons = ("storage-data-pipelines",)
    skills = ("storage-tiers",)
    INTRO = (
        "A team plans the storage of a GPU cluster that trains and serves models. Answer "
        "two questions: which storage tier suits a dataset, checkpoint or set of weights, "
        "and what would shorten a model server's cold start."
    )
    TOPICS = (TIER, COLD)
