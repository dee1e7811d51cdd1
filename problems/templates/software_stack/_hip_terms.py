"""The CUDA terms cuda-hip-terms asks about: how the CUDA code shows each one, its ROCm/HIP
counterpart, and two AMD-side terms confused with it, each with the misconception it names.
"""

from __future__ import annotations

# term -> (how the CUDA code shows it, answer, ((distractor, code, feedback), ...)).
TERMS: dict[str, tuple[str, str, tuple[tuple[str, str, str], ...]]] = {
    "warp": (
        "reduces partial sums within each **warp** with `__shfl_down_sync`",
        "wavefront",
        (
            (
                "work-group",
                "workgroup-vs-wavefront",
                "A work-group is the whole thread block; "
                "the lock-step group of lanes inside it is a wavefront.",
            ),
            (
                "compute-unit",
                "cu-vs-wavefront",
                "A compute unit is the hardware that runs "
                "wavefronts (the SM's counterpart), not the group of threads.",
            ),
        ),
    ),
    "thread block": (
        "launches **thread blocks** of 256 threads that share a tile",
        "work-group",
        (
            (
                "wavefront",
                "wavefront-vs-workgroup",
                "A wavefront is the 64-lane group that "
                "executes in lock step; a block of 256 threads is a work-group of 4 wavefronts.",
            ),
            (
                "compute-unit",
                "cu-vs-workgroup",
                "The compute unit is the hardware a "
                "work-group runs on, not the group of threads itself.",
            ),
        ),
    ),
    "shared memory": (
        "stages tiles in `__shared__` memory (**shared memory**) before the multiply",
        "LDS",
        (
            (
                "scratch",
                "scratch-vs-lds",
                "Scratch is per-thread private memory (register "
                "spills) backed by HBM; the fast on-chip memory a work-group shares is the LDS.",
            ),
            (
                "GDS",
                "gds-vs-lds",
                "GDS, the global data share, is a small device-wide "
                "store; the per-CU memory a work-group shares is the local data share (LDS).",
            ),
        ),
    ),
    "SM": (
        "sizes its grid as a multiple of the GPU's **SM** (streaming multiprocessor) count",
        "compute-unit",
        (
            (
                "XCD",
                "xcd-vs-cu",
                "An XCD is a chiplet holding many compute units (38 on "
                "MI300X, 32 on MI355X); the SM's counterpart is one compute unit.",
            ),
            (
                "SIMD",
                "simd-vs-cu",
                "A SIMD is one of the four vector units inside a compute "
                "unit, closer to an SM sub-partition than to a whole SM.",
            ),
        ),
    ),
    "warp size": (
        "hard-codes the **warp size** of 32 in its lane arithmetic",
        "64",
        (
            (
                "32",
                "wave32-on-instinct",
                "Wave32 belongs to RDNA (Radeon) GPUs; Instinct CDNA GPUs run 64-wide wavefronts.",
            ),
            (
                "16",
                "simd-width-vs-wavefront",
                "16 is the width of one CDNA SIMD, which "
                "issues a 64-lane wavefront over four cycles; the wavefront is still 64.",
            ),
        ),
    ),
    "compute capability": (
        "is compiled for **compute capability** 9.0 with `-arch=sm_90`",
        "gfx",
        (
            (
                "CDNA",
                "family-vs-target",
                "CDNA names the architecture family; the compiler "
                "wants the LLVM target (gfx...), passed with --offload-arch.",
            ),
            (
                "MI",
                "product-vs-target",
                "The product name is not a compiler target; "
                "--offload-arch takes the gfx target of the chip.",
            ),
        ),
    ),
    "cudaMalloc": (
        "allocates its device buffers with **cudaMalloc**",
        "hipMalloc",
        (
            (
                "hipHostMalloc",
                "host-vs-device-alloc",
                "hipHostMalloc allocates pinned host "
                "memory (cudaMallocHost's counterpart), not device memory.",
            ),
            (
                "hipMallocManaged",
                "managed-vs-device",
                "hipMallocManaged allocates managed "
                "(unified) memory, cudaMallocManaged's counterpart.",
            ),
        ),
    ),
    "nvcc": (
        "is built with **nvcc** in the project's Makefile",
        "hipcc",
        (
            (
                "hipify-clang",
                "hipify-vs-compiler",
                "hipify-clang translates CUDA source to "
                "HIP once; it does not compile anything. The build uses hipcc.",
            ),
            (
                "hipconfig",
                "hipconfig-vs-hipcc",
                "hipconfig reports the HIP platform, paths "
                "and flags; the compiler driver is hipcc.",
            ),
        ),
    ),
    "NCCL": (
        "all-reduces gradients across the node's GPUs with **NCCL**",
        "RCCL",
        (
            (
                "MIOpen",
                "miopen-vs-rccl",
                "MIOpen is the deep-learning primitives library "
                "(cuDNN's counterpart); collectives come from RCCL.",
            ),
            (
                "rocBLAS",
                "blas-vs-collectives",
                "rocBLAS does dense linear algebra; the collective communication library is RCCL.",
            ),
        ),
    ),
    "cuBLAS": (
        "calls **cuBLAS** for its GEMMs (`cublasGemmEx`)",
        "hipBLAS",
        (
            (
                "RCCL",
                "collectives-vs-blas",
                "RCCL does collective communication; hipify "
                "maps cuBLAS calls to hipBLAS (rocBLAS underneath on AMD).",
            ),
            (
                "MIOpen",
                "miopen-vs-blas",
                "MIOpen is the cuDNN counterpart; the BLAS "
                "counterpart hipify maps cuBLAS to is hipBLAS.",
            ),
        ),
    ),
    "cuDNN": (
        "calls **cuDNN** for its convolutions",
        "MIOpen",
        (
            (
                "rocBLAS",
                "blas-vs-dnn",
                "rocBLAS is the BLAS library; the deep-learning "
                "primitives (cuDNN's role) are MIOpen.",
            ),
            (
                "RCCL",
                "rccl-vs-dnn",
                "RCCL is the collectives library (NCCL's counterpart), "
                "not the deep-learning primitives.",
            ),
        ),
    ),
    "nvidia-smi": (
        "runs while the team watches memory use and power with **nvidia-smi**",
        "amd-smi",
        (
            (
                "rocminfo",
                "rocminfo-vs-smi",
                "rocminfo lists the HSA agents and their "
                "properties (like deviceQuery); it does not monitor use, power or clocks.",
            ),
            (
                "rocprof",
                "profiler-vs-smi",
                "rocprof profiles kernels of a run; the monitoring and management tool is amd-smi.",
            ),
        ),
    ),
    "Nsight Compute": (
        "is tuned kernel by kernel with **Nsight Compute** (roofline, memory charts)",
        "rocprof-compute",
        (
            (
                "rocprof-systems",
                "systems-vs-compute",
                "rocprof-systems traces the whole "
                "application on a timeline, as Nsight Systems does; per-kernel analysis is "
                "rocprof-compute.",
            ),
            (
                "amd-smi",
                "smi-vs-profiler",
                "amd-smi monitors devices; it does not analyse kernels.",
            ),
        ),
    ),
    "Nsight Systems": (
        "is traced end to end with **Nsight Systems** (CPU, kernels and copies on one timeline)",
        "rocprof-systems",
        (
            (
                "rocprof-compute",
                "compute-vs-systems",
                "rocprof-compute analyses single "
                "kernels, as Nsight Compute does; the timeline tracer is rocprof-systems.",
            ),
            (
                "rocgdb",
                "debugger-vs-profiler",
                "rocgdb is the debugger (cuda-gdb's counterpart), not a tracer.",
            ),
        ),
    ),
    "cuda-gdb": (
        "is debugged with **cuda-gdb** when a kernel faults",
        "rocgdb",
        (
            (
                "rocprof",
                "profiler-vs-debugger",
                "rocprof profiles; stepping through a faulting kernel needs the debugger, rocgdb.",
            ),
            (
                "hipcc",
                "compiler-vs-debugger",
                "hipcc compiles (add -g for debug info); the debugger is rocgdb.",
            ),
        ),
    ),
    "CUDA stream": (
        "overlaps copies and kernels on two **CUDA streams**",
        "HIP-stream",
        (
            (
                "HIP-graph",
                "graph-vs-stream",
                "A HIP graph records a whole sequence of work "
                "to replay; the ordered queue of work is a stream.",
            ),
            (
                "HIP-event",
                "event-vs-stream",
                "A HIP event marks a point in a stream for "
                "timing or waiting; the queue itself is the stream.",
            ),
        ),
    ),
}
