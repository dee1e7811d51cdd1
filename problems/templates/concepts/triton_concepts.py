"""triton-concepts: writing block-level Triton programs (a program's id, its offsets, the
mask for the ragged last block, the launch grid, fusing a chain of elementwise steps),
how flash attention keeps its working data on chip, and autotuning one kernel and
running it on NVIDIA and AMD GPUs.

Three parts, each one situation from its bank (problems/templates/concepts/_bank.py).
Facts: Triton's language (tl.program_id, tl.arange, masked tl.load and tl.store),
triton.cdiv for the grid, @triton.autotune with its configs and key, tl.inline_asm_
elementwise taking target-specific assembly (Triton's documentation and tutorials);
Triton's AMD backend compiling the same source for Instinct GPUs (ROCm's documentation);
FlashAttention (Dao et al., 2022): tiles of Q, K and V in on-chip SRAM, an online softmax
with a running maximum and sum, the N x N score matrix never written to HBM, and the
backward pass recomputing it from the saved statistics. Sentences are ours.
"""

from __future__ import annotations

from functools import partial

from problems.engine.registry import register
from problems.templates._common import fenced
from problems.templates.concepts._bank import ConceptTemplate, Question, Slip, Topic, other_options

KERNEL = fenced(
    "@triton.jit\n"
    "def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
    "    pid = tl.program_id(axis=0)\n"
    "    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
    "    mask = offs < n\n"
    "    x = tl.load(x_ptr + offs, mask=mask)\n"
    "    y = tl.load(y_ptr + offs, mask=mask)\n"
    "    tl.store(out_ptr + offs, x + y, mask=mask)",
    "python",
)
PID, ARANGE, MASK, GRID, FUSE = "program-id", "arange", "mask", "grid", "fusion"
_P_NAMES = {
    PID: ("triton-program-id", "tl.program_id credited with another job"),
    ARANGE: ("triton-arange", "tl.arange credited with another job"),
    MASK: ("triton-mask", "The mask credited with another job"),
    GRID: ("triton-grid", "The launch grid credited with another job"),
    FUSE: ("triton-fusion", "Fusion credited with another job"),
}
_P_DOES = {
    PID: "In Triton tl.program_id says which block this instance handles",
    ARANGE: "In Triton tl.arange gives the block's vector of element positions",
    MASK: "In Triton the mask turns off the lanes past the end of the data",
    GRID: "In Triton the grid sets how many instances the launch starts",
    FUSE: "In Triton fusion keeps a chain of steps in one kernel, in registers",
}


_p_slips = partial(other_options, names=_P_NAMES, feedback=_P_DOES, suffix="; that is not this.")


PROGRAM = Topic(
    part="program",
    label="Piece of the block-level Triton program",
    clue=(
        "A Triton kernel is written for one block: each launched instance finds its block, "
        "builds the vector of positions it covers, turns off positions past the end, and "
        "works on whole blocks in registers; the launch starts as many instances as there "
        "are blocks."
    ),
    choices=(PID, ARANGE, MASK, GRID, FUSE),
    questions=(
        Question(
            f"{KERNEL}\n\nWith n = 10,000 and BLOCK = 1,024 the last block's positions run "
            "past the end of the arrays. What keeps its loads and stores in bounds?",
            MASK,
            "offs < n masks the positions past the end, so they are neither read nor written.",
            _p_slips(MASK),
        ),
        Question(
            f"{KERNEL}\n\nHow does one running instance know which 1,024 elements are its "
            "own?",
            PID,
            "its program id along axis 0 times BLOCK is where its block starts.",
            _p_slips(PID),
        ),
        Question(
            f"{KERNEL}\n\nWhat decides that ten instances run for n = 10,000 and BLOCK = "
            "1,024?",
            GRID,
            "the launch grid, triton.cdiv(n, BLOCK), starts one instance per block.",
            _p_slips(GRID),
        ),
        Question(
            f"{KERNEL}\n\nWhich call gives the vector 0, 1, ..., BLOCK - 1 that turns one "
            "start position into the block's positions?",
            ARANGE,
            "tl.arange(0, BLOCK) is that vector; added to the start it gives offs.",
            _p_slips(ARANGE),
        ),
        Question(
            f"{KERNEL}\n\nThe same style of kernel computes gelu(x * w + b) in one pass "
            "instead of three separate kernels, so the products never return to HBM. What "
            "is that called?",
            FUSE,
            "fusing the chain into one kernel keeps the intermediates in registers.",
            _p_slips(FUSE),
        ),
    ),
)  # fmt: skip

TILES, ONLINE, RECOMPUTE, MATRIX = "tiles-on-chip", "online-softmax", "recompute", "score-matrix"
_F_NAMES = {
    TILES: ("flash-tiles", "Tiling credited with another part of flash attention"),
    ONLINE: ("flash-online-softmax", "The online softmax credited with another part"),
    RECOMPUTE: ("flash-recompute", "Recomputation credited with another part"),
    MATRIX: ("flash-score-matrix", "The score matrix thought to be what flash attention keeps"),
}
_F_IS = {
    TILES: "Tiling loads blocks of Q, K and V into on-chip memory and works there",
    ONLINE: "The online softmax keeps a running maximum and sum per row",
    RECOMPUTE: "Recomputation rebuilds the scores in the backward pass",
    MATRIX: "The N x N score matrix is exactly what flash attention never writes to HBM",
}


_f_slips = partial(other_options, names=_F_NAMES, feedback=_F_IS, suffix="; that is not this.")


FLASH = Topic(
    part="flash",
    label="How flash attention keeps its work on chip",
    clue=(
        "Flash attention never builds the full table of query-key scores in HBM: it works "
        "through blocks of queries and keys held on chip, keeps just enough running "
        "statistics to normalise each row correctly, and rebuilds what it needs later."
    ),
    choices=(TILES, ONLINE, RECOMPUTE, MATRIX),
    questions=(
        Question(
            "Standard attention writes the N x N score matrix to HBM and reads it back for "
            "the softmax. What does flash attention do with Q, K and V instead?",
            TILES,
            "it loads blocks of them into shared memory (SRAM) and computes each block's "
            "contribution there.",
            _f_slips(TILES),
        ),
        Question(
            "A softmax needs each row's maximum and sum over all keys, but one tile holds "
            "only some keys. How are the rows still normalised exactly?",
            ONLINE,
            "a running maximum and sum are updated tile by tile, rescaling what came before.",
            _f_slips(ONLINE),
        ),
        Question(
            "The backward pass needs the attention weights, which were never stored. How "
            "does flash attention get them?",
            RECOMPUTE,
            "it recomputes them block by block from Q, K and the saved row statistics.",
            _f_slips(RECOMPUTE),
        ),
        Question(
            "At a 32,000-token sequence, which of these does flash attention never hold in "
            "HBM?",
            MATRIX,
            "the 32,000 x 32,000 score matrix never leaves the chip; only tiles of it exist.",
            _f_slips(MATRIX),
        ),
    ),
)  # fmt: skip

TUNE, PORTABLE, NVONLY = "autotune", "same-source", "nvidia-only"
PORT = Topic(
    part="port",
    label="Tuning and running on NVIDIA and AMD",
    clue=(
        "Triton compiles one Python source for NVIDIA and AMD GPUs; the best block sizes "
        "differ between them and between input sizes, which autotuning measures; only code "
        "that embeds one vendor's instructions is tied to that vendor."
    ),
    choices=(TUNE, PORTABLE, NVONLY),
    meanings=(
        (TUNE, "@triton.autotune picks the configuration"),
        (PORTABLE, "the same source runs on both vendors"),
        (NVONLY, "tied to NVIDIA GPUs"),
    ),
    questions=(
        Question(
            "The fastest BLOCK and num_warps differ between an H100 and an MI300X and with "
            "the input size. How does the kernel get the right ones on each?",
            TUNE,
            "@triton.autotune times a list of configs and keeps the best per key.",
            (
                Slip(PORTABLE, "portable-means-tuned", "Portable code assumed tuned everywhere",
                     "The same source runs on both, but its block sizes must be tuned for "
                     "each."),
                Slip(NVONLY, "tuning-as-vendor-lock", "Per-GPU tuning taken for vendor lock-in",
                     "Different best configs do not tie the kernel to NVIDIA; autotuning "
                     "finds each."),
            ),
        ),
        Question(
            "A Triton matmul kernel using only tl.load, tl.dot and tl.store runs on H100s. "
            "The team moves to MI300X with ROCm's PyTorch. What about the kernel?",
            PORTABLE,
            "Triton's AMD backend compiles the same source; retune the configs.",
            (
                Slip(TUNE, "tuning-for-porting", "Autotuning expected to port a kernel",
                     "Autotuning chooses among configs of code that already runs; here the "
                     "source runs as it is."),
                Slip(NVONLY, "triton-thought-nvidia-only", "Triton thought to be NVIDIA-only",
                     "Triton compiles for AMD Instinct GPUs as well."),
            ),
        ),
        Question(
            "A Triton kernel uses tl.inline_asm_elementwise with a PTX instruction for a "
            "fast conversion.",
            NVONLY,
            "PTX is NVIDIA's instruction set: that kernel runs only on NVIDIA GPUs until "
            "the assembly is replaced.",
            (
                Slip(TUNE, "tuning-for-porting", "Autotuning expected to port a kernel",
                     "No config change makes PTX run on an AMD GPU."),
                Slip(PORTABLE, "inline-asm-portable", "Inline assembly thought portable",
                     "Inline assembly is written for one target; PTX does not run on AMD."),
            ),
        ),
        Question(
            "Which part of @triton.autotune makes it search again when the input size "
            "changes: key=['n'], with a config list per GPU?",
            TUNE,
            "the key names the arguments whose new values trigger a new search.",
            (
                Slip(PORTABLE, "portable-means-tuned", "Portable code assumed tuned everywhere",
                     "Running on both vendors does not choose block sizes; autotuning does."),
                Slip(NVONLY, "tuning-as-vendor-lock", "Per-GPU tuning taken for vendor lock-in",
                     "Autotuning works on both vendors' GPUs."),
            ),
        ),
    ),
)  # fmt: skip


@register
class TritonConcepts(ConceptTemplate):
    slug = "triton-concepts"
    title = "Block-level Triton programs, flash attention on chip, and portable tuning"
    family = "concepts"
    lessons = ("triton-kernels",)
    skills = ("triton-kernels",)
    difficulty = 3
    INTRO = (
        "An engineer writes GPU kernels in Triton, Python that compiles to block-level "
        "programs. Answer three questions: what a piece of a Triton program does, how flash "
        "attention keeps its working data on chip, and how one kernel is tuned and run on "
        "NVIDIA and AMD GPUs."
    )
    TOPICS = (PROGRAM, FLASH, PORT)
