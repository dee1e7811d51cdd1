"""quantization-schemes: weight-only schemes (GPTQ, AWQ: INT4 or INT8 weights,
activations kept in 16 bits) against weight-and-activation schemes (SmoothQuant's W8A8
INT8, FP8 W8A8), which GPUs run FP8 matrix multiplies on their own matrix units, and the
tools that make quantized checkpoints and check their accuracy.

Three parts, each one situation from its bank (problems/templates/concepts/_bank.py).
Facts: GPTQ (Frantar et al., 2022) and AWQ (Lin et al., 2023) quantize weights only;
SmoothQuant (Xiao et al., 2022) migrates activation outliers into the weights so that
both can be INT8; FP8 W8A8 needs FP8 tensor or matrix cores (the catalog's dense FP8
figure: Hopper, Ada, Blackwell, MI300 series, Gaudi 3; none on A100 or MI250X); weight-
only schemes cut the bytes a memory-bound decode step reads, while W8A8 also speeds up
compute-bound matrix multiplies. Tools: LLM Compressor (the vLLM project's: GPTQ,
SmoothQuant and FP8 recipes, checkpoints in compressed-tensors format that vLLM loads),
NVIDIA TensorRT Model Optimizer (FP8 and INT4 AWQ for TensorRT-LLM), and EleutherAI's
lm-evaluation-harness to score a checkpoint on benchmark tasks before and after.
Sentences are ours.
"""

from __future__ import annotations

from hardware_db import catalog
from problems.engine.registry import register
from problems.templates.concepts._bank import ConceptTemplate, Question, Slip, Topic

WO, WA = "weight-only", "weights-and-activations"
SCHEME = Topic(
    part="scheme",
    label="Quantization scheme",
    clue=(
        "Shrinking only the weights cuts the bytes every decode step must read; running "
        "the matrix multiplies themselves in 8 bits needs the activations quantized too, "
        "and hardware whose matrix units take 8-bit inputs."
    ),
    choices=(WO, WA),
    meanings=((WO, "e.g. GPTQ or AWQ INT4"), (WA, "e.g. SmoothQuant INT8 or FP8 W8A8")),
    questions=(
        Question(
            "Decode at batch 1 is memory-bound and the goal is fewer bytes read per token "
            "with the least accuracy risk, on any recent GPU.",
            WO,
            "4-bit weights cut the bytes read per step by about four from BF16; the "
            "activations can stay in 16 bits.",
            (Slip(WA, "activations-for-decode",
                  "Activations quantized to speed a memory-bound decode",
                  "A batch-1 decode step waits on reading weights; quantizing activations "
                  "adds risk for little gain there."),),
        ),
        Question(
            "A prefill-heavy batch job on H100s is compute-bound, and the goal is to run "
            "its matrix multiplies on the FP8 tensor cores.",
            WA,
            "FP8 tensor cores need both inputs in FP8: weights and activations.",
            (Slip(WO, "weight-only-for-compute",
                  "Weight-only quantization expected to speed compute",
                  "Weight-only schemes dequantize to 16 bits before the multiply; a "
                  "compute-bound kernel gains nothing."),),
        ),
        Question(
            "SmoothQuant moves the outliers of the activations into the weights with a "
            "per-channel scale. Which scheme does that make work?",
            WA,
            "it makes activations easy enough to quantize that both weights and "
            "activations can be INT8 (W8A8).",
            (Slip(WO, "smoothquant-as-weight-only", "SmoothQuant taken for a weight-only scheme",
                  "Weights alone quantize fine without it; smoothing exists so the "
                  "activations can be quantized too."),),
        ),
        Question(
            "GPTQ quantizes each layer's weights to 4 bits, using a little calibration "
            "data to correct the error as it goes.",
            WO,
            "GPTQ touches the weights only; activations stay in 16 bits.",
            (Slip(WA, "gptq-as-w8a8", "GPTQ taken for a weight-and-activation scheme",
                  "GPTQ's calibration data shape how the weights are rounded; the "
                  "activations are not quantized."),),
        ),
        Question(
            "An A100 cluster serving a large batch is compute-bound and has no FP8 units; "
            "8-bit matrix multiplies would help.",
            WA,
            "A100 has INT8 tensor cores: SmoothQuant's W8A8 INT8 runs the multiplies in "
            "8 bits.",
            (Slip(WO, "weight-only-for-compute",
                  "Weight-only quantization expected to speed compute",
                  "Weight-only schemes dequantize to 16 bits before the multiply; a "
                  "compute-bound kernel gains nothing."),),
        ),
    ),
)  # fmt: skip

NATIVE, NONE = "fp8-native", "no-fp8"


def _fp8_question(acc: catalog.Accelerator) -> Question:
    has = "fp8" in acc.dense_flops
    if has:
        peak = acc.dense_flops["fp8"] / 1e12
        why = f"its datasheet gives a dense FP8 figure ({peak:,.0f} TFLOP/s)."
        slip = Slip(NONE, "fp8-support-missed", "A part with FP8 units thought to lack them",
                    f"The {acc.prose_name} publishes dense FP8 throughput: its matrix units "
                    "take FP8 inputs.")  # fmt: skip
    else:
        why = "its datasheet gives no FP8 figure: FP8 weights can only be unpacked to 16 bits."
        slip = Slip(NATIVE, "fp8-assumed", "FP8 units assumed on a part without them",
                    f"The {acc.prose_name} has no FP8 matrix units; W8A8 FP8 cannot run on "
                    "them.")  # fmt: skip
    return Question(
        f"Can the {acc.prose_name} run FP8 W8A8 matrix multiplies on its own tensor or "
        "matrix units?",
        NATIVE if has else NONE,
        why,
        (slip,),
    )


_GPUS = ("a100-sxm-80gb", "h100-sxm", "h200", "l40s", "b200", "mi250x", "mi300x")
HARDWARE = Topic(
    part="hardware",
    label="FP8 support on this GPU",
    clue=(
        "A part runs FP8 natively only if its matrix units take FP8 inputs, which its "
        "datasheet shows as a dense FP8 throughput figure."
    ),
    choices=(NATIVE, NONE),
    meanings=((NATIVE, "FP8 matrix units"), (NONE, "no FP8 matrix units")),
    questions=tuple(_fp8_question(catalog.accelerator(s)) for s in _GPUS),
)

COMPRESSOR, MODELOPT, LMEVAL = "llm-compressor", "modelopt", "lm-eval"
TOOL = Topic(
    part="tool",
    label="Tool for the job",
    clue=(
        "Each serving engine loads the quantized formats its own tooling writes, and no "
        "checkpoint ships before its accuracy is measured on the tasks that matter, "
        "against the 16-bit model."
    ),
    choices=(COMPRESSOR, MODELOPT, LMEVAL),
    meanings=(
        (COMPRESSOR, "LLM Compressor, the vLLM project's"),
        (MODELOPT, "NVIDIA TensorRT Model Optimizer"),
        (LMEVAL, "lm-evaluation-harness"),
    ),
    questions=(
        Question(
            "Produce an FP8 W8A8 checkpoint of Llama 3.1 70B that vLLM loads directly.",
            COMPRESSOR,
            "LLM Compressor writes compressed-tensors checkpoints, vLLM's own format.",
            (
                Slip(MODELOPT, "modelopt-for-vllm",
                     "TensorRT's quantizer picked for a vLLM checkpoint",
                     "Model Optimizer targets TensorRT-LLM engines first; the vLLM project's "
                     "tool writes the format vLLM loads."),
                Slip(LMEVAL, "eval-tool-as-quantizer", "An evaluation harness picked to quantize",
                     "lm-evaluation-harness scores models; it writes no checkpoints."),
            ),
        ),
        Question(
            "Quantize a model to FP8 for a TensorRT-LLM engine on H100s.",
            MODELOPT,
            "TensorRT Model Optimizer produces the quantized checkpoints TensorRT-LLM "
            "builds engines from.",
            (
                Slip(COMPRESSOR, "vllm-tool-for-tensorrt",
                     "vLLM's quantizer picked for TensorRT-LLM",
                     "LLM Compressor targets vLLM's format; TensorRT-LLM's path is NVIDIA's "
                     "Model Optimizer."),
                Slip(LMEVAL, "eval-tool-as-quantizer", "An evaluation harness picked to quantize",
                     "lm-evaluation-harness scores models; it writes no checkpoints."),
            ),
        ),
        Question(
            "Check that the INT4 model scores within one point of the BF16 model on MMLU "
            "and GSM8K before it ships.",
            LMEVAL,
            "lm-evaluation-harness runs the same benchmark tasks on both checkpoints.",
            (
                Slip(COMPRESSOR, "quantizer-as-eval",
                     "A quantizer trusted to check its own accuracy",
                     "The quantizer's calibration loss is not a task score; run the "
                     "benchmarks on both models."),
                Slip(MODELOPT, "quantizer-as-eval", "A quantizer trusted to check its own accuracy",
                     "The quantizer's calibration loss is not a task score; run the "
                     "benchmarks on both models."),
            ),
        ),
        Question(
            "Make a GPTQ INT4 weight-only checkpoint to serve with vLLM.",
            COMPRESSOR,
            "LLM Compressor has a GPTQ recipe and writes the format vLLM loads.",
            (
                Slip(MODELOPT, "modelopt-for-vllm",
                     "TensorRT's quantizer picked for a vLLM checkpoint",
                     "Model Optimizer targets TensorRT-LLM engines first; the vLLM project's "
                     "tool writes the format vLLM loads."),
                Slip(LMEVAL, "eval-tool-as-quantizer", "An evaluation harness picked to quantize",
                     "lm-evaluation-harness scores models; it writes no checkpoints."),
            ),
        ),
    ),
)  # fmt: skip


@register
class QuantizationSchemes(ConceptTemplate):
    slug = "quantization-schemes"
    title = "Weight-only or weight-and-activation quantization, FP8 hardware and the tools"
    family = "concepts"
    lessons = ("quantization",)
    skills = ("quantization",)
    INTRO = (
        "A serving team wants smaller, faster models. Answer three questions: which "
        "scheme fits a goal (weight-only, such as GPTQ and AWQ, or weights and activations, "
        "such as SmoothQuant and FP8), whether a GPU runs FP8 natively, and which tool "
        "makes a checkpoint or checks its accuracy."
    )
    TOPICS = (SCHEME, HARDWARE, TOOL)
