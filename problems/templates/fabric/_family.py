"""What the fabric templates share: keeping named slips apart, the names and places the
tools print for real parts, and the fixed text they print (the `nvidia-smi topo -m`
legend, the nccl-tests table header).

The legend wording is the tool's own output (driver 5xx; see the capture in
../shared/spec/tool-output/topo/sample-2.txt), reproduced so that a generated matrix reads
like the real one; likewise the nccl-tests header (../shared/spec/tool-output/nccl-tests).
Product names are as nvidia-smi and nccl-tests print them; the PCI bus ids are those of
DGX A100 and DGX H100 boxes.
"""

from __future__ import annotations

from problems.engine.template import Misconception, Part

# Product names as nvidia-smi and nccl-tests print them.
SMI_NAME = {
    "a100-sxm-80gb": "NVIDIA A100-SXM4-80GB",
    "h100-sxm": "NVIDIA H100 80GB HBM3",
    "h200": "NVIDIA H200",
    "b200": "NVIDIA B200",
    "l40s": "NVIDIA L40S",
}
# NVLinks bonded between two GPUs of an NVSwitch box (0: PCIe only).
NV_LINKS = {"a100-sxm-80gb": 12, "h100-sxm": 18, "h200": 18, "b200": 18, "l40s": 0}
# Cores per socket and the host CPUs of the boxes (catalog servers: DGX A100 / H100 / B200,
# the 8 x L40S ASRock server).
HOST = {
    "a100-sxm-80gb": (64, "2 x AMD EPYC 7742 (64 cores each)"),
    "h100-sxm": (56, "2 x Intel Xeon Platinum 8480C (56 cores each)"),
    "h200": (56, "2 x Intel Xeon Platinum 8480C (56 cores each)"),
    "b200": (56, "2 x Intel Xeon Platinum 8570 (56 cores each)"),
    "l40s": (64, "2 x AMD EPYC 7742 (64 cores each)"),
}
BUS_IDS = {
    "a100-sxm-80gb": ("07", "0f", "47", "4e", "87", "90", "b7", "bd"),
    "h100-sxm": ("18", "2a", "3a", "5d", "9a", "ab", "ba", "db"),
    "h200": ("18", "2a", "3a", "5d", "9a", "ab", "ba", "db"),
}
NCCL_HEADER = (
    "#                                                              out-of-place"
    "                       in-place\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong"
    "     time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)"
    "            (us)  (GB/s)  (GB/s)"
)


def printed_us(us: float) -> float:
    """A time as nccl-tests prints it: 2 decimals below 100 us, 1 below 10,000, else 0."""
    return round(us, 2 if us < 100 else 1 if us < 10_000 else 0)


def fmt_us(us: float) -> str:
    return f"{us:.2f}" if us < 100 else f"{us:.1f}" if us < 10_000 else f"{us:.0f}"


TOPO_LEGEND = "\n".join(
    (
        "Legend:",
        "",
        "  X    = Self",
        "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA "
        "nodes (e.g., QPI/UPI)",
        "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host "
        "Bridges within a NUMA node",
        "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)",
        "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe "
        "Host Bridge)",
        "  PIX  = Connection traversing at most a single PCIe bridge",
        "  NV#  = Connection traversing a bonded set of # NVLinks",
    )
)

# PCIe path words from closest to farthest, as the legend orders them (reversed).
PATH_RANK = {"PIX": 0, "PXB": 1, "PHB": 2, "NODE": 3, "SYS": 4}
# Slips kept at least this far apart (relative): clear of the grader's 1% tolerance.
GAP = 0.015
PATH_WORDS = ("PIX", "PXB", "PHB", "NODE", "SYS")


def keep_apart(answers: dict[str, Part], slips: list[Misconception]) -> list[Misconception]:
    """Slips whose value differs from the part's answer and from every slip kept before it
    on that part: numbers by more than GAP (1.5%, relative), words at all. A coincidence
    names the first cause, and the later one is not claimed."""
    kept: list[Misconception] = []
    for m in slips:
        taken = [answers[m.part].value] + [k.value for k in kept if k.part == m.part]
        if isinstance(m.value, str):
            if m.value in taken:
                continue
        elif any(abs(m.value - v) <= GAP * max(abs(m.value), abs(v)) for v in taken):
            continue
        kept.append(m)
    return kept
