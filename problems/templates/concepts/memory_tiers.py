"""memory-tiers: the tiers a GPU computation reads from, registers and shared memory up
to HBM and host memory, by rough size and speed: which is the fastest tier a working
set fits in, and which tier a stated speed belongs to.

Two parts, each one situation from its bank (problems/templates/concepts/_bank.py),
on an H100 SXM5: 256 KB of registers per SM (65,536 32-bit registers) and up to 228 KB
of shared memory per SM, 132 SMs, a 50 MB L2 cache (NVIDIA H100 Tensor Core GPU
Architecture whitepaper; NVIDIA Hopper Tuning Guide), 80 GB of HBM3 at 3.35 TB/s and a
PCIe Gen5 x16 host link at about 63 GB/s each way (hardware_db: h100-sxm, pcie-gen5-x16).
On-chip bandwidths are not datasheet figures; the questions use only their order (shared
memory and L2 are several times HBM's rate, host memory tens of times slower). Sentences
are ours.
"""

from __future__ import annotations

from problems.engine.registry import register
from problems.templates.concepts._bank import ConceptTemplate, Question, Slip, Topic, other_options

REG, SMEM, L2, HBM, HOST = "registers", "shared-memory", "l2-cache", "hbm", "host-memory"
CHOICES = (REG, SMEM, L2, HBM, HOST)
MEANINGS = (
    (REG, "registers, 256 KB per SM"),
    (SMEM, "shared memory, up to 228 KB per SM"),
    (L2, "the L2 cache, 50 MB"),
    (HBM, "HBM, 80 GB at 3.35 TB/s"),
    (HOST, "host memory, over PCIe at about 63 GB/s each way"),
)
TOO_SMALL = "The working set does not fit in that tier"


_TIER_NAMES = {
    REG: ("tier-registers", "Registers chosen for the wrong working set"),
    SMEM: ("tier-shared-memory", "Shared memory chosen for the wrong working set"),
    L2: ("tier-l2", "The L2 cache chosen for the wrong working set"),
    HBM: ("tier-hbm", "HBM chosen for the wrong working set"),
    HOST: ("tier-host", "Host memory chosen for the wrong working set"),
}


def _slips(answer: str, why: dict[str, str]) -> tuple[Slip, ...]:
    return other_options(answer, _TIER_NAMES, why)


FITS = Topic(
    part="fits",
    label="Fastest tier the working set fits in",
    clue=(
        "The tiers trade size for speed: a few hundred kilobytes per SM on chip, tens of "
        "megabytes of cache shared by all SMs, tens of gigabytes of device memory, and "
        "terabytes on the host behind a link far slower than any of them."
    ),
    choices=CHOICES,
    meanings=MEANINGS,
    questions=(
        Question(
            "A matrix-multiply kernel stages a 128 x 64 tile of BF16 inputs (16 KB) that "
            "the threads of one block share and reuse.",
            SMEM,
            "16 KB shared by a block fits the shared memory of one SM.",
            _slips(SMEM, {
                REG: "Registers are private to each thread; a tile every thread of the "
                     "block reads lives in shared memory.",
                L2: "It would fit, but L2 is slower and shared by all SMs; the block's own "
                    "shared memory is the fastest place that holds it.",
                HBM: "Reading the tile from HBM each time is what staging avoids.",
                HOST: "Host memory is the slowest tier; nothing reused inside a kernel "
                      "belongs there.",
            }),
        ),
        Question(
            "Each thread keeps its own 8 x 8 block of FP32 partial sums (256 bytes) while "
            "it loops over the inner dimension.",
            REG,
            "a thread's private accumulators live in its registers, the fastest tier.",
            _slips(REG, {
                SMEM: "Shared memory serves data the block shares; a thread's own running "
                      "sums stay in its registers.",
                L2: "L2 is far slower than registers for values updated every iteration.",
                HBM: "Writing partial sums to HBM every step would bound the kernel by "
                     "memory.",
                HOST: "Host memory is behind the PCIe link: the slowest tier of all.",
            }),
        ),
        Question(
            "A 24 MB activation produced by one kernel is read by the next kernel right "
            "away.",
            L2,
            "24 MB does not fit one SM's shared memory but fits the 50 MB L2, which the "
            "next kernel can hit.",
            _slips(L2, {
                REG: f"{TOO_SMALL}: registers hold a few hundred kilobytes per SM.",
                SMEM: f"{TOO_SMALL}: shared memory is at most 228 KB per SM and does not "
                      "outlive the kernel.",
                HBM: "It will be written to HBM, but at 24 MB it can still be served from "
                     "the 50 MB L2, which is faster.",
                HOST: "Nothing read by the next kernel should cross the PCIe link.",
            }),
        ),
        Question(
            "The 16 GB of BF16 weights of Llama 3.1 8B, read once per decode step.",
            HBM,
            "16 GB fits the 80 GB of HBM and is far too large for any cache.",
            _slips(HBM, {
                REG: f"{TOO_SMALL}: registers are kilobytes per SM.",
                SMEM: f"{TOO_SMALL}: shared memory is kilobytes per SM.",
                L2: f"{TOO_SMALL}: L2 is 50 MB, a three-hundredth of the weights.",
                HOST: "The weights fit in HBM; keeping them on the host would read them "
                      "over PCIe every step, about 50 times slower.",
            }),
        ),
        Question(
            "A 400 GB embedding table for a recommender, far larger than the GPU's memory, "
            "of which each batch reads a few megabytes.",
            HOST,
            "400 GB does not fit 80 GB of HBM; it stays in host memory and the rows a batch "
            "needs are copied over.",
            _slips(HOST, {
                REG: f"{TOO_SMALL}: registers are kilobytes per SM.",
                SMEM: f"{TOO_SMALL}: shared memory is kilobytes per SM.",
                L2: f"{TOO_SMALL}: L2 is 50 MB.",
                HBM: f"{TOO_SMALL}: 400 GB is five times the 80 GB of HBM.",
            }),
        ),
    ),
)  # fmt: skip

FASTER, SAME, SLOWER = "much-faster", "about-the-same", "much-slower"
RATE = Topic(
    part="rate",
    label="How the new tier changes the operation's speed",
    clue=(
        "An operation limited by reading its data runs at the rate of the tier it reads "
        "from: moving data on chip raises that rate several times; moving it across the "
        "host link lowers it by tens of times."
    ),
    choices=(FASTER, SAME, SLOWER),
    meanings=(
        (FASTER, "several times faster or more"),
        (SAME, "about the same"),
        (SLOWER, "several times slower or more"),
    ),
    questions=(
        Question(
            "A memory-bound attention kernel stops re-reading K and V tiles from HBM for "
            "every query block and keeps each tile in shared memory while it is used.",
            FASTER,
            "reads served from shared memory run at several times HBM's rate, so a "
            "memory-bound kernel speeds up.",
            (
                Slip(SAME, "tier-change-ignored", "A change of tier thought not to matter",
                     "A memory-bound kernel runs at the rate of the tier it reads; on-chip "
                     "reads are several times faster than HBM."),
                Slip(SLOWER, "on-chip-thought-slower", "On-chip memory thought slower than HBM",
                     "Shared memory is on the chip, next to the cores: faster than HBM, "
                     "not slower."),
            ),
        ),
        Question(
            "To fit a larger model, 20 GB of its weights move from HBM to host memory and "
            "are copied over PCIe every decode step.",
            SLOWER,
            "those 20 GB now arrive at about 63 GB/s instead of 3.35 TB/s: each step "
            "slows by several times.",
            (
                Slip(FASTER, "host-thought-faster", "Host memory thought faster than HBM",
                     "The host link is about fifty times slower than HBM."),
                Slip(SAME, "offload-thought-free", "Offloading weights thought free",
                     "Bytes read over PCIe every step cost far more time than the same "
                     "bytes in HBM."),
            ),
        ),
        Question(
            "A compute-bound matrix multiply at high arithmetic intensity, whose operands "
            "already come from shared memory, gets its output written to L2 instead of "
            "straight to HBM.",
            SAME,
            "its time is set by the tensor cores, not by where the small output goes.",
            (
                Slip(FASTER, "compute-bound-sped-by-memory",
                     "A compute-bound kernel thought sped up by memory",
                     "The kernel waits on arithmetic, not on memory; a faster tier for its "
                     "output changes little."),
                Slip(SLOWER, "l2-thought-slower", "L2 thought slower than HBM",
                     "L2 is faster than HBM; in any case this kernel is limited by compute."),
            ),
        ),
        Question(
            "A memory-bound elementwise kernel's 30 MB input, written by the kernel just "
            "before it, is found in the 50 MB L2 instead of being fetched from HBM.",
            FASTER,
            "L2 serves data at several times HBM's rate, so a memory-bound kernel that hits "
            "it runs faster.",
            (
                Slip(SAME, "tier-change-ignored", "A change of tier thought not to matter",
                     "A memory-bound kernel runs at the rate of the tier it reads."),
                Slip(SLOWER, "l2-thought-slower", "L2 thought slower than HBM",
                     "L2 sits on the chip between the SMs and HBM and is faster than HBM."),
            ),
        ),
    ),
)  # fmt: skip


@register
class MemoryTiers(ConceptTemplate):
    slug = "memory-tiers"
    title = "Registers to host memory: where a working set fits and how fast it is read"
    family = "concepts"
    lessons = ("where-the-bytes-live",)
    skills = ("memory-hierarchy",)
    INTRO = (
        "On an NVIDIA H100 SXM5 a computation reads from five tiers: registers, shared "
        "memory, the L2 cache, HBM and, over the PCIe host link, host memory. Answer two "
        "questions about where data fits and what moving it between tiers does to speed."
    )
    TOPICS = (FITS, RATE)
