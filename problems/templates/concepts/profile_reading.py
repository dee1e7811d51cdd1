"""profile-reading: the limiting resource read from a profiler's summary (Nsight
Compute's Speed Of Light section, Nsight Systems' reports, rocprof-compute's
Speed-of-Light panel), and which of AMD's tools does a job on Instinct GPUs, including
the port that custom CUDA code still needs, where ROCm trails CUDA.

Two parts, each one situation from its bank (problems/templates/concepts/_bank.py). The
summaries are ours, in the tools' wording: Nsight Compute's "GPU Speed Of Light
Throughput" section (Compute (SM) Throughput, Memory Throughput, DRAM Throughput, as
percentages of peak) and its Occupancy section; `nsys stats` reports cuda_gpu_kern_sum
and cuda_gpu_mem_time_sum; rocprof-compute's Speed-of-Light panel (its analyze mode);
rocprofv3's kernel trace, rocprof-systems' whole-program timeline (formerly Omnitrace),
and HIPIFY, which rewrites CUDA source as HIP (AMD's ROCm documentation). A kernel near
one roof is limited by it; one far below both, with low occupancy, waits on latency;
GPU time lost between many tiny kernels is launch overhead. Sentences are ours.
"""

from __future__ import annotations

from functools import partial

from problems.engine.registry import register
from problems.templates._common import fenced
from problems.templates.concepts._bank import ConceptTemplate, Question, Topic, other_options

MEM, COMP, LAT, LAUNCH, COPY = (
    "memory-bandwidth", "compute", "latency", "launch-overhead", "host-transfer",
)  # fmt: skip
_NAMES = {
    MEM: ("limit-memory", "Memory bandwidth named where it is not the limit"),
    COMP: ("limit-compute", "Compute named where it is not the limit"),
    LAT: ("limit-latency", "Latency named where a roof is the limit"),
    LAUNCH: ("limit-launch", "Launch overhead named where it is not the limit"),
    COPY: ("limit-host-copy", "Host transfers named where they are not the limit"),
}
_WHEN = {
    MEM: "Memory bandwidth limits a kernel whose memory throughput is near its peak",
    COMP: "Compute limits a kernel whose SM or matrix throughput is near its peak",
    LAT: "Latency limits a kernel far below both peaks with little work in flight",
    LAUNCH: "Launch overhead shows as GPU gaps between many tiny kernels",
    COPY: "Host transfers limit a run whose GPU time goes to host-device copies",
}


_slips = partial(
    other_options, names=_NAMES, feedback=_WHEN, suffix="; this profile shows otherwise."
)


def _profile(intro: str, lines: str) -> str:
    return f"{intro}\n\n{fenced(lines)}\n\nWhat limits it?"


LIMITER = Topic(
    part="limiter",
    label="Limiting resource",
    clue=(
        "Read a kernel against its roofs: throughput near the memory peak or near the "
        "compute peak names the limit; far below both, look at occupancy; and for a whole "
        "program, look at where GPU time goes and where the GPU sits idle."
    ),
    choices=(MEM, COMP, LAT, LAUNCH, COPY),
    questions=(
        Question(
            _profile("Nsight Compute, one kernel of a decode step on an H100:",
                     "Section: GPU Speed Of Light Throughput\n"
                     "    Compute (SM) Throughput     %     18.3\n"
                     "    Memory Throughput           %     92.4\n"
                     "    DRAM Throughput             %     92.1"),
            MEM,
            "DRAM throughput at 92% of peak with the SMs at 18%: the kernel waits on HBM.",
            _slips(MEM),
        ),
        Question(
            _profile("Nsight Compute, a large BF16 matrix multiply during prefill:",
                     "Section: GPU Speed Of Light Throughput\n"
                     "    Compute (SM) Throughput     %     88.7\n"
                     "    Memory Throughput           %     31.0\n"
                     "    DRAM Throughput             %     24.6"),
            COMP,
            "the SMs run at 89% of peak while memory idles at under a third.",
            _slips(COMP),
        ),
        Question(
            _profile("Nsight Compute, a small custom reduction kernel:",
                     "Section: GPU Speed Of Light Throughput\n"
                     "    Compute (SM) Throughput     %     14.2\n"
                     "    Memory Throughput           %     11.5\n"
                     "Section: Occupancy\n"
                     "    Theoretical Occupancy       %     50.0\n"
                     "    Achieved Occupancy          %      9.1"),
            LAT,
            "far below both roofs with 9% occupancy: too little work in flight to hide "
            "memory latency.",
            _slips(LAT),
        ),
        Question(
            _profile("Nsight Systems over one training step (nsys stats, cuda_gpu_kern_sum), "
                     "with the timeline:",
                     "Instances  Avg (ns)  Name\n"
                     "   18,240     4,310  elementwise_kernel<...>\n"
                     "      96   812,000  ampere_bf16_s16816gemm...\n"
                     "GPU idle between kernels: 61% of the step; the CPU thread is busy in "
                     "cudaLaunchKernel"),
            LAUNCH,
            "thousands of 4 µs kernels leave the GPU idle between launches the CPU cannot "
            "issue fast enough.",
            _slips(LAUNCH),
        ),
        Question(
            _profile("Nsight Systems over an inference job (nsys stats, cuda_gpu_mem_time_sum "
                     "against the kernels):",
                     "Time (%)  Operation\n"
                     "    71.4  [CUDA memcpy Host-to-Device]\n"
                     "     3.1  [CUDA memcpy Device-to-Host]\n"
                     "Kernels: 25.5% of GPU time"),
            COPY,
            "most GPU time goes to copies from the host; the kernels are a quarter of it.",
            _slips(COPY),
        ),
        Question(
            _profile("rocprof-compute, Speed-of-Light panel, one kernel on an Instinct MI300X:",
                     "Metric               Avg    Unit      Pct of Peak\n"
                     "VALU FLOPs           12.7   TFLOP/s   7.8\n"
                     "MFMA FLOPs (BF16)    41.8   TFLOP/s   3.2\n"
                     "HBM Bandwidth        4.70   TB/s      88.6"),
            MEM,
            "HBM bandwidth at 89% of peak with the vector and matrix units nearly idle.",
            _slips(MEM),
        ),
    ),
)  # fmt: skip

TRACE, COMPUTE_TOOL, SYSTEMS, HIPIFY = "rocprofv3", "rocprof-compute", "rocprof-systems", "hipify"
_TOOL_NAMES = {
    TRACE: ("tool-rocprofv3", "rocprofv3 chosen for another tool's job"),
    COMPUTE_TOOL: ("tool-rocprof-compute", "rocprof-compute chosen for another tool's job"),
    SYSTEMS: ("tool-rocprof-systems", "rocprof-systems chosen for another tool's job"),
    HIPIFY: ("tool-hipify", "HIPIFY chosen for a profiling job"),
}
_TOOL_DOES = {
    TRACE: "rocprofv3 traces kernels, copies and API calls",
    COMPUTE_TOOL: "rocprof-compute analyses one kernel's counters against the roofline",
    SYSTEMS: "rocprof-systems draws one timeline of CPU threads and GPU activity",
    HIPIFY: "HIPIFY rewrites CUDA source as HIP",
}


_tool_slips = partial(
    other_options, names=_TOOL_NAMES, feedback=_TOOL_DOES, suffix="; that is not this job."
)


AMD = Topic(
    part="amd",
    label="AMD ROCm tool",
    clue=(
        "ROCm's tools map onto NVIDIA's: a tracer for kernels and copies, a per-kernel "
        "analyser with hardware counters, a whole-program timeline, and a translator for "
        "code written for CUDA, which ROCm cannot run until it is ported."
    ),
    choices=(TRACE, COMPUTE_TOOL, SYSTEMS, HIPIFY),
    questions=(
        Question(
            "A list of every kernel an Instinct run launched, with durations and memory "
            "copies, as Nsight Systems' CUDA trace gives on NVIDIA.",
            TRACE,
            "rocprofv3 --kernel-trace records kernels and copies.",
            _tool_slips(TRACE),
        ),
        Question(
            "One kernel's hardware counters, its roofline position and Speed-of-Light "
            "panels, as Nsight Compute gives on NVIDIA.",
            COMPUTE_TOOL,
            "rocprof-compute profiles and analyses kernels against the hardware's peaks.",
            _tool_slips(COMPUTE_TOOL),
        ),
        Question(
            "One timeline of the Python threads, CPU samples and GPU kernels of a whole "
            "training script.",
            SYSTEMS,
            "rocprof-systems (formerly Omnitrace) traces the whole program together.",
            _tool_slips(SYSTEMS),
        ),
        Question(
            "The model's custom CUDA kernels have no HIP version yet, where ROCm still "
            "trails CUDA: new kernels usually appear for CUDA first. What turns their "
            "source into HIP?",
            HIPIFY,
            "HIPIFY translates CUDA source into HIP, to be built and tuned for Instinct.",
            _tool_slips(HIPIFY),
        ),
    ),
)  # fmt: skip


@register
class ProfileReading(ConceptTemplate):
    slug = "profile-reading"
    title = "Reading Nsight and rocprof profiles for the limit, and AMD's tools"
    family = "concepts"
    lessons = ("gpu-programming-with-cuda", "rocm-hip-on-amd")
    skills = ("memory-vs-compute-bound", "gpu-porting")
    difficulty = 3
    INTRO = (
        "An engineer profiles kernels and programs on NVIDIA and AMD GPUs with Nsight "
        "Compute, Nsight Systems and the ROCm profilers. Answer two questions: what limits "
        "a profiled kernel or program, and which AMD tool does a job."
    )
    TOPICS = (LIMITER, AMD)
