"""kv-max-sequences: how many full-length sequences fit in the KV cache once the weights
are loaded, under vLLM's `gpu_memory_utilization`. The generator mostly deploys the
smallest GPU count that serves at all, so answers stay small and tight.

Realism the generator enforces (issue #11): the devices are one tensor-parallel group
inside one scale-up domain (`_family.SCALE_UP`), never more devices than the model has
key/value heads (past that vLLM replicates KV heads and the pooled budget would be about
2x too generous); weights and KV cache only in formats the part runs (FP8 where it
computes in FP8, FP4 on Blackwell and MI355X, weight-only INT4 on NVIDIA and AMD GPUs);
contexts within the model's window. In about half the variants an NVIDIA part's memory
is given as `nvidia-smi` reports it, in MiB, and the learner converts (MiB read as MB is
the gb-vs-gib slip there).
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Any

from pydantic import Field

from problems.engine.numbers import exact, params_count, sig
from problems.engine.registry import register
from problems.engine.solutions import formula, sp, step, where
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import (
    drop_close_counts,
    model_with_params,
    sig15,
    tex15,
    usable_gib_of,
)
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
    reported_mib,
    scale_up_of,
    seq_choices,
    serving_accelerators,
    stated_mib,
    token_bytes,
    weight_dtypes_for,
)


class KvMaxParams(Params):
    gpu_mem_gib: float = Field(gt=0, le=100_000)
    n_gpus: int = Field(ge=1, le=100_000)
    gpu_mem_util: float = Field(gt=0, le=1)
    n_params: float = Field(gt=0, le=1e14)
    weight_dtype: Dtype
    n_layers: int = Field(ge=1, le=1000)
    n_kv_heads: int = Field(ge=1, le=1024)
    head_dim: int = Field(ge=1, le=4096)
    kv_dtype: Dtype
    seq_len: int = Field(ge=1, le=100_000_000)


MAX_SEQS = formula(
    r"n_{\max}",
    lambda s: sp.floor((s.n * s.G * s.c * s.u - s.W) / (s.m * s.s)),
    n="n",
    G="G",
    c="c",
    u="u",
    W="W",
    m=r"M_{\mathrm{token}}",
    s="s",
    meanings={
        "n": "the number of devices",
        "c": "the bytes in a GiB",
    },
)
WEIGHTS = formula("W", lambda s: s.N * s.b, N="N", b=r"b_w")


def _max_seqs(
    gib: float,
    n_gpus: int,
    util: float,
    n_params: float,
    weight_dtype: str,
    token: Fraction,
    seq_len: int,
    gib_bytes: int | float = GIB,
) -> int:
    """floor((n x G x 2^30 x u - N x b_w) / (per_token x s)), at least 0, on exact values."""
    budget = n_gpus * exact(gib) * exact(gib_bytes) * exact(util)
    free = budget - exact(n_params) * exact(bpe(weight_dtype))
    if free <= 0:
        return 0
    return math.floor(free / (token * seq_len))


@register
class KvMaxSequences(Template):
    slug = "kv-max-sequences"
    title = "How many sequences fit in the KV cache"
    family = "kv_cache"
    lessons = (
        "the-kv-cache",
        "batching-for-llm-inference",
        "serving-models",
        "gpu-memory-math",
        "vllm-and-the-job-of-a-model-server",
    )
    skills = ("kv-cache-bytes", "serving-capacity", "memory-budget")
    difficulty = 3
    Params = KvMaxParams
    version = 2

    def generate(self, rng: random.Random) -> KvMaxParams:
        models = gqa_models()
        accs = serving_accelerators()
        smi = [
            a for a in accs if reported_mib(a) is not None and a.usable_gib != round(a.usable_gib)
        ]
        for _ in range(500):
            model = rng.choice(models)
            # Half the time an NVIDIA part whose nvidia-smi total the catalog records.
            acc = rng.choice(smi if rng.random() < 0.5 else accs)
            weight_dtype = rng.choice(weight_dtypes_for(acc))
            fp8 = ("fp8", "fp8") if "fp8" in acc.dense_flops else ()
            kv_dtype = rng.choice(("bf16", "bf16", "fp16", *fp8))
            seq_len = rng.choice(seq_choices(model))
            util = rng.choice((0.85, 0.9, 0.9, 0.9, 0.92, 0.95))
            gib = usable_gib_of(acc)
            if reported_mib(acc) is not None and rng.random() < 0.75:
                gib = reported_mib(acc) / 1024  # stated as nvidia-smi shows it, in MiB
            token = exact_token_bytes(model.n_layers, model.n_kv_heads, model.head_dim, kv_dtype)
            cap = min(SCALE_UP[acc.slug][0], model.n_kv_heads)
            feasible = [
                n
                for n in (1, 2, 4, 8)
                if n <= cap
                and _max_seqs(gib, n, util, model.total_params, weight_dtype, token, seq_len) >= 1
            ]
            if not feasible:
                continue
            # Mostly the smallest deployment that serves at all (small, tight answers),
            # otherwise a roomier one.
            n_gpus = feasible[0] if rng.random() < 0.5 else rng.choice(feasible[:3])
            return KvMaxParams(
                gpu_mem_gib=gib,
                n_gpus=n_gpus,
                gpu_mem_util=util,
                n_params=float(model.total_params),
                weight_dtype=weight_dtype,
                n_layers=model.n_layers,
                n_kv_heads=model.n_kv_heads,
                head_dim=model.head_dim,
                kv_dtype=kv_dtype,
                seq_len=seq_len,
            )
        raise RuntimeError("kv-max-sequences: no feasible variant in the catalog")

    def _token(self, p: KvMaxParams) -> Fraction:
        return exact_token_bytes(p.n_layers, p.n_kv_heads, p.head_dim, p.kv_dtype)

    def _answer(self, p: KvMaxParams, **over: Any) -> int:
        args = {
            "gib": p.gpu_mem_gib,
            "n_gpus": p.n_gpus,
            "util": p.gpu_mem_util,
            "n_params": p.n_params,
            "weight_dtype": p.weight_dtype,
            "token": self._token(p),
            "seq_len": p.seq_len,
        }
        args.update(over)
        return _max_seqs(**args)

    def _raw_floor(self, p: KvMaxParams) -> int:
        """The floor before clamping at 0 (negative when the weights do not fit)."""
        budget = p.n_gpus * exact(p.gpu_mem_gib) * GIB * exact(p.gpu_mem_util)
        free = budget - exact(p.n_params) * exact(bpe(p.weight_dtype))
        return math.floor(free / (self._token(p) * p.seq_len))

    def solve(self, p: KvMaxParams) -> dict[str, Part]:
        return {
            "max_seqs": Part(
                "max_seqs",
                self._answer(p),
                "",
                kind=Kind.INTEGER,
                tolerance=Exact(),
                label="Maximum concurrent sequences",
            )
        }

    def statement(self, p: KvMaxParams) -> str:
        shape = models_with_shape(p.n_layers, p.n_kv_heads, p.head_dim)
        model = model_with_params(p.n_params, among=shape)
        who = f"**{model.name}**" if model is not None else "a model"
        mib = stated_mib(p.gpu_mem_gib)
        each = "with" if p.n_gpus == 1 else "each with"
        if mib is not None:
            memory = (
                f"{each} {mib:,} MiB of memory as `nvidia-smi` reports it "
                "(1 MiB $= 2^{20}$ bytes; take that whole total as the device's memory)"
            )
        else:
            memory = (
                f"{each} $G = {tex15(p.gpu_mem_gib)}$ GiB of usable memory "
                "(1 GiB $= 2^{30}$ bytes)"
            )
        domain = scale_up_of(p.gpu_mem_gib)
        where = ""
        if domain is not None and 1 < p.n_gpus <= domain[0]:
            where = f" in {domain[1]}, as one tensor-parallel group"
        return (
            f"You serve {who} ({params_count(p.n_params)} parameters, "
            f"$N = {tex15(p.n_params)}$) on {device_phrase(p.n_gpus, round(p.gpu_mem_gib, 2))}"
            f"{where}, {memory}. "
            f"The serving engine may use a fraction $u = {tex15(p.gpu_mem_util)}$ of every "
            "device's memory (vLLM's `gpu_memory_utilization`); the weights are split across "
            "the devices and whatever is left of that budget holds the KV cache.\n\n"
            f"- Weights in **{p.weight_dtype.upper()}**, {bytes_phrase(p.weight_dtype)}.\n"
            f"- $L = {p.n_layers}$ layers, $H_{{\\mathrm{{kv}}}} = {p.n_kv_heads}$ key/value "
            f"heads, $d_h = {p.head_dim}$; KV cache in **{p.kv_dtype.upper()}**, "
            f"{bytes_phrase(p.kv_dtype)}.\n"
            f"- Every sequence reserves its full context of $s = {tex15(p.seq_len)}$ tokens.\n\n"
            "Ignoring activations, CUDA graphs, quantization scales and fragmentation, how many "
            "such sequences can be in flight at once? Give a whole number (0 if the weights "
            "alone do not fit)."
        )

    def solution(self, p: KvMaxParams) -> str:
        bw = bpe(p.weight_dtype)
        b = bpe(p.kv_dtype)
        token = token_bytes(p.n_layers, p.n_kv_heads, p.head_dim, p.kv_dtype)
        weights = p.n_params * bw
        budget = p.n_gpus * p.gpu_mem_gib * GIB * p.gpu_mem_util
        answer = self._answer(p)
        devices = "the one device" if p.n_gpus == 1 else f"all {p.n_gpus} devices"
        mib = stated_mib(p.gpu_mem_gib)
        convert = ""
        if mib is not None:
            convert = (
                f"First the memory in GiB: {mib:,} MiB / 1024 = $G = {tex15(p.gpu_mem_gib)}$ GiB "
                "(a MiB is $2^{20}$ bytes, not $10^{6}$).\n\n"
            )
        text = convert + (
            f"The weights $W$ take $b_w = {sig(bw)}$ byte{'' if bw == 1 else 's'} per parameter "
            f"in {p.weight_dtype.upper()}. Each token caches a key and a value vector in every "
            f"layer, $b = {sig(b)}$ byte{'' if b == 1 else 's'} per element in "
            f"{p.kv_dtype.upper()}: $M_{{\\mathrm{{token}}}}$ bytes in all. In bytes:\n\n"
            + step(WEIGHTS, {"N": tex15(p.n_params), "b": bw}, weights, "B")
            + "\n\n"
            + step(
                KV_TOKEN,
                {"L": p.n_layers, "H": p.n_kv_heads, "d": p.head_dim, "b": b},
                token,
                "B",
            )
            + f"\n\nThe engine's budget is $n G c u = {tex15(budget)}$ bytes across {devices}. "
            + where(MAX_SEQS, "n", "c", values={"n": p.n_gpus, "c": "2^{30}"})
            + " Take the weights out, then see how many sequences of $s$ tokens at full "
            "length the rest holds, rounding down:\n\n"
            + step(
                MAX_SEQS,
                {
                    "n": p.n_gpus,
                    "G": tex15(p.gpu_mem_gib),
                    "c": "2^{30}",
                    "u": tex15(p.gpu_mem_util),
                    "W": tex15(weights),
                    "m": token,
                    "s": p.seq_len,
                },
                str(self._raw_floor(p)),
            )
        )
        if answer == 0 and budget < weights:
            text += (
                "\n\nThe weights alone exceed the budget, so no sequence fits: the answer is **0**."
            )
        else:
            text += f"\n\n**{answer}** sequences fit at once."
        return text

    def misconceptions(self, p: KvMaxParams) -> list[Misconception]:
        models = models_with_shape(p.n_layers, p.n_kv_heads, p.head_dim)
        model = model_with_params(p.n_params, among=models)
        token = self._token(p)
        mib = stated_mib(p.gpu_mem_gib)
        out = [
            Misconception(
                "gb-vs-gib",
                "max_seqs",
                self._answer(p, gib_bytes=10**9 if mib is None else 1024 * 10**6),
                f"That treats {sig15(p.gpu_mem_gib)} GiB as GB. A GiB is 2^30 bytes, about 7.4% "
                "more than 10^9, so there is more room for cache than that."
                if mib is None
                else f"That treats {mib:,} MiB as MB. A MiB is 2^20 bytes, about 4.9% more "
                "than 10^6, so there is more room for cache than that.",
            ),
            Misconception(
                "weights-not-subtracted",
                "max_seqs",
                self._answer(p, n_params=0),
                "That gives the whole budget to the cache. The weights live in the same memory "
                "and must be subtracted first.",
            ),
            Misconception(
                "utilization-not-applied",
                "max_seqs",
                self._answer(p, util=1),
                f"That uses all of the GPU memory. The engine is only allowed "
                f"{sig15(p.gpu_mem_util)} of it; the rest is left for activations and the runtime.",
            ),
            Misconception(
                "missing-kv-factor-2",
                "max_seqs",
                self._answer(p, token=token / 2),
                "That counts only keys or only values. Each token caches both K and V in every "
                "layer, so the per-token cost has a factor 2.",
            ),
        ]
        if p.n_gpus > 1:
            out.append(
                Misconception(
                    "single-gpu-memory",
                    "max_seqs",
                    self._answer(p, n_gpus=1),
                    f"That uses one GPU's memory. The weights and the cache are spread over all "
                    f"{p.n_gpus} GPUs, so the budget is {p.n_gpus} times larger.",
                )
            )
        query = named_query_heads((model,) if model is not None else models, p.n_kv_heads)
        if query is not None:
            out.append(
                Misconception(
                    "attention-heads-not-kv-heads",
                    "max_seqs",
                    self._answer(
                        p,
                        token=exact_token_bytes(p.n_layers, query, p.head_dim, p.kv_dtype),
                    ),
                    f"That sizes the cache with {query} query heads. Only the {p.n_kv_heads} "
                    "key/value heads are cached under grouped-query attention.",
                )
            )
        wrong_bw = "bf16" if bpe(p.weight_dtype) != 2 else "fp32"
        out.append(
            Misconception(
                "wrong-bytes-per-param",
                "max_seqs",
                self._answer(p, weight_dtype=wrong_bw),
                f"That sizes the weights at {sig(bpe(wrong_bw))} bytes per parameter; "
                f"{p.weight_dtype.upper()} weights take {sig(bpe(p.weight_dtype))}.",
            )
        )
        return drop_close_counts(out, {"max_seqs": self._answer(p)})
