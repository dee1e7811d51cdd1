"""cluster-triage: where to look first when a GPU training job fails, what a collective
that hangs is telling you, and what a driver upgrade left half done looks like.

Three parts, each one situation from its bank (problems/templates/concepts/_bank.py):

- order: the fixed triage order, node and device health first (`nvidia-smi`, the
  kernel log's NVRM Xid lines, ECC, `dcgmi health`), then the network between the
  job's nodes (`ibstat`, nccl-tests), and only then the job's own logs (NVIDIA, "XID
  Errors" and "GPU Debug Guidelines", docs.nvidia.com/deploy/xid-errors and
  docs.nvidia.com/deploy/gpu-debug-guidelines);
- hang: reading a PyTorch NCCL watchdog timeout ("Watchdog caught collective operation
  timeout: WorkNCCL(SeqNum=..., OpType=...)", ProcessGroupNCCL.cpp) with the evidence
  beside it: a rank that never reached the collective, ranks that called different
  collectives at the same sequence number, an InfiniBand completion error (NCCL's
  "NET/IB : Got completion from peer ... with error 12", a transport retry count
  exceeded), or a GPU that fell off the bus (Xid 79) (PyTorch, "Distributed
  communication package", TORCH_NCCL_* debugging variables; NCCL, "Troubleshooting");
- driver: a half-done driver upgrade: new user-space libraries over the old kernel
  module ("Failed to initialize NVML: Driver/library version mismatch", the NVRM "API
  mismatch" line), a Fabric Manager left at the old version on an NVSwitch system (CUDA
  reports "system not yet initialized"), a module never built for the running kernel
  (DKMS), against a fault that is not the driver's (NVIDIA Fabric Manager User Guide;
  NVIDIA Driver Installation Guide; CUDA Runtime API error codes).

Sentences are ours; the facts are the documents' above.
"""

from __future__ import annotations

from problems.engine.registry import register
from problems.templates.concepts._bank import ConceptTemplate, Question, Slip, Topic
from problems.templates.concepts._driver_upgrade import DRIVER

NODE, NET, LOGS = "node-health", "fabric", "job-logs"
ORDER = Topic(
    part="order",
    label="Layer of the triage order",
    clue=(
        "Triage runs in a fixed order, cheapest and most common cause first: the GPUs and "
        "hosts themselves (device list, kernel log, memory errors, health checks), then "
        "the links between the hosts, and the program's own output only once both of "
        "those are known to be clean."
    ),
    choices=(NODE, NET, LOGS),
    meanings=(
        (NODE, "GPU and host health: nvidia-smi, Xid lines in the kernel log, ECC, dcgmi health"),
        (NET, "the network between the nodes: ibstat, link counters, nccl-tests"),
        (LOGS, "the job's own logs and stack traces"),
    ),
    questions=(
        Question(
            "A 512-GPU training job on Slurm died at 03:10. The user pastes its last line, "
            "`RuntimeError: CUDA error: an illegal memory access was encountered`, and asks "
            "you to review their code. Nothing has been checked yet. Where do you look "
            "first?",
            NODE,
            "the kernel log on the job's nodes tells an application fault (Xid 13 or 31) "
            "from a hardware one (Xid 48, 94, 95) in a minute, before anyone reads code.",
            (
                Slip(NET, "triage-network-first", "The network checked before the nodes",
                     "Nothing points at the links yet, and the node checks are cheaper and "
                     "explain an illegal memory access either way: start with the kernel "
                     "log's Xid lines."),
                Slip(LOGS, "triage-code-first", "The job's code read before node health",
                     "The same error message comes from a bug and from failing hardware; "
                     "the Xid line in the kernel log says which, so check it first."),
            ),
        ),
        Question(
            "A 32-node job stopped with an NCCL watchdog timeout. On every node `nvidia-smi` "
            "lists 8 GPUs, `dmesg -T | grep NVRM` shows no Xid line since boot, and "
            "`dcgmi health -c` reports Healthy. Where do you look next?",
            NET,
            "the nodes are clean, and a collective that times out depends on the links "
            "between nodes: ibstat and nccl-tests across the job's nodes come next.",
            (
                Slip(NODE, "triage-repeat-node", "Node checks repeated once they are clean",
                     "The node layer has been checked and is clean; the order moves on to "
                     "the links between the nodes."),
                Slip(LOGS, "triage-skip-network", "The network skipped on the way to the logs",
                     "A collective timeout is the network's symptom as often as the job's; "
                     "rule out the links before reading the job's code."),
            ),
        ),
        Question(
            "The nodes of a failing job are clean (no Xid, no ECC errors, dcgmi health "
            "Healthy), `ibstat` shows every port Active at rate 400, and nccl-tests "
            "`all_reduce_perf` across the same 32 nodes reaches the cluster's acceptance "
            "bus bandwidth. The job still fails at the same step after every restart. "
            "Where do you look next?",
            LOGS,
            "hardware and network are ruled out, and a failure at the same step every time "
            "points at the program or its data: read the job's logs.",
            (
                Slip(NODE, "triage-loop-back", "Clean layers checked again instead of moving on",
                     "Both hardware layers are clean; a failure that repeats at one step is "
                     "for the job's own logs."),
                Slip(NET, "triage-network-again", "The network rechecked after nccl-tests passed",
                     "nccl-tests across these very nodes met the acceptance figure; the "
                     "links are not the suspect now."),
            ),
        ),
        Question(
            "A 64-node training job's throughput fell by a fifth overnight with no code or "
            "data change. Nothing has been checked yet. Where do you start?",
            NODE,
            "a synchronous job runs at its slowest GPU's pace; one GPU throttling (HW "
            "Slowdown) or one node with a degraded GPU is the first thing to rule out.",
            (
                Slip(NET, "slowdown-network-first", "A slowdown blamed on the network first",
                     "The network is the second layer; one throttling GPU slows every rank "
                     "just as well, and nvidia-smi shows it in seconds."),
                Slip(LOGS, "slowdown-logs-first", "A slowdown traced in the job's logs first",
                     "With no code change the program is the least likely cause; start at "
                     "the devices."),
            ),
        ),
        Question(
            "A user reports that their 16-node job hangs at start-up. `nvidia-smi` and the "
            "kernel logs on all 16 nodes are clean, but on node gpu-07 `ibstat` shows port "
            "mlx5_3 with `State: Down`. Which layer does the fault sit in?",
            NET,
            "a port that is down is a fault in the links between nodes, the second layer "
            "of the order.",
            (
                Slip(NODE, "port-as-node-health", "A down network port taken for a GPU fault",
                     "The GPUs on gpu-07 are clean; the fault is in its network port, "
                     "cable or switch port."),
                Slip(LOGS, "port-as-job-bug", "A down network port taken for the job's fault",
                     "No code can bring a port up; the port is the fault and the job only "
                     "waits on it."),
            ),
        ),
    ),
)  # fmt: skip

ELSEWHERE, MISMATCH, LINK, GPU = "rank-elsewhere", "mismatched-calls", "network-fault", "gpu-fault"
HANG = Topic(
    part="hang",
    label="Why the collective hangs",
    clue=(
        "A collective finishes only when every rank in the group enters the same "
        "operation and every byte crosses the links: the watchdog fires on the ranks "
        "that waited, so look for the one that did not arrive, arrived at a different "
        "call, or could not move its data."
    ),
    choices=(ELSEWHERE, MISMATCH, LINK, GPU),
    meanings=(
        (ELSEWHERE, "one rank never reached the collective: it is busy or stuck elsewhere"),
        (MISMATCH, "the ranks called different collectives at the same sequence number"),
        (LINK, "a network link or adapter between the nodes failed"),
        (GPU, "a GPU failed under the job"),
    ),
    questions=(
        Question(
            "63 of 64 ranks print `[Rank 12] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=466119168, "
            "NumelOut=466119168, Timeout(ms)=600000) ran for 600060 milliseconds before "
            "timing out.` (each with its own rank). Rank 40 prints nothing; `py-spy dump` "
            "on its process shows it inside the data loader, reading a shard from NFS. "
            "The kernel logs and `ibstat` are clean. Why does the all-reduce hang?",
            ELSEWHERE,
            "rank 40 never entered collective 1580, so the other 63 wait for it until the "
            "10-minute timeout.",
            (
                Slip(MISMATCH, "straggler-as-mismatch",
                     "A rank that never arrived taken for a mismatched call",
                     "Rank 40 is not in any collective; a mismatch is ranks in different "
                     "collectives at the same sequence number."),
                Slip(LINK, "straggler-as-network", "A stuck rank blamed on the network",
                     "ibstat is clean and the stack dump puts rank 40 in the data loader; "
                     "no data was ever sent."),
                Slip(GPU, "straggler-as-gpu", "A stuck rank blamed on a GPU",
                     "No Xid in the kernel log; rank 40 is waiting on file reads, not on "
                     "its GPU."),
            ),
        ),
        Question(
            "Every rank times out at the same moment. Rank 3 logs `WorkNCCL(SeqNum=80078, "
            "OpType=ALLREDUCE, NumelIn=2106881, ...)` but rank 7 logs `WorkNCCL("
            "SeqNum=80078, OpType=BROADCAST, NumelIn=5056, ...)`. Nodes and links are "
            "clean. Why does the job hang?",
            MISMATCH,
            "at one sequence number the ranks issued different operations with different "
            "sizes, typically a code path taken on some ranks only; neither can complete.",
            (
                Slip(ELSEWHERE, "mismatch-as-straggler",
                     "Mismatched calls taken for a rank that never arrived",
                     "Rank 7 did arrive, at a broadcast; every rank is inside a collective, "
                     "just not the same one."),
                Slip(LINK, "mismatch-as-network", "Mismatched calls blamed on the network",
                     "The links are clean, and no network fault changes which operation a "
                     "rank calls."),
                Slip(GPU, "mismatch-as-gpu", "Mismatched calls blamed on a GPU",
                     "A failed GPU does not turn an all-reduce into a broadcast; the program "
                     "issued different calls."),
            ),
        ),
        Question(
            "All ranks enter the same all-reduce and then time out. With `NCCL_DEBUG=WARN` "
            "the ranks on node gpu-21 log `NCCL WARN NET/IB : Got completion from peer "
            "10.0.3.17<46218> with error 12, opcode 0, len 0, vendor err 129`, and the "
            "switch shows the link to gpu-21's mlx5_3 going down and up. The GPUs are "
            "clean. Why does the collective hang?",
            LINK,
            "error 12 is a transport retry count exceeded: the adapter gave up sending "
            "over a link that keeps dropping, so the ring through gpu-21 stalls.",
            (
                Slip(ELSEWHERE, "network-as-straggler",
                     "A link fault taken for a rank that never arrived",
                     "Every rank entered the all-reduce; the data could not cross gpu-21's "
                     "link."),
                Slip(MISMATCH, "network-as-mismatch", "A link fault taken for mismatched calls",
                     "All ranks are in the same all-reduce; the completion error is the "
                     "network's."),
                Slip(GPU, "network-as-gpu", "A link fault blamed on a GPU",
                     "The GPUs are clean; error 12 comes from the InfiniBand adapter's "
                     "retries."),
            ),
        ),
        Question(
            "A 128-GPU job's ranks all time out in the same all-reduce. On node gpu-33 the "
            "kernel log shows `NVRM: Xid (PCI:0000:9b:00): 79, pid=2207, GPU has fallen "
            "off the bus.` and `nvidia-smi` now lists 7 GPUs. Why does the job hang?",
            GPU,
            "Xid 79 means the GPU left the PCIe bus; its rank can never finish the "
            "collective, and the node must be drained.",
            (
                Slip(ELSEWHERE, "gpu-loss-as-straggler", "A lost GPU taken for a slow rank",
                     "The rank is not busy elsewhere: its GPU is gone, and it will not "
                     "come back without a reset."),
                Slip(MISMATCH, "gpu-loss-as-mismatch", "A lost GPU taken for mismatched calls",
                     "Nothing says the ranks called different collectives; the kernel log "
                     "says a GPU left the bus."),
                Slip(LINK, "gpu-loss-as-network", "A lost GPU blamed on the network",
                     "Xid 79 is the GPU's PCIe link to its own host, not the network "
                     "between nodes."),
            ),
        ),
        Question(
            "Every night at 02:00 a job's 255 other ranks time out in an all-reduce with "
            "`Timeout(ms)=600000`, while rank 0 is still writing a 900 GB checkpoint to "
            "NFS, which takes about 14 minutes. Nodes and links are clean. Why does the "
            "all-reduce hang?",
            ELSEWHERE,
            "rank 0 is in its own checkpoint write and reaches the all-reduce only after "
            "the 10-minute timeout has fired on the others.",
            (
                Slip(MISMATCH, "save-as-mismatch", "A rank busy saving taken for mismatched calls",
                     "Rank 0 has not issued any collective yet; it is still writing."),
                Slip(LINK, "save-as-network", "A slow checkpoint write blamed on the network",
                     "The InfiniBand links are clean; the wait is rank 0's file write."),
                Slip(GPU, "save-as-gpu", "A slow checkpoint write blamed on a GPU",
                     "Nothing is wrong with a GPU; rank 0 is busy on the host."),
            ),
        ),
    ),
)  # fmt: skip


@register
class ClusterTriage(ConceptTemplate):
    slug = "cluster-triage"
    title = "Triage on a GPU cluster: the order, a hung collective, a half-done driver upgrade"
    family = "concepts"
    lessons = ("troubleshooting-gpu-clusters",)
    skills = ("incident-triage", "driver-compatibility")
    INTRO = (
        "You are on call for a GPU training cluster of NVIDIA H100 nodes run by Slurm and "
        "joined by InfiniBand. Answer three questions: which layer of the triage order "
        "to check, why a collective hangs, and what a node needs after a driver upgrade "
        "left half done."
    )
    TOPICS = (ORDER, HANG, DRIVER)
