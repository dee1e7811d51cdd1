"""bring-up-sequence: bringing up a GPU cluster layer by layer, choosing the DCGM
diagnostic run level that covers a check, and reading burn-in results per node.

Three parts, each one situation from its bank (problems/templates/concepts/_bank.py):

- layer: the order of bring-up, from out-of-band access (BMC, Redfish or IPMI) through
  uniform firmware (BIOS, BMC, GPU VBIOS, NIC), the OS with the GPU driver, Fabric
  Manager and the InfiniBand stack, the fabric (a subnet manager brings ports from
  `Initializing` to `Active`), to burn-in and acceptance (NVIDIA DGX SuperPOD
  deployment and DGX H100 user guides; NVIDIA, "InfiniBand port states", ibstat);
- level: what each `dcgmi diag -r` run level covers: 1 the deployment and software
  checks in seconds, 2 adds PCIe/NVLink and memory checks in about two minutes, 3 adds
  the stress plugins (targeted stress, targeted power, the diagnostic), 4 adds memtest
  and the other extended tests (NVIDIA DCGM documentation, "dcgmi diag" and "DCGM
  Diagnostics": run levels, and "Memtest Diagnostic", level 4 since DCGM 2.4);
- verdict: a node's results read against the fleet: HPL's residual check (PASSED or
  FAILED) and its speed against the fleet median, `dcgmi diag` results, and per-rail
  bandwidth (`ib_write_bw -d mlx5_N` from perftest, or nccl-tests with `NCCL_IB_HCA`
  set to one adapter) placed on one port or one whole rail (HPL, netlib.org/benchmark/hpl;
  perftest, github.com/linux-rdma/perftest; NCCL environment variables).

Sentences are ours; the facts are the documents' above.
"""

from __future__ import annotations

from problems.engine.registry import register
from problems.templates.concepts._bank import ConceptTemplate, Question, Slip, Topic
from problems.templates.concepts._burn_in_verdicts import VERDICT

OOB, FW, STACK, FABRIC, BURN = "out-of-band", "firmware", "os-and-driver", "fabric", "burn-in"
LAYER = Topic(
    part="layer",
    label="Bring-up layer to do now",
    clue=(
        "Bring-up climbs a stack: you must reach a machine remotely before you can change "
        "it, its lowest-level code must be uniform before an operating system goes on top, "
        "each host's GPU software must run before hosts are tested together, the links "
        "between hosts must be brought up before traffic crosses them, and stress and "
        "sign-off tests come last, on a finished stack."
    ),
    choices=(OOB, FW, STACK, FABRIC, BURN),
    meanings=(
        (OOB, "BMC access: credentials, Redfish or IPMI, power control and remote console"),
        (FW, "uniform BIOS, BMC, GPU VBIOS and NIC firmware"),
        (STACK, "OS image, GPU driver, Fabric Manager, InfiniBand stack, CUDA"),
        (FABRIC, "the InfiniBand fabric: subnet manager, port states, link checks"),
        (BURN, "burn-in and acceptance: DCGM diagnostics, HPL, nccl-tests"),
    ),
    questions=(
        Question(
            "Forty new NVIDIA DGX H100 systems are racked and cabled. Their BMC ports have "
            "DHCP leases on the management network, but nobody has logged in to one yet, "
            "and the hall is an hour's drive away. Which layer do you do now?",
            OOB,
            "everything later is done remotely through the BMCs: credentials, Redfish or "
            "IPMI, power control and console come first.",
            (
                Slip(FW, "firmware-before-access", "Firmware updated before remote access exists",
                     "Firmware is pushed through the BMC (Redfish update) or after booting; "
                     "neither is possible until you can reach the BMCs."),
                Slip(STACK, "os-before-access", "The OS installed before remote access exists",
                     "A network install needs remote power control and a console to "
                     "watch it: the BMCs first."),
                Slip(FABRIC, "fabric-before-access",
                     "The fabric brought up before the nodes can be reached",
                     "The InfiniBand fabric needs running hosts; you cannot yet even power "
                     "them on remotely."),
                Slip(BURN, "burn-in-first", "Burn-in run before anything is set up",
                     "Burn-in tests a finished stack; these machines have no OS yet."),
            ),
        ),
        Question(
            "Every BMC answers over Redfish. The inventory shows three BIOS versions, two "
            "BMC versions and mixed GPU VBIOS and ConnectX-7 versions across the 40 "
            "nodes. Which layer do you finish before installing the OS image?",
            FW,
            "make firmware uniform first: the OS, driver and tests then run on one known "
            "baseline, and a result differing between nodes means hardware.",
            (
                Slip(OOB, "access-redone", "Remote access redone once it works",
                     "Every BMC already answers over Redfish; that layer is done."),
                Slip(STACK, "os-over-mixed-firmware", "The OS installed over mixed firmware",
                     "Mixed BIOS and VBIOS versions change power, PCIe and memory settings "
                     "node by node; level them before building on top."),
                Slip(FABRIC, "fabric-over-mixed-firmware",
                     "The fabric brought up over mixed NIC firmware",
                     "The hosts have no OS yet, and the adapters' firmware is part of what "
                     "must be levelled first."),
                Slip(BURN, "burn-in-over-mixed-firmware", "Burn-in run on mixed firmware",
                     "Burn-in results compare nodes; on three BIOS versions a difference "
                     "could be the firmware, not the hardware."),
            ),
        ),
        Question(
            "Firmware is uniform and the OS image is installed on every node by PXE. "
            "`nvidia-smi` is not found, and the team wants to start nccl-tests across "
            "nodes. Which layer comes first?",
            STACK,
            "nccl-tests needs the GPU driver, Fabric Manager (NVSwitch systems), the "
            "InfiniBand stack and CUDA on every host.",
            (
                Slip(OOB, "stack-as-access", "A missing driver taken for missing remote access",
                     "The nodes are installed and reachable; what is missing is the GPU "
                     "software on them."),
                Slip(FW, "stack-as-firmware", "A missing driver taken for a firmware step",
                     "The firmware is already uniform; nvidia-smi comes with the driver."),
                Slip(FABRIC, "fabric-before-driver",
                     "The fabric tested before each host's GPU software",
                     "Cross-node tests need every host's GPU driver and InfiniBand stack "
                     "running first."),
                Slip(BURN, "burn-in-without-driver", "Burn-in started without a GPU driver",
                     "No GPU test runs while nvidia-smi is not even installed."),
            ),
        ),
        Question(
            "Driver, Fabric Manager and the InfiniBand stack run on every node, and "
            "single-node nccl-tests pass. `ibstat` on every node shows each compute port "
            "as `State: Initializing` with `Physical state: LinkUp`. Which layer do you "
            "do now?",
            FABRIC,
            "LinkUp with Initializing means the cable is fine but no subnet manager has "
            "configured the port; start the subnet manager (UFM or opensm) and check "
            "links with ibdiagnet.",
            (
                Slip(OOB, "port-state-as-access",
                     "An unconfigured fabric taken for missing remote access",
                     "The hosts are running and reachable; the ports wait for a subnet "
                     "manager."),
                Slip(FW, "port-state-as-firmware",
                     "An unconfigured fabric taken for a firmware fault",
                     "The physical link is up; Initializing is what a port says before a "
                     "subnet manager configures it."),
                Slip(STACK, "port-state-as-driver",
                     "An unconfigured fabric blamed on the host software",
                     "The host stack is running, since ibstat reads the ports; the subnet "
                     "manager lives on the fabric."),
                Slip(BURN, "burn-in-before-fabric", "Burn-in started before the ports are Active",
                     "Cross-node burn-in cannot pass until every port is Active."),
            ),
        ),
        Question(
            "Every port is Active at rate 400, all nodes pass `dcgmi diag -r 1`, and a "
            "first nccl-tests run across the cluster completes. The team wants to hand "
            "the cluster to users tomorrow. Which layer is still to do?",
            BURN,
            "the stack is up but not proven under load: long DCGM diagnostics, HPL on each "
            "node and per-rail bandwidth checks, judged against acceptance criteria.",
            (
                Slip(OOB, "done-layer-repeated-oob", "A finished layer repeated instead of burn-in",
                     "Remote access was the first layer and works; what remains is testing "
                     "under load."),
                Slip(FW, "done-layer-repeated-fw", "Firmware revisited instead of burn-in",
                     "Firmware was levelled before the OS; the remaining step is burn-in."),
                Slip(STACK, "quick-check-as-acceptance",
                     "A quick software check taken for acceptance",
                     "The software stack is installed and passes `dcgmi diag -r 1`, which "
                     "puts no load on the GPUs; what remains is testing under load."),
                Slip(FABRIC, "one-run-as-fabric-proof",
                     "One nccl-tests run taken as proof of every link",
                     "Ports are Active; whether each rail delivers its bandwidth on every "
                     "node is for the burn-in's per-rail checks."),
            ),
        ),
        Question(
            "To save a day, a vendor engineer proposes starting HPL burn-in now, while 12 "
            "of the 40 nodes still run an older BIOS with different power settings. "
            "Which layer must be finished first?",
            FW,
            "burn-in compares nodes with the fleet; until the firmware is uniform a slow "
            "node may be the old BIOS rather than a fault.",
            (
                Slip(OOB, "access-instead-of-firmware",
                     "Remote access named when firmware is unfinished",
                     "The nodes are reachable; the unfinished layer is their firmware."),
                Slip(STACK, "stack-instead-of-firmware",
                     "The software stack named when firmware is unfinished",
                     "The OS and driver are not the problem; the nodes differ underneath "
                     "them."),
                Slip(FABRIC, "fabric-instead-of-firmware",
                     "The fabric named when firmware is unfinished",
                     "The BIOS power settings are the difference between these nodes, not "
                     "the links."),
                Slip(BURN, "burn-in-on-mixed-baseline",
                     "Burn-in started on a mixed firmware baseline",
                     "HPL results from two BIOS versions cannot be compared with one fleet "
                     "median."),
            ),
        ),
    ),
)  # fmt: skip

R1, R2, R3, R4 = "r1", "r2", "r3", "r4"
LEVEL = Topic(
    part="level",
    label="Shortest dcgmi diag run level that covers it",
    clue=(
        "Each run level contains the one below it and adds longer tests: first only "
        "software and deployment checks without load, then bus, link and memory checks, "
        "then sustained stress at full power with checked results, then extended memory "
        "pattern tests."
    ),
    choices=(R1, R2, R3, R4),
    meanings=(
        (R1, "`dcgmi diag -r 1`, quick"),
        (R2, "`dcgmi diag -r 2`, medium"),
        (R3, "`dcgmi diag -r 3`, long"),
        (R4, "`dcgmi diag -r 4`, extra long"),
    ),
    questions=(
        Question(
            "A Slurm prolog should check each node before every job, in seconds and without "
            "loading the GPUs: NVML and CUDA libraries, permissions, persistence mode, and "
            "pending page retirements or row remaps. Which run level?",
            R1,
            "level 1 is the deployment and software checks only, lasting seconds: the "
            "readiness check NVIDIA intends for before a job.",
            (
                Slip(R2, "prolog-too-long-r2", "A two-minute diagnostic put before every job",
                     "Level 2 adds about two minutes of tests on every job start; the "
                     "checks asked for are all in level 1."),
                Slip(R3, "prolog-too-long-r3", "A stress diagnostic put before every job",
                     "Level 3 loads every GPU for many minutes; a prolog needs seconds."),
                Slip(R4, "prolog-too-long-r4", "The extended diagnostic put before every job",
                     "Level 4 runs far longer still; every job would wait for it."),
            ),
        ),
        Question(
            "A job has just failed on a node and its GPUs are idle. As a job epilogue you "
            "want about two minutes of checks that add PCIe and NVLink tests and a memory "
            "check to the deployment checks. Which run level?",
            R2,
            "level 2, about two minutes, is the medium suite NVIDIA suggests as an "
            "epilogue after a failure.",
            (
                Slip(R1, "r1-covers-pcie", "The quick level thought to test PCIe and memory",
                     "Level 1 checks the software deployment only; it runs no PCIe, NVLink "
                     "or memory test."),
                Slip(R3, "epilogue-r3", "A stress level chosen for a two-minute epilogue",
                     "Level 3 adds stress tests that run far longer than two minutes."),
                Slip(R4, "epilogue-r4", "The extended level chosen for a two-minute epilogue",
                     "Level 4 is the longest suite; it does not fit two minutes."),
            ),
        ),
        Question(
            "For acceptance of new nodes you need each GPU held at its power limit and "
            "under sustained compute stress with its results checked (the targeted power, "
            "targeted stress and diagnostic plugins). Which is the shortest run level "
            "that includes them?",
            R3,
            "the stress plugins first appear at level 3, the long suite.",
            (
                Slip(R1, "r1-has-stress", "The quick level thought to stress the GPUs",
                     "Level 1 puts no load on the GPUs at all."),
                Slip(R2, "r2-has-stress", "The medium level thought to include the stress tests",
                     "Level 2 adds bus, link and memory checks; the power and stress "
                     "plugins start at level 3."),
                Slip(R4, "longest-is-needed", "The longest level thought needed for stress tests",
                     "Level 4 contains them too, but level 3 is the shortest that does."),
            ),
        ),
        Question(
            "A GPU logged a burst of correctable memory errors. Before returning it to "
            "service you want DCGM's memtest, which writes and checks memtest86-style "
            "patterns across GPU memory. Which is the shortest run level that includes "
            "it?",
            R4,
            "memtest is one of the extended tests that only level 4 adds.",
            (
                Slip(R1, "r1-has-memtest", "The quick level thought to test memory patterns",
                     "Level 1 checks page retirement and remap state; it writes no patterns."),
                Slip(R2, "r2-memory-as-memtest", "The medium memory check taken for memtest",
                     "Level 2's memory check is short; the pattern-by-pattern memtest is "
                     "only in level 4."),
                Slip(R3, "r3-has-memtest", "The long level thought to include memtest",
                     "Level 3 adds the stress and power plugins; memtest comes only with "
                     "level 4."),
            ),
        ),
        Question(
            "During burn-in, a node's GPUs must be run at full power long enough to reveal "
            "one that throttles or fails under heat, but the memory pattern tests are "
            "not needed yet. Which run level?",
            R3,
            "targeted power and targeted stress in level 3 hold the GPUs at full load; "
            "level 4's extra tests are not needed.",
            (
                Slip(R1, "r1-heats-gpus", "The quick level thought to heat the GPUs",
                     "Level 1 runs no load, so nothing gets hot."),
                Slip(R2, "r2-heats-gpus", "The medium level thought to hold full power",
                     "Level 2's tests are short and not at full power for long."),
                Slip(R4, "r4-for-heat", "The extended level chosen for a heat test",
                     "Level 4 adds memory pattern tests you do not need; level 3 already "
                     "holds full power."),
            ),
        ),
    ),
)  # fmt: skip


@register
class BringUpSequence(ConceptTemplate):
    slug = "bring-up-sequence"
    title = "Bring-up and burn-in: the order of layers, DCGM run levels, per-node verdicts"
    family = "concepts"
    lessons = ("bring-up-validation",)
    skills = ("cluster-acceptance", "dcgm")
    INTRO = (
        "You are bringing up a new cluster of 40 NVIDIA DGX H100 nodes on a rail-optimised "
        "400 Gb/s InfiniBand fabric (each node's eight adapters, mlx5_0 to mlx5_7, go to "
        "eight rails). Answer three questions: which bring-up layer to do now, which "
        "`dcgmi diag` run level covers a check, and the burn-in verdict on a node's "
        "results."
    )
    TOPICS = (LAYER, LEVEL, VERDICT)
