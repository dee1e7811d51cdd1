"""paged-kv-blocks: PagedAttention (vLLM) carves the KV-cache budget into fixed blocks of
`block_size` tokens; how big is a block, how many fit, and how many sequences of a given
length can be resident when each holds whole blocks?

Realism the generator enforces (issue #11): catalog GQA/MHA models only (MLA caches a
latent), named with the part they run on; the budget is what is left on one
tensor-parallel group inside one scale-up domain (`_family.SCALE_UP`, never more devices
than KV heads) after the weights, at `gpu_memory_utilization` 0.9, in a weight format
the part runs, rounded down to the 0.01 GiB vLLM logs; KV caches in BF16/FP16, or FP8
where the part computes in it; block sizes engines use (vLLM's 16 by default, 32; 64
and 128 in TensorRT-LLM and FlashInfer-backed engines); sequence lengths (prompt plus
output) within the model's context, many not a whole number of blocks.

Exactness: the block counts are floors and ceilings of Fractions, never of floats.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import exact, sig, tex
from problems.engine.registry import register
from problems.engine.solutions import step
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import cached_index, drop_close_counts, usable_gib_of
from problems.templates.kv_cache._family import (
    GIB,
    KV_TOKEN,
    SCALE_UP,
    Dtype,
    bpe,
    bytes_phrase,
    device_phrase,
    exact_token_bytes,
    gqa_models,
    models_with_shape,
    named_query_heads,
    serving_accelerators,
    shape_misconceptions,
    shape_sentence,
    weight_dtypes_for,
)

BLOCK_SIZES = (16, 16, 16, 32, 64, 128)
SEQ_LENS = (600, 1000, 1500, 2000, 2500, 3000, 4100, 5000, 6000, 10000, 20000, 33000, 100000)
UTIL = Fraction(9, 10)


class PagedKvParams(Params):
    kv_budget_gib: float = Field(gt=0, le=1_000_000)
    n_layers: int = Field(ge=1, le=1000)
    n_kv_heads: int = Field(ge=1, le=1024)
    head_dim: int = Field(ge=1, le=4096)
    kv_dtype: Dtype
    block_size: int = Field(ge=1, le=65536)
    seq_len: int = Field(ge=1, le=100_000_000)


def _token(p: PagedKvParams, factor: Fraction = Fraction(1)) -> Fraction:
    return factor * exact_token_bytes(p.n_layers, p.n_kv_heads, p.head_dim, p.kv_dtype)


def _total_blocks(p: PagedKvParams, unit_bytes: int = GIB, factor: Fraction = Fraction(1)) -> int:
    return math.floor(exact(p.kv_budget_gib) * unit_bytes / (p.block_size * _token(p, factor)))


def _blocks_per_seq(p: PagedKvParams) -> int:
    return -(-p.seq_len // p.block_size)


@register
class PagedKvBlocks(Template):
    slug = "paged-kv-blocks"
    title = "PagedAttention blocks: size, count and resident sequences"
    family = "kv_cache"
    lessons = (
        "the-kv-cache",
        "batching-for-llm-inference",
        "serving-models",
        "vllm-and-the-job-of-a-model-server",
    )
    skills = ("kv-cache-bytes", "paged-attention", "serving-capacity", "floor-and-ceil")
    difficulty = 3
    Params = PagedKvParams

    def generate(self, rng: random.Random) -> PagedKvParams:
        models = gqa_models()
        accs = serving_accelerators()
        for _ in range(1000):
            model = rng.choice(models)
            acc = rng.choice(accs)
            weight_dtype = rng.choice(weight_dtypes_for(acc))
            fp8 = ("fp8", "fp8") if "fp8" in acc.dense_flops else ()
            kv_dtype = rng.choice(("bf16", "bf16", "fp16", *fp8))
            cap = min(SCALE_UP[acc.slug][0], model.n_kv_heads)
            weights = exact(model.total_params) * exact(bpe(weight_dtype))
            for n in (1, 2, 4, 8):
                if n > cap:
                    break
                free = n * exact(usable_gib_of(acc)) * GIB * UTIL - weights
                if free <= 0:
                    continue
                budget = math.floor(free / GIB * 100) / 100
                cap_len = min(model.max_context, model.sliding_window or model.max_context)
                seq_len = rng.choice([s for s in SEQ_LENS if s <= cap_len])
                p = PagedKvParams(
                    kv_budget_gib=budget,
                    n_layers=model.n_layers,
                    n_kv_heads=model.n_kv_heads,
                    head_dim=model.head_dim,
                    kv_dtype=kv_dtype,
                    block_size=rng.choice(BLOCK_SIZES),
                    seq_len=seq_len,
                )
                if budget > 0 and self._max_seqs(p) >= 1:
                    return p
                break
        raise RuntimeError("paged-kv-blocks: no feasible variant in the catalog")

    def _max_seqs(self, p: PagedKvParams, total: int | None = None) -> int:
        total = _total_blocks(p) if total is None else total
        return total // _blocks_per_seq(p)

    def solve(self, p: PagedKvParams) -> dict[str, Part]:
        block = float(p.block_size * _token(p) / 1024)
        return {
            "block": Part("block", block, "KiB", label="One block"),
            "total_blocks": Part(
                "total_blocks",
                _total_blocks(p),
                "",
                kind=Kind.INTEGER,
                tolerance=Exact(),
                label="Blocks in the budget",
            ),
            "max_seqs": Part(
                "max_seqs",
                self._max_seqs(p),
                "",
                kind=Kind.INTEGER,
                tolerance=Exact(),
                label="Resident sequences",
            ),
        }

    def _deployment(self, p: PagedKvParams) -> str:
        """The part and device count this budget came from, when the figures identify it."""
        index = cached_index("paged-kv-deployments", catalog.models(), _deployments)
        key = (p.n_layers, p.n_kv_heads, p.head_dim, p.kv_budget_gib)
        return index.get(key, " The serving engine reports")

    def statement(self, p: PagedKvParams) -> str:
        models = models_with_shape(p.n_layers, p.n_kv_heads, p.head_dim)
        return (
            shape_sentence(p.n_layers, p.n_kv_heads, p.head_dim, models)
            + f" The KV cache is kept in **{p.kv_dtype.upper()}**, {bytes_phrase(p.kv_dtype)}."
            + self._deployment(p)
            + f" **{sig(p.kv_budget_gib)} GiB** ($2^{{30}}$ bytes each) free for the KV cache "
            "in total. PagedAttention divides it into blocks of "
            f"**{p.block_size} tokens**; a block holds those tokens' keys and values for "
            "every layer, the budget holds only whole blocks, and a sequence always owns "
            "whole blocks (a partly filled last block is still taken in full).\n\n"
            "1. How big is one block, in KiB ($2^{10}$ bytes)?\n"
            "2. How many blocks fit in the budget?\n"
            f"3. How many sequences of **{p.seq_len:,} tokens** each (prompt plus output) "
            "can be resident at once?"
        )

    def solution(self, p: PagedKvParams) -> str:
        b = bpe(p.kv_dtype)
        token = _token(p)
        block_bytes = p.block_size * token
        total = _total_blocks(p)
        per_seq = _blocks_per_seq(p)
        return (
            "Each token caches a key and a value vector per KV head in every layer, at "
            f"$b = {sig(b)}$ byte{'' if b == 1 else 's'} per element:\n\n"
            + step(
                KV_TOKEN,
                {"L": p.n_layers, "H": p.n_kv_heads, "d": p.head_dim, "b": b},
                float(token),
                "B",
            )
            + f"\n\nA block of {p.block_size} tokens is ${p.block_size} \\times "
            f"{tex(float(token))} = {tex(float(block_bytes), 12)}$ bytes, or "
            f"**{sig(float(block_bytes / 1024), 10)} KiB**.\n\n"
            f"The budget is ${sig(p.kv_budget_gib)} \\times 2^{{30}} = "
            f"{tex(float(exact(p.kv_budget_gib) * GIB), 15)}$ bytes; dividing by the block "
            f"gives {sig(float(exact(p.kv_budget_gib) * GIB / block_bytes), 9)}, and only "
            f"whole blocks count: **{total:,} blocks**.\n\n"
            f"A sequence of {p.seq_len:,} tokens needs $\\lceil {p.seq_len} / {p.block_size} "
            f"\\rceil = {per_seq}$ blocks, so $\\lfloor {total} / {per_seq} \\rfloor$ = "
            f"**{self._max_seqs(p):,} sequences** fit."
        )

    def misconceptions(self, p: PagedKvParams) -> list[Misconception]:
        models = models_with_shape(p.n_layers, p.n_kv_heads, p.head_dim)
        out = shape_misconceptions(
            "block",
            lambda L, H, d, b: p.block_size * 2 * L * H * d * b / 1024,
            p,
            p.kv_dtype,
            named_query_heads(models, p.n_kv_heads),
        )
        decimal = _total_blocks(p, unit_bytes=10**9)
        out += [
            Misconception(
                "gb-vs-gib",
                "total_blocks",
                decimal,
                f"That takes {sig(p.kv_budget_gib)} GiB as GB (10^9 bytes). A GiB is "
                "2^30 = 1,073,741,824 bytes.",
            ),
            Misconception(
                "missing-kv-factor-2",
                "total_blocks",
                _total_blocks(p, factor=Fraction(1, 2)),
                "That counts blocks half their real size: each token stores a key and a "
                "value vector in every layer, hence the factor 2.",
            ),
            Misconception(
                "partial-block-ignored",
                "max_seqs",
                math.floor(_total_blocks(p) * p.block_size / exact(p.seq_len)),
                f"That gives each sequence {p.seq_len}/{p.block_size} = "
                f"{sig(p.seq_len / p.block_size)} blocks. A sequence holds whole blocks: its "
                f"last, partly filled one still takes a full block, so it needs "
                f"{_blocks_per_seq(p)}.",
            ),
            Misconception(
                "gb-vs-gib",
                "max_seqs",
                self._max_seqs(p, decimal),
                f"That takes {sig(p.kv_budget_gib)} GiB as GB (10^9 bytes). A GiB is "
                "2^30 = 1,073,741,824 bytes.",
            ),
        ]
        return drop_close_counts(
            out, {"total_blocks": _total_blocks(p), "max_seqs": self._max_seqs(p)}
        )


def _deployments(models) -> dict[tuple, str]:
    """{(layers, KV heads, head dim, budget in GiB): the sentence naming the deployment}:
    for each attention shape and budget, the first (device, count, model, weight format)
    in this search order whose free memory reports that budget, as a statement used to
    search for it on every call (its exact arithmetic was most of the statement's time)."""
    out: dict[tuple, str] = {}
    shaped = [m for m in models if m.kv_lora_rank is None]
    for acc in serving_accelerators():
        for n in (1, 2, 4, 8):
            for model in shaped:
                for dtype in weight_dtypes_for(acc):
                    free = n * exact(usable_gib_of(acc)) * GIB * UTIL - exact(
                        model.total_params
                    ) * exact(bpe(dtype))
                    if free <= 0:
                        continue
                    key = (
                        model.n_layers,
                        model.n_kv_heads,
                        model.head_dim,
                        math.floor(free / GIB * 100) / 100,
                    )
                    out.setdefault(
                        key,
                        f" Serving {model.name} on {device_phrase(n, usable_gib_of(acc))} with "
                        f"{dtype.upper()} weights and `gpu_memory_utilization=0.9`, vLLM reports",
                    )
    return out
