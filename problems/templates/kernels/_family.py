"""What the kernels templates share: the per-SM resource limits of real NVIDIA
architectures and the SM counts of real GPUs.

Per-SM limits come from the CUDA C++ Programming Guide, "Technical Specifications per
Compute Capability" table: for compute capability 8.0 (A100), 9.0 (H100, H200) and 10.0
(B200) a streaming multiprocessor holds at most 2048 resident threads and 32 resident
blocks and has 64K (65,536) 32-bit registers; shared memory per SM is 164 KB on 8.0 and
228 KB on 9.0 and 10.0 (the guide's KB are 1024 bytes). The largest block is 1024
threads, and a block may opt in to at most 163 KB (8.0) or 227 KB (9.0, 10.0) of shared
memory, 1 KB less than the SM's.

SM counts are NVIDIA's datasheets and architecture whitepapers: A100 SXM4 108 SMs (A100
whitepaper), H100 SXM5 132 and H100 PCIe 114 (H100 whitepaper), H200 SXM 132 (the same
GH100 configuration as H100 SXM5), B200 148 (Blackwell: 2 dies x 74 SMs enabled).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SmLimits:
    """One compute capability's per-SM limits (CUDA C++ Programming Guide)."""

    cc: str
    max_threads_per_sm: int
    max_blocks_per_sm: int
    regs_per_sm: int
    smem_per_sm_kib: int
    max_smem_per_block_kib: int


CC_80 = SmLimits("8.0", 2048, 32, 65536, 164, 163)
CC_90 = SmLimits("9.0", 2048, 32, 65536, 228, 227)
CC_100 = SmLimits("10.0", 2048, 32, 65536, 228, 227)


@dataclass(frozen=True)
class Gpu:
    """A GPU as the kernels templates name it: its catalog slug, name, SM count, limits."""

    slug: str
    name: str
    n_sms: int
    limits: SmLimits


GPUS: tuple[Gpu, ...] = (
    Gpu("a100-sxm-80gb", "NVIDIA A100 SXM4", 108, CC_80),
    Gpu("h100-sxm", "NVIDIA H100 SXM5", 132, CC_90),
    Gpu("h100-pcie", "NVIDIA H100 PCIe", 114, CC_90),
    Gpu("h200", "NVIDIA H200 SXM", 132, CC_90),
    Gpu("b200", "NVIDIA B200", 148, CC_100),
)
