"""rdma-fabrics: what RDMA and GPUDirect RDMA take out of the data path (the kernel's
network stack, the CPU's copies, the bounce through host memory), and how InfiniBand
and RoCE each provide RDMA.

Two parts, each one situation from its bank (problems/templates/concepts/_bank.py).
Facts: RDMA verbs post work requests from user space to the NIC, which reads and writes
registered memory directly (kernel bypass, zero copy; the InfiniBand Architecture
Specification and the RDMA core documentation); GPUDirect RDMA lets the NIC read and
write GPU memory over PCIe without staging in host memory (NVIDIA's GPUDirect RDMA
documentation; NCCL's NET/IB transport); InfiniBand is lossless by link-level credit
flow control and managed by a subnet manager; RoCE v2 carries the same transport in UDP
(port 4791) over IP, routable on Ethernet, and relies on priority flow control and ECN
(DCQCN) to avoid loss under congestion (the IBTA RoCE v2 annex). Sentences are ours.
"""

from __future__ import annotations

from problems.engine.registry import register
from problems.templates.concepts._bank import ConceptTemplate, Question, Slip, Topic

KERNEL, COPY, HOST = "kernel-stack", "cpu-copies", "host-memory-bounce"
REMOVED = Topic(
    part="removed",
    label="What leaves the data path (RDMA, GPUDirect)",
    clue=(
        "A TCP send goes through a system call and the kernel's network stack, is copied "
        "by the CPU into socket buffers, and, for a GPU buffer, first staged in host "
        "memory; each of RDMA, zero-copy and GPUDirect takes one of these out."
    ),
    choices=(KERNEL, COPY, HOST),
    meanings=(
        (KERNEL, "the system call and the kernel's network stack"),
        (COPY, "the CPU copying data between buffers"),
        (HOST, "staging a GPU buffer in host memory"),
    ),
    questions=(
        Question(
            "With RDMA the application posts a work request from user space straight to "
            "the NIC's queue, instead of calling send() on a TCP socket.",
            KERNEL,
            "posting to the NIC from user space bypasses the kernel and its TCP stack.",
            (
                Slip(COPY, "bypass-as-zero-copy", "Kernel bypass taken for zero copy",
                     "Posting from user space removes the system call and the stack; the "
                     "copy is a separate saving."),
                Slip(HOST, "bypass-as-gpudirect", "Kernel bypass taken for GPUDirect",
                     "Host staging of GPU buffers is what GPUDirect removes, not RDMA's "
                     "user-space queues."),
            ),
        ),
        Question(
            "TCP copies the data from the application's buffer into kernel socket buffers "
            "before sending; RDMA's NIC reads the registered buffer itself.",
            COPY,
            "the NIC's DMA from registered memory replaces the CPU's copy (zero copy).",
            (
                Slip(KERNEL, "zero-copy-as-bypass", "Zero copy taken for kernel bypass",
                     "The saving here is the CPU's copy between buffers."),
                Slip(HOST, "zero-copy-as-gpudirect", "Zero copy taken for GPUDirect",
                     "The buffer here is in host memory already; GPUDirect concerns GPU "
                     "buffers."),
            ),
        ),
        Question(
            "Without GPUDirect RDMA, NCCL copies each GPU buffer to pinned host memory "
            "before the NIC sends it. What does GPUDirect RDMA remove?",
            HOST,
            "the NIC reads and writes GPU memory directly over PCIe, with no host staging.",
            (
                Slip(KERNEL, "gpudirect-as-bypass", "GPUDirect taken for kernel bypass",
                     "NCCL over InfiniBand bypasses the kernel either way; GPUDirect removes "
                     "the host-memory hop."),
                Slip(COPY, "gpudirect-as-zero-copy", "GPUDirect taken for plain zero copy",
                     "RDMA is zero-copy from host memory already; GPUDirect removes the "
                     "detour through it."),
            ),
        ),
    ),
)  # fmt: skip

IB, ROCE, BOTH = "infiniband", "roce", "both"
FABRIC = Topic(
    part="fabric",
    label="InfiniBand, RoCE or both",
    clue=(
        "InfiniBand is its own network, lossless by design and run by a subnet manager; "
        "RoCE v2 carries the same RDMA transport over routed Ethernet and has to be made "
        "lossless by configuring the switches."
    ),
    choices=(IB, ROCE, BOTH),
    meanings=((IB, "InfiniBand"), (ROCE, "RoCE v2"), (BOTH, "both")),
    questions=(
        Question(
            "Lossless by link-level credit-based flow control, with a subnet manager "
            "assigning addresses and computing routes.",
            IB,
            "credit flow control and the subnet manager are InfiniBand's own.",
            (
                Slip(ROCE, "ethernet-thought-credit-based", "Ethernet thought lossless by credits",
                     "Ethernet has no credit flow control; RoCE depends on PFC and ECN."),
                Slip(BOTH, "subnet-manager-on-ethernet", "A subnet manager thought to run Ethernet",
                     "RoCE runs on ordinary IP routing; the subnet manager is InfiniBand's."),
            ),
        ),
        Question(
            "Carries RDMA inside UDP/IP packets (port 4791), so it can be routed across an "
            "ordinary IP network.",
            ROCE,
            "RoCE v2 encapsulates the transport in UDP over IP.",
            (
                Slip(IB, "ib-thought-ip", "InfiniBand thought to ride on IP",
                     "InfiniBand has its own link and network layers, not UDP/IP."),
                Slip(BOTH, "ib-thought-ip", "InfiniBand thought to ride on IP",
                     "InfiniBand has its own link and network layers, not UDP/IP."),
            ),
        ),
        Question(
            "Needs priority flow control and ECN set up on every switch so that congestion "
            "does not drop RDMA packets.",
            ROCE,
            "Ethernet drops on congestion unless PFC and ECN make the RDMA class lossless.",
            (
                Slip(IB, "ib-needs-pfc", "InfiniBand thought to need PFC",
                     "InfiniBand is lossless by its credits; PFC is an Ethernet mechanism."),
                Slip(BOTH, "ib-needs-pfc", "InfiniBand thought to need PFC",
                     "InfiniBand is lossless by its credits; PFC is an Ethernet mechanism."),
            ),
        ),
        Question(
            "Lets NCCL move gradients GPU to GPU between nodes with GPUDirect RDMA, "
            "bypassing host memory.",
            BOTH,
            "GPUDirect RDMA works with InfiniBand and RoCE adapters alike.",
            (
                Slip(IB, "gpudirect-ib-only", "GPUDirect thought InfiniBand-only",
                     "RoCE adapters (ConnectX on Ethernet) do GPUDirect RDMA too."),
                Slip(ROCE, "gpudirect-roce-only", "GPUDirect thought RoCE-only",
                     "GPUDirect RDMA began on InfiniBand and works on both."),
            ),
        ),
        Question(
            "Built from the same Ethernet switches, cabling and IP tooling as the rest of "
            "the data centre.",
            ROCE,
            "RoCE runs on Ethernet switches with IP addressing.",
            (
                Slip(IB, "ib-on-ethernet-switches", "InfiniBand thought to use Ethernet switches",
                     "InfiniBand needs InfiniBand switches and a subnet manager."),
                Slip(BOTH, "ib-on-ethernet-switches", "InfiniBand thought to use Ethernet switches",
                     "InfiniBand needs InfiniBand switches and a subnet manager."),
            ),
        ),
    ),
)  # fmt: skip


@register
class RdmaFabrics(ConceptTemplate):
    slug = "rdma-fabrics"
    title = "What RDMA and GPUDirect take out of the path, on InfiniBand and RoCE"
    family = "concepts"
    lessons = ("ai-networking-infiniband-roce",)
    skills = ("rdma",)
    INTRO = (
        "A training cluster moves gradients between nodes with NCCL over RDMA. Answer two "
        "questions: what RDMA and GPUDirect take out of the data path, and whether a "
        "property belongs to InfiniBand, to RoCE or to both."
    )
    TOPICS = (REMOVED, FABRIC)
