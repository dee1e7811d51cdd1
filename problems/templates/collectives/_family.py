"""What the collectives templates share: bandwidths are stated in decimal GB/s, and the
fabrics a ring all-reduce is drawn over, each with the library that really runs it."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

GB = 1e9


def param_hash(*values: object) -> int:
    """A stable hash of a variant's parameters (statements are rendered from params only)."""
    return zlib.crc32("|".join(repr(v) for v in values).encode())


@dataclass(frozen=True)
class Fabric:
    """One fabric a ring all-reduce runs over.

    bw_gbps is the ring's per-direction neighbour bandwidth (the template's B); wild is
    how an engineer meets the figure (None when the statement always gives B itself);
    model says what the ring is, so that B is the right figure for it.
    """

    key: str
    bw_gbps: float
    library: str
    ranks: tuple[int, ...]
    latencies_us: tuple[float, ...]
    names: tuple[str, ...]
    direct: str  # the sentence giving B per direction
    wild: str | None  # the sentence giving it as met in the wild
    wild_slip: tuple[str, float, str] | None  # (code, bandwidth factor, feedback)
    max_message: float = 1e15


_NV = "NCCL's ring algorithm"
_NIC = (
    "The GPUs sit in nodes of 8 and the ring crosses the nodes through one {name} NIC per GPU, "
    "the ring's slowest hop: model B as that NIC's bandwidth per direction"
)
_SEVEN = (
    "The eight MI300X GPUs of the platform are fully connected, each by seven Infinity Fabric "
    "links. Model RCCL's all-reduce as seven rings running at once, each carrying a seventh of "
    "the message over a different link of every GPU, so that the rings together act as one "
    "ring of $B = 7 \\times$ one link's bandwidth per direction"
)

FABRICS: tuple[Fabric, ...] = (
    Fabric(
        "nvlink-3",
        300.0,
        _NV,
        (4, 8),
        (1.5, 2.0, 2.5, 3.0),
        ("NVLink 3 (A100)",),
        "Each GPU sends to its ring neighbour at $B = 300$ GB/s per direction",
        "NVIDIA quotes each A100's NVLink 3 bandwidth as 600 GB/s, both directions added",
        (
            "bidirectional-as-per-direction",
            2.0,
            "That uses NVIDIA's 600 GB/s, which adds both directions. "
            "A ring sends one way: 300 GB/s.",
        ),
    ),
    Fabric(
        "nvlink-4",
        450.0,
        _NV,
        (4, 8),
        (1.5, 2.0, 2.5, 3.0),
        ("NVLink 4 (H100)",),
        "Each GPU sends to its ring neighbour at $B = 450$ GB/s per direction",
        "NVIDIA quotes each H100 SXM's NVLink 4 bandwidth as 900 GB/s, both directions added",
        (
            "bidirectional-as-per-direction",
            2.0,
            "That uses NVIDIA's 900 GB/s, which adds both directions. "
            "A ring sends one way: 450 GB/s.",
        ),
    ),
    Fabric(
        "nvlink-5",
        900.0,
        _NV,
        (8, 36, 72),
        (1.5, 2.0, 2.5, 3.0),
        ("NVLink 5 (B200/GB200)",),
        "Each GPU sends to its ring neighbour at $B = 900$ GB/s per direction",
        "NVIDIA quotes each Blackwell GPU's NVLink 5 bandwidth as 1.8 TB/s, both directions added",
        (
            "bidirectional-as-per-direction",
            2.0,
            "That uses NVIDIA's 1.8 TB/s, which adds both directions. "
            "A ring sends one way: 900 GB/s.",
        ),
    ),
    Fabric(
        "pcie-gen4-x16",
        31.51,
        _NV,
        (2, 4, 8),
        (4.0, 5.0, 6.0, 8.0),
        ("PCIe Gen4 x16",),
        "The GPUs have no NVLink: each sends to its ring neighbour through PCIe Gen4 x16 at "
        "$B = 31.51$ GB/s per direction (16 GT/s per lane after 128b/130b encoding)",
        None,
        None,
        max_message=16e9,
    ),
    Fabric(
        "pcie-gen5-x16",
        63.02,
        _NV,
        (2, 4, 8),
        (4.0, 5.0, 6.0, 8.0),
        ("PCIe Gen5 x16",),
        "The GPUs have no NVLink: each sends to its ring neighbour through PCIe Gen5 x16 at "
        "$B = 63.02$ GB/s per direction (32 GT/s per lane after 128b/130b encoding)",
        None,
        None,
        max_message=16e9,
    ),
    *(
        Fabric(
            f"nic-{gbit}",
            gbit / 8,
            _NV,
            (16, 32, 64, 128, 256, 512),
            (5.0, 6.0, 8.0, 10.0, 12.0, 15.0),
            names,
            _NIC + f" ($B = {gbit // 8}$ GB/s per direction)",
            _NIC + f"; the NIC runs at {gbit} Gb/s",
            (
                "bits-vs-bytes",
                8.0,
                f"That reads {gbit} Gb/s as GB/s. A link's rate is in bits: {gbit} Gb/s is "
                f"{gbit // 8} GB/s.",
            ),
        )
        for gbit, names in (
            (200, ("InfiniBand HDR", "RoCE v2 over 200 GbE")),
            (400, ("InfiniBand NDR", "RoCE v2 over 400 GbE")),
            (800, ("InfiniBand XDR", "RoCE v2 over 800 GbE")),
        )
    ),
    Fabric(
        "mi300x-one-ring",
        64.0,
        "RCCL (AMD's NCCL port) restricted to a single ring (`NCCL_MAX_NCHANNELS=1`)",
        (8,),
        (1.5, 2.0, 2.5, 3.0),
        ("AMD Infinity Fabric (MI300X)",),
        "In that ring each GPU sends to its neighbour over one Infinity Fabric link at "
        "$B = 64$ GB/s per direction",
        "In that ring each GPU sends to its neighbour over one Infinity Fabric link, which AMD "
        "quotes at 128 GB/s counting both directions",
        (
            "bidirectional-as-per-direction",
            2.0,
            "That uses AMD's 128 GB/s per link, which adds both directions: 64 GB/s each way.",
        ),
    ),
    Fabric(
        "mi300x-seven-rings",
        448.0,
        "RCCL (AMD's NCCL port)",
        (8,),
        (1.5, 2.0, 2.5, 3.0),
        ("AMD Infinity Fabric (MI300X)",),
        _SEVEN + "; each link carries 64 GB/s per direction",
        _SEVEN + "; AMD quotes each link at 128 GB/s counting both directions",
        (
            "bidirectional-as-per-direction",
            2.0,
            "That uses AMD's 128 GB/s per link, which adds both directions: 64 GB/s each way, "
            "7 x 64 = 448 GB/s for the seven rings.",
        ),
    ),
)


def fabric_of(bw_gbps: float, n: int, latency_us: float) -> Fabric | None:
    """The fabric a generated variant was drawn over, or None for hand-given parameters."""
    for f in FABRICS:
        if f.bw_gbps == bw_gbps and n in f.ranks and latency_us in f.latencies_us:
            return f
    return None
