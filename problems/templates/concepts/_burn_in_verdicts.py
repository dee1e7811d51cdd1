"""The burn-in verdict bank of bring-up-sequence (problems/templates/concepts/
bring_up_sequence.py): a node's HPL, DCGM and per-rail results read against the fleet.
Kept apart only to keep each module short; the sources are the template's."""

from __future__ import annotations

from problems.templates.concepts._bank import Question, Slip, Topic

ACCEPT, HOLD, LINK, RAIL = "accept", "hold-node", "fix-link", "fix-rail-switch"
VERDICT = Topic(
    part="verdict",
    label="Verdict on the node's results",
    clue=(
        "Judge each node by its correctness check and by its speed against the fleet's "
        "median, never by one alone; place a bandwidth shortfall by what the slow pairs "
        "share: one adapter port on one node, or every node's port on one rail."
    ),
    choices=(ACCEPT, HOLD, LINK, RAIL),
    meanings=(
        (ACCEPT, "the node passes"),
        (HOLD, "hold the node back for GPU or board diagnosis"),
        (LINK, "repair one node's cable, transceiver or port on that rail"),
        (RAIL, "repair the rail's leaf switch or its configuration"),
    ),
    questions=(
        Question(
            "HPL on node gpu-017 ends with `||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+"
            "||b||_oo)*N)= 0.0041 ...... PASSED`, but its Gflops are 17% below the median "
            "of the 40 nodes, and `nvidia-smi -q` during the run showed `HW Slowdown : "
            "Active` on GPU 5. What is the verdict?",
            HOLD,
            "PASSED says the answer was right, not that the node is fast; a node 17% "
            "under the fleet with a GPU in hardware slowdown fails acceptance.",
            (
                Slip(ACCEPT, "hpl-passed-as-fast", "HPL's PASSED read as a performance pass",
                     "PASSED is the residual check of the solution; speed is judged against "
                     "the fleet median, and 17% under it fails."),
                Slip(LINK, "slow-hpl-as-link", "A slow single-node HPL blamed on a network link",
                     "Single-node HPL uses no InfiniBand link; GPU 5's hardware slowdown is "
                     "the lead."),
                Slip(RAIL, "slow-hpl-as-rail", "A slow single-node HPL blamed on a rail switch",
                     "No switch takes part in a single-node run."),
            ),
        ),
        Question(
            "HPL on node gpu-029 runs within 1% of the fleet median, but its last line "
            "reads `||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)= 3.2e+09 ...... "
            "FAILED`. What is the verdict?",
            HOLD,
            "a failed residual means the node computed a wrong answer; a silently wrong "
            "GPU is worse than a slow one.",
            (
                Slip(ACCEPT, "hpl-speed-over-residual", "HPL speed trusted over a failed residual",
                     "Speed means nothing if the result is wrong: FAILED is a silent data "
                     "error on this node."),
                Slip(LINK, "residual-as-link", "A wrong HPL answer blamed on a network link",
                     "A single-node HPL's arithmetic happens on the node's own GPUs."),
                Slip(RAIL, "residual-as-rail", "A wrong HPL answer blamed on a rail switch",
                     "No switch computes HPL's answer; the node's GPUs did."),
            ),
        ),
        Question(
            "Per-rail checks with `ib_write_bw -d mlx5_3 --report_gbits` give about 392 "
            "Gb/s between any two nodes, except every pair that includes gpu-012, which "
            "gets 196 Gb/s. gpu-012's other seven rails give about 392 Gb/s. What is the "
            "verdict?",
            LINK,
            "only gpu-012's rail-3 port is slow, so the fault is on that one path: its "
            "cable, transceiver or switch port (ibstat there likely shows a lower rate).",
            (
                Slip(ACCEPT, "half-rail-accepted", "A rail at half speed accepted",
                     "196 Gb/s on a 400 Gb/s rail is half of what the other nodes get; "
                     "it fails."),
                Slip(HOLD, "link-as-gpu", "One slow network port blamed on the node's GPUs",
                     "ib_write_bw tests the adapter and its link, not the GPUs, and the "
                     "other seven rails of the node are fine."),
                Slip(RAIL, "one-port-as-rail", "One node's slow port blamed on the whole rail",
                     "Other nodes reach 392 Gb/s on rail 3 through the same switch; only "
                     "gpu-012's path is slow."),
            ),
        ),
        Question(
            "Two-node nccl-tests runs with `NCCL_IB_HCA=mlx5_5`, one per pair across all "
            "32 nodes, each reach about half the bus bandwidth of the same runs on the "
            "other seven adapters. Every node's mlx5_5 cables to the same leaf switch, "
            "rail 5. What is the verdict?",
            RAIL,
            "every node is slow on rail 5 and only there, so the one thing they share, the "
            "rail-5 switch or its port configuration, is at fault.",
            (
                Slip(ACCEPT, "fleet-wide-as-normal", "A shortfall on every node taken as normal",
                     "The other seven rails show what the hardware delivers; rail 5 gives "
                     "half of it."),
                Slip(HOLD, "rail-as-gpu", "A slow rail blamed on the nodes' GPUs",
                     "The same GPUs reach full bus bandwidth on the other seven adapters."),
                Slip(LINK, "rail-as-one-link", "A whole rail's shortfall blamed on one cable",
                     "All 32 nodes are slow on rail 5; 32 bad cables are far less likely "
                     "than the one switch they share."),
            ),
        ),
        Question(
            "Node gpu-004: `dcgmi diag -r 3` reports Pass for every test on all 8 GPUs, HPL "
            "runs 1.2% under the fleet median with its residual PASSED, and "
            "`ib_write_bw` gives 390 to 393 Gb/s on all eight rails. What is the verdict?",
            ACCEPT,
            "every check passes and the speed sits within the fleet's normal spread.",
            (
                Slip(HOLD, "median-as-floor", "A node just under the median held back",
                     "Half the fleet is below its median by definition; 1.2% is normal "
                     "spread, not a fault."),
                Slip(LINK, "normal-spread-as-link", "Normal bandwidth spread taken for a bad link",
                     "390 to 393 Gb/s on every rail is full speed for 400 Gb/s InfiniBand."),
                Slip(RAIL, "normal-spread-as-rail",
                     "Normal bandwidth spread blamed on a rail switch",
                     "Every rail delivers full speed; there is nothing to place."),
            ),
        ),
    ),
)  # fmt: skip
