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

RELOAD, FM, DKMS, NOT_DRIVER = (
    "load-new-module",
    "match-fabric-manager",
    "build-module",
    "not-the-driver",
)
DRIVER = Topic(
    part="driver",
    label="What the half-done upgrade needs",
    clue=(
        "A driver is several pieces that must carry one version: the user-space "
        "libraries, the kernel module actually loaded (what /proc/driver/nvidia/version "
        "reports), the module built for the running kernel, and on NVSwitch systems the "
        "NVSwitch management daemon; a package upgrade changes files on disk, not what is "
        "already loaded."
    ),
    choices=(RELOAD, FM, DKMS, NOT_DRIVER),
    meanings=(
        (RELOAD, "drain the node, then reboot or unload and reload the nvidia modules"),
        (FM, "install and start Fabric Manager at exactly the driver's version"),
        (DKMS, "build and install the kernel module for the running kernel"),
        (NOT_DRIVER, "the driver is fine: the fault is elsewhere"),
    ),
    questions=(
        Question(
            "Unattended upgrades moved node gpu-14's NVIDIA packages from 535.161.08 to "
            "535.183.01 last night. Now `nvidia-smi` prints `Failed to initialize NVML: "
            "Driver/library version mismatch`, and `/proc/driver/nvidia/version` still says "
            "535.161.08. What does the node need?",
            RELOAD,
            "the new libraries are on disk but the old kernel module is still loaded; "
            "loading the new module (drain and reboot) makes them agree.",
            (
                Slip(FM, "mismatch-as-fabric-manager",
                     "An NVML version mismatch blamed on Fabric Manager",
                     "The mismatch is between the NVML library and the loaded kernel "
                     "module; nvidia-smi does not need Fabric Manager to start."),
                Slip(DKMS, "mismatch-as-unbuilt-module",
                     "A loaded old module taken for a missing one",
                     "A module is loaded, the old one; it only has to be replaced by the "
                     "new one already installed."),
                Slip(NOT_DRIVER, "mismatch-not-driver",
                     "An NVML version mismatch taken for a non-driver fault",
                     "The message is the driver's own: its library and kernel module carry "
                     "different versions."),
            ),
        ),
        Question(
            "On a node whose jobs from yesterday are still training normally, every new "
            "container fails with `nvidia-container-cli: initialization error: nvml error: "
            "driver/library version mismatch`, and the kernel log has `NVRM: API mismatch: "
            "the client has the version 550.90.07, but this kernel module has the version "
            "550.54.15`. What does the node need?",
            RELOAD,
            "running processes keep the old libraries they loaded, new ones get 550.90.07 "
            "against the 550.54.15 module: drain, then load the new module.",
            (
                Slip(FM, "api-mismatch-as-fabric-manager",
                     "An API mismatch blamed on Fabric Manager",
                     "The NVRM line names the kernel module and the client library; Fabric "
                     "Manager is not part of it."),
                Slip(DKMS, "api-mismatch-as-unbuilt", "An API mismatch taken for an unbuilt module",
                     "The 550.54.15 module is loaded and working for the old jobs; the new "
                     "one needs loading, not building."),
                Slip(NOT_DRIVER, "running-jobs-prove-driver",
                     "Healthy old jobs taken as proof the driver is fine",
                     "The old jobs run on libraries loaded before the upgrade; anything "
                     "started since sees the mismatch."),
            ),
        ),
        Question(
            "An HGX H100 node was upgraded to driver 550.90.07 and rebooted. `nvidia-smi` "
            "lists all 8 GPUs, but every CUDA program fails with `cudaErrorSystemNotReady: "
            "system not yet initialized`, and `systemctl status nvidia-fabricmanager` shows "
            "the service failed after logging a version mismatch: it is still 535.161.08. "
            "What does the node need?",
            FM,
            "on NVSwitch systems CUDA waits for Fabric Manager to set up the NVLink "
            "fabric, and Fabric Manager must be exactly the driver's version.",
            (
                Slip(RELOAD, "fm-as-module-reload",
                     "A Fabric Manager mismatch fixed by reloading the driver",
                     "The node was rebooted and nvidia-smi works: the module is right. The "
                     "stale piece is Fabric Manager."),
                Slip(DKMS, "fm-as-unbuilt-module",
                     "A Fabric Manager mismatch taken for an unbuilt module",
                     "nvidia-smi talks to the loaded 550.90.07 module; it is built and "
                     "loaded."),
                Slip(NOT_DRIVER, "fm-not-driver",
                     "A Fabric Manager mismatch taken for a non-driver fault",
                     "Fabric Manager is versioned with the driver; left behind at 535, it "
                     "keeps CUDA from starting."),
            ),
        ),
        Question(
            "After a kernel update and reboot, `nvidia-smi` on gpu-30 says `NVIDIA-SMI has "
            "failed because it couldn't communicate with the NVIDIA driver`, `lsmod | grep "
            "nvidia` prints nothing, and `dkms status` lists nvidia/550.90.07 as installed "
            "only for the previous kernel. What does the node need?",
            DKMS,
            "no module exists for the running kernel, so none is loaded; build it with "
            "DKMS (the kernel headers must be installed) and load it.",
            (
                Slip(RELOAD, "unbuilt-as-reload", "A missing module fixed by reloading",
                     "There is nothing to reload: no nvidia module was ever built for this "
                     "kernel."),
                Slip(FM, "unbuilt-as-fabric-manager", "A missing module blamed on Fabric Manager",
                     "Without a kernel module nothing of the driver runs; Fabric Manager "
                     "comes after it."),
                Slip(NOT_DRIVER, "unbuilt-not-driver",
                     "A missing module taken for a non-driver fault",
                     "lsmod shows no nvidia module: the driver is not running at all."),
            ),
        ),
        Question(
            "After a cluster-wide upgrade to driver 550.90.07, every node reports 550.90.07 "
            "in `nvidia-smi` and in `/proc/driver/nvidia/version`, nvidia-fabricmanager "
            "550.90.07 is active, and most jobs run. One team's job fails on H100 nodes with "
            "`CUDA error: no kernel image is available for execution on the device`. What "
            "does it need?",
            NOT_DRIVER,
            "every driver piece agrees; the team's binary carries no code for the H100's "
            "architecture (sm_90), so it must be rebuilt for it.",
            (
                Slip(RELOAD, "arch-as-reload", "Missing GPU code fixed by reloading the driver",
                     "The loaded module already matches the libraries; reloading it changes "
                     "nothing in the team's binary."),
                Slip(FM, "arch-as-fabric-manager", "Missing GPU code blamed on Fabric Manager",
                     "Fabric Manager is active at the right version, and other jobs run."),
                Slip(DKMS, "arch-as-unbuilt", "Missing GPU code taken for an unbuilt module",
                     "The kernel module is loaded; the missing code is in the program, "
                     "compiled without the H100's architecture."),
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
