"""What the planning templates share: the GPU clusters the parallelism question places a
model on, described from hardware_db (the part, its usable memory, the scale-up link
inside a node and the scale-out fabric between nodes), the named wrong choices of that
question, and the latencies each batching policy gives under batching-policy's model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hardware_db import catalog
from problems.engine.numbers import sig
from problems.engine.template import Misconception


@dataclass(frozen=True)
class Cluster:
    """Eight-GPU nodes of one accelerator; the node is the scale-up (NVLink or Infinity
    Fabric) domain, and one NIC per GPU joins the nodes."""

    accelerator: str  # catalog slug
    node: str  # how the node is sold or built
    scale_up: str  # catalog link slug inside the node
    switch: str  # what joins the GPUs of a node
    fabric: str  # catalog link slug between nodes


# Only parts whose scale-up domain is exactly one 8-GPU node: GB200 NVL72 (a 72-GPU
# domain across trays), NVLink-bridged H100 NVL pairs and the PCIe-only L40S would each
# change which split is "inside the domain", so they are left out.
CLUSTERS: dict[str, Cluster] = {
    c.accelerator: c
    for c in (
        Cluster("a100-sxm-80gb", "DGX A100", "nvlink-3", "NVSwitch", "infiniband-hdr"),
        Cluster("h100-sxm", "DGX H100", "nvlink-4", "NVSwitch", "infiniband-ndr"),
        Cluster("h200", "HGX H200", "nvlink-4", "NVSwitch", "infiniband-ndr"),
        Cluster("b200", "DGX B200", "nvlink-5", "NVSwitch", "infiniband-ndr"),
        Cluster(
            "mi300x",
            "8-GPU MI300X platform",
            "infinity-fabric-mi300x",
            "a full mesh",
            "infiniband-ndr",
        ),
        Cluster(
            "mi325x",
            "8-GPU MI325X platform",
            "infinity-fabric-mi300x",
            "a full mesh",
            "roce-400gbe",
        ),
    )
}
GPUS_PER_NODE = 8

DP, FSDP, TP, PP, EP = (
    "data-parallel",
    "fsdp",
    "tensor-parallel",
    "pipeline-parallel",
    "expert-parallel",
)
CHOICES = (DP, FSDP, TP, PP, EP)


def usable_gib(slug: str) -> float:
    """The usable memory a statement gives, in GiB to two decimals."""
    return round(catalog.accelerator(slug).usable_gib, 2)


def gpu_name(slug: str) -> str:
    acc = catalog.accelerator(slug)
    return acc.prose_name


def _short(link: catalog.Link) -> str:
    """A link's name without the catalog's parenthetical ("NVLink 4")."""
    return link.short_name


def scale_up_name(slug: str) -> str:
    """The link inside a node of this cluster, as a statement names it ("NVLink 4")."""
    return _short(catalog.link(CLUSTERS[slug].scale_up))


def cluster_sentence(slug: str) -> str:
    """Nodes, the link inside them and the fabric between them, with per-GPU figures."""
    c = CLUSTERS[slug]
    up, out = catalog.link(c.scale_up), catalog.link(c.fabric)
    nic = sig(out.line_rate_bits_per_s / 1e9)
    return (
        f"The cluster is built from {c.node} nodes: {GPUS_PER_NODE} x {gpu_name(slug)} "
        f"({sig(usable_gib(slug))} GiB usable each), joined inside the node by {_short(up)} "
        f"through {c.switch} at {sig(up.bw_bytes_per_s_per_direction / 1e9)} GB/s per GPU "
        f"per direction. Nodes are connected by {_short(out)}, one {nic} Gb/s NIC per GPU "
        f"({sig(out.bw_bytes_per_s_per_direction / 1e9)} GB/s per GPU per direction), and "
        "there are as many nodes as the job needs."
    )


def choice_slips(
    answer: str, model: str, moe: bool, training: bool, spans_nodes: bool = True
) -> list[Misconception]:
    """The named wrong choices of which-parallelism, given its answer for a model (its
    name, whether it is a mixture of experts) trained or served, and whether it needs
    more than one node. Tensor parallelism for a wide MoE on one node is not among them:
    it is accepted as right (see which_parallelism.also_correct)."""
    slips: dict[str, tuple[str, str]] = {}
    if answer == DP:
        text = "A full replica already fits one GPU: splitting it only adds communication."
        for c in (FSDP, TP, PP) + ((EP,) if moe else ()):
            slips[c] = ("split-when-it-fits", text)
    else:
        slips[DP] = (
            "replica-does-not-fit",
            "Data parallelism keeps a full copy on every GPU, and the copy does not fit in "
            "one GPU's memory after the reserve.",
        )
    if not moe and answer != DP:
        slips[EP] = (
            "expert-parallel-dense",
            f"{model} is dense: it has no experts to place on different GPUs.",
        )
    if not training and answer != DP:
        slips[FSDP] = (
            "fsdp-at-inference",
            "Serving has no gradients or optimizer states to shard, and gathering every "
            "layer's weights for each forward pass would move the whole model per step.",
        )
    if answer in (FSDP, TP) or (answer == EP and not spans_nodes):
        slips[PP] = (
            "pipeline-when-node-fits",
            "One node holds the model, so there is no need to cut it into stages that idle "
            "while the pipeline fills and drains.",
        )
    if answer == FSDP:
        slips[TP] = (
            "tp-before-sharding",
            "Sharding the states already fits; tensor parallelism would shrink every matmul "
            "and put two all-reduces per layer on the critical path of each step.",
        )
    if answer == PP:
        slips[TP] = (
            "tp-across-nodes",
            "The model needs more than one node, and tensor parallelism across nodes puts "
            "two all-reduces per layer on the inter-node network, an order of magnitude "
            "slower than the links inside a node.",
        )
    if answer == EP and spans_nodes:
        slips[TP] = (
            "tp-for-experts",
            "The model needs more than one node and nearly all its weights are experts: "
            "tensor parallelism across the nodes puts two all-reduces per layer on the "
            "network, where placing whole experts moves only the routed tokens.",
        )
    return [Misconception(code, "strategy", c, fb) for c, (code, fb) in slips.items()]


# --- batching-policy: what each policy gives (p is a BatchingParams) ---------------------

STATIC, DYNAMIC, CONT, CHUNKED, DISAGG = (
    "static",
    "dynamic",
    "continuous",
    "chunked-prefill",
    "disaggregated",
)
POLICIES = (STATIC, DYNAMIC, CONT, CHUNKED, DISAGG)


def fill_ms(p: Any) -> float:
    return (p.batch_size - 1) / p.arrival_rps * 1000


def prefill_ms(p: Any) -> float:
    """One prompt's prefill with the GPU to itself; for an embedding model, a full batch."""
    n = p.batch_size if p.workload == "embedding" else 1
    return n * p.prompt_tokens / p.prefill_tok_s * 1000


def figures(p: Any) -> dict[str, float]:
    """The latencies each policy gives, in ms (generation only past `static`)."""
    pre = prefill_ms(p)
    out = {"static": fill_ms(p) + pre, "dynamic": p.max_wait_ms + pre}
    if p.workload == "generation":
        busy = p.output_tokens * p.decode_step_ms + pre  # waiting behind a running batch
        out["static"] = max(out["static"], busy)
        out["dynamic"] = max(out["dynamic"], busy)
        out["step"] = p.decode_step_ms + pre
        out["chunked"] = pre / (1 - p.decode_step_ms / p.tpot_slo_ms)
        out["busy"] = busy
    return out


def meets(p: Any) -> dict[str, bool]:
    f, ttft = figures(p), p.ttft_slo_ms
    ok = {STATIC: f["static"] <= ttft, DYNAMIC: f["dynamic"] <= ttft}
    gen = p.workload == "generation"
    ok[CONT] = gen and f["step"] <= p.tpot_slo_ms and f["step"] <= ttft
    ok[CHUNKED] = gen and f["chunked"] <= ttft
    ok[DISAGG] = gen and prefill_ms(p) <= ttft
    return ok


def policy(p: Any) -> str:
    ok = meets(p)
    return next(name for name in POLICIES if ok[name])


def clear(p: Any) -> bool:
    """Every comparison that decides the answer is at least 10% from its threshold."""
    f, ttft = figures(p), p.ttft_slo_ms
    pairs = [(f["static"], ttft), (f["dynamic"], ttft)]
    if p.workload == "generation":
        pairs += [(f["step"], p.tpot_slo_ms), (f["step"], ttft), (f["chunked"], ttft)]
        pairs += [(prefill_ms(p), ttft)]
    return all(not 0.9 < a / b < 1.1 for a, b in pairs)
