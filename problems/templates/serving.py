"""Serving family: decode and prefill floors, speculative decoding, Little's law."""

from __future__ import annotations

import math
import random
from typing import Literal

import sympy
from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import BYTES_PER_ELEMENT, exact, params_count, sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import FactorHints, Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import (
    PRECISION_LABEL,
    accelerator_names,
    bw_tbps_of,
    dense_models,
    draw_accelerator,
    drop_close_counts,
    matching_accelerators,
    model_with_params,
    peak_tflops_of,
    sparse_note,
    sparse_ratio,
)

Precision = Literal["fp32", "fp16", "bf16", "fp8", "int8", "int4", "fp4"]

_GPU_COUNTS = (1, 2, 4, 8)
# Share of each GPU's memory the weights may take when choosing a realistic GPU count.
_WEIGHT_SHARE = 0.8


def _gpu_count(rng: random.Random, weight_bytes: float, acc: catalog.Accelerator) -> int | None:
    """Smallest of 1, 2, 4, 8 that holds the weights with room to spare; sometimes doubled."""
    for n in _GPU_COUNTS:
        if weight_bytes <= _WEIGHT_SHARE * n * acc.usable_bytes:
            if n < 8 and rng.random() < 0.3:
                return n * 2
            return n
    return None


def _bytes_phrase(dtype: str) -> str:
    b = BYTES_PER_ELEMENT[dtype]
    unit = "byte" if b == 1 else "bytes"
    return f"**{dtype.upper()}**, {sig(b)} {unit} per parameter"


def _gpus_phrase(n: int) -> str:
    return "a single GPU" if n == 1 else f"{n} GPUs with tensor parallelism"


# --- decode-tpot-floor ------------------------------------------------------------------------


class DecodeParams(Params):
    n_params: float = Field(gt=0, le=1e14)
    weight_dtype: Precision
    mem_bw_tbps: float = Field(gt=0, le=1e4)
    n_gpus: int = Field(ge=1, le=4096)


TPOT = formula(
    r"t_{\mathrm{token}}",
    lambda s: s.N * s.b / (s.n * s.B),
    N="N",
    b="b",
    n="n",
    B=r"B_{\mathrm{mem}}",
)


def _decode_seconds(p: DecodeParams) -> float:
    return p.n_params * BYTES_PER_ELEMENT[p.weight_dtype] / (p.n_gpus * p.mem_bw_tbps * 1e12)


@register
class DecodeTpotFloor(Template):
    slug = "decode-tpot-floor"
    title = "The memory-bandwidth floor on time per output token"
    family = "serving"
    lessons = ("prefill-decode-and-the-cost-of-a-token", "llm-inference-at-scale", "quantization")
    skills = ("decode-bandwidth-bound", "tpot", "weights-bytes")
    difficulty = 2
    Params = DecodeParams

    def generate(self, rng: random.Random) -> DecodeParams:
        dense = dense_models()
        accs = [a for a in catalog.accelerators() if a.mem_bw_bytes_per_s > 0]
        while True:
            model = rng.choice(dense)
            acc = rng.choice(accs)
            dtypes = ["bf16", "bf16", "fp16", "int8", "int4"]
            dtypes += ["fp8", "fp8"] if "fp8" in acc.dense_flops else []
            dtypes += ["fp4"] if "fp4" in acc.dense_flops else []
            dtype = rng.choice(dtypes)
            n = _gpu_count(rng, model.total_params * BYTES_PER_ELEMENT[dtype], acc)
            if n is None:
                continue
            return DecodeParams(
                n_params=float(model.total_params),
                weight_dtype=dtype,
                mem_bw_tbps=bw_tbps_of(acc),
                n_gpus=n,
            )

    def solve(self, p: DecodeParams) -> dict[str, Part]:
        seconds = _decode_seconds(p)
        return {
            "tpot": Part("tpot", seconds * 1e3, "ms", label="Time per output token (floor)"),
            "tokens_per_s": Part(
                "tokens_per_s", 1 / seconds, "tok/s", label="Tokens per second (ceiling)"
            ),
        }

    def statement(self, p: DecodeParams) -> str:
        named = model_with_params(p.n_params, among=dense_models())
        size = f"{params_count(p.n_params)} parameters ($N = {tex(p.n_params, 15)}$)"
        model = (
            f"{named.name}, a dense model with {size}," if named else f"A dense model with {size}"
        )
        hits = matching_accelerators(mem_bw_tbps=p.mem_bw_tbps)
        which = f" ({accelerator_names(hits)})" if hits else ""
        if p.n_gpus == 1:
            hardware = (
                f"It runs on a single GPU{which}, which reads its HBM at "
                f"{sig(p.mem_bw_tbps, 12)} TB/s."
            )
        else:
            hardware = (
                f"It runs on {p.n_gpus} GPUs{which} with tensor parallelism; each reads its "
                f"HBM at {sig(p.mem_bw_tbps, 12)} TB/s, and the GPUs read their shares of the "
                "weights in parallel."
            )
        return (
            f"{model} serves one sequence at a time (batch size 1) with its weights in "
            f"{_bytes_phrase(p.weight_dtype)} (ignore quantization scales). {hardware}\n\n"
            "Every decode step must stream all the weights from HBM once. Ignore KV-cache "
            "reads, compute and communication. What is the floor on the time per output "
            "token, in ms, and the matching ceiling on this sequence's decode speed, in tok/s?"
        )

    def solution(self, p: DecodeParams) -> str:
        b = BYTES_PER_ELEMENT[p.weight_dtype]
        seconds = _decode_seconds(p)
        return (
            f"Each token reads $N b = {tex(p.n_params * b, 12)}$ bytes of weights, spread "
            f"over {p.n_gpus} GPU{'s' if p.n_gpus > 1 else ''} reading at "
            f"$B_{{\\mathrm{{mem}}}} = {tex(p.mem_bw_tbps, 12)} \\times 10^{{12}}$ B/s each:\n\n"
            + step(
                TPOT,
                {
                    "N": tex(p.n_params, 15),
                    "b": b,
                    "n": p.n_gpus,
                    "B": f"{tex(p.mem_bw_tbps, 12)} \\times 10^{{12}}",
                },
                seconds,
                "s",
            )
            + f"\n\nThat is **{sig(seconds * 1e3, 6)} ms** per token, so at most "
            f"$1 / ({tex(seconds)}\\ \\mathrm{{s}})$ = **{sig(1 / seconds, 6)} tok/s**. "
            "Real decoding is "
            "slower: it also reads the KV cache and never reaches the full bandwidth."
        )

    def misconceptions(self, p: DecodeParams) -> list[Misconception]:
        b = BYTES_PER_ELEMENT[p.weight_dtype]
        seconds = _decode_seconds(p)
        wrong_b = 2 if b != 2 else 1
        wrong = seconds * wrong_b / b
        out = [
            Misconception(
                "wrong-bytes-per-param",
                "tpot",
                wrong * 1e3,
                f"That assumes {wrong_b} byte(s) per parameter. {p.weight_dtype.upper()} "
                f"weights take {sig(b)} byte(s) each, and the bytes read set the floor.",
            ),
            Misconception(
                "wrong-bytes-per-param",
                "tokens_per_s",
                1 / wrong,
                f"That assumes {wrong_b} byte(s) per parameter. {p.weight_dtype.upper()} "
                f"weights take {sig(b)} byte(s) each.",
            ),
            Misconception(
                "unit-scale",
                "tpot",
                seconds,
                "That is the time in seconds; the question asks for milliseconds (x 1000).",
            ),
            Misconception(
                "unit-scale",
                "tokens_per_s",
                1 / (seconds * 1e3),
                "That inverts the time in milliseconds, giving tokens per millisecond. "
                "Invert the time in seconds to get tokens per second.",
            ),
        ]
        return out

    def factor_hints(self, p: DecodeParams) -> FactorHints:
        return FactorHints(parallelism=p.n_gpus if p.n_gpus > 1 else None)


# --- prefill-time -----------------------------------------------------------------------------


class PrefillParams(Params):
    n_params: float = Field(gt=0, le=1e14)
    prompt_tokens: int = Field(ge=1, le=100_000_000)
    peak_tflops: float = Field(gt=0, le=1e6)
    n_gpus: int = Field(ge=1, le=4096)
    mfu: float = Field(gt=0, le=1)


PREFILL = formula(
    r"t_{\mathrm{prefill}}",
    lambda s: 2 * s.N * s.T / (s.n * s.P * s.u),
    N="N",
    T="T",
    n="n",
    P=r"P_{\mathrm{peak}}",
    u=r"\mathrm{MFU}",
)
_PROMPTS = (256, 512, 1000, 1024, 2048, 4000, 4096, 8192, 16384, 32768, 65536, 131072)
_PREFILL_MFU = (0.25, 0.3, 0.35, 0.4, 0.45, 0.55, 0.6)


def _prefill_seconds(p: PrefillParams) -> float:
    return 2 * p.n_params * p.prompt_tokens / (p.n_gpus * p.peak_tflops * 1e12 * p.mfu)


@register
class PrefillTime(Template):
    slug = "prefill-time"
    title = "Prefill time from FLOPs"
    family = "serving"
    lessons = ("prefill-decode-and-the-cost-of-a-token", "serving-models", "llm-inference-at-scale")
    skills = ("prefill-compute-bound", "ttft", "mfu")
    difficulty = 2
    Params = PrefillParams

    def generate(self, rng: random.Random) -> PrefillParams:
        while True:
            model = rng.choice(dense_models())
            acc, prec = draw_accelerator(rng, ("bf16", "bf16", "fp8"), need_bw=False)
            weight_bytes = model.total_params * BYTES_PER_ELEMENT[prec]
            n = _gpu_count(rng, weight_bytes, acc)
            prompts = [t for t in _PROMPTS if t <= model.max_context]
            if n is None or not prompts:
                continue
            return PrefillParams(
                n_params=float(model.total_params),
                prompt_tokens=rng.choice(prompts),
                peak_tflops=peak_tflops_of(acc, prec),
                n_gpus=n,
                mfu=rng.choice(_PREFILL_MFU),
            )

    def solve(self, p: PrefillParams) -> dict[str, Part]:
        return {"ttft": Part("ttft", _prefill_seconds(p) * 1e3, "ms", label="Time to first token")}

    def statement(self, p: PrefillParams) -> str:
        named = model_with_params(p.n_params, among=dense_models())
        model = f"{named.name if named else 'A dense model'} ({params_count(p.n_params)} parameters"
        hits = matching_accelerators(peak_tflops=p.peak_tflops)
        if hits:
            prec = PRECISION_LABEL[hits[0][1] or "bf16"]
            gpu = (
                f"each GPU ({accelerator_names(hits)}) with a dense {prec} peak of "
                f"{sig(p.peak_tflops, 12)} TFLOP/s.{sparse_note(hits)}"
            )
        else:
            gpu = f"each with a dense peak of {sig(p.peak_tflops, 12)} TFLOP/s."
        return (
            f"{model}, $N = {tex(p.n_params, 15)}$) receives a prompt of "
            f"$T = {tex(p.prompt_tokens, 12)}$ tokens. It runs on {_gpus_phrase(p.n_gpus)}, "
            f"{gpu} The prefill runs at a model FLOPs utilization of "
            f"$\\mathrm{{MFU}} = {tex(p.mfu, 12)}$.\n\n"
            "Count about $2N$ FLOP per prompt token (one multiply and one add per weight; "
            "ignore the attention-score FLOPs), and ignore queueing and communication. How "
            "long does the prefill take, i.e. the time to first token, in ms?"
        )

    def solution(self, p: PrefillParams) -> str:
        seconds = _prefill_seconds(p)
        return (
            f"The prompt costs $2 N T = {tex(2 * p.n_params * p.prompt_tokens, 6)}$ FLOP. "
            f"The GPUs deliver $n \\times P_{{\\mathrm{{peak}}}} \\times \\mathrm{{MFU}}$ of it "
            "per second:\n\n"
            + step(
                PREFILL,
                {
                    "N": tex(p.n_params, 15),
                    "T": p.prompt_tokens,
                    "n": p.n_gpus,
                    "P": f"{tex(p.peak_tflops, 12)} \\times 10^{{12}}",
                    "u": p.mfu,
                },
                seconds,
                "s",
            )
            + f"\n\nTime to first token: **{sig(seconds * 1e3, 6)} ms**."
        )

    def misconceptions(self, p: PrefillParams) -> list[Misconception]:
        ms = _prefill_seconds(p) * 1e3
        out = [
            Misconception(
                "mfu-ignored",
                "ttft",
                ms * p.mfu,
                "That assumes the GPUs run at their full peak. Real kernels reach only the "
                "stated fraction of it (MFU), so divide by MFU too.",
            ),
            Misconception(
                "training-6n",
                "ttft",
                ms * 3,
                "That uses 6N FLOP per token, the training count (forward plus backward). "
                "Prefill is a forward pass only: about 2N FLOP per token.",
            ),
            Misconception(
                "unit-scale",
                "ttft",
                ms / 1e3,
                "That is the time in seconds; the question asks for milliseconds (x 1000).",
            ),
        ]
        ratio = sparse_ratio(matching_accelerators(peak_tflops=p.peak_tflops))
        if ratio is not None:
            out.append(
                Misconception(
                    "sparse-peak",
                    "ttft",
                    ms / ratio,
                    "That uses the 2:4 sparsity headline as the peak. Dense transformer "
                    "kernels only reach the dense figure.",
                )
            )
        return out

    def factor_hints(self, p: PrefillParams) -> FactorHints:
        return FactorHints(parallelism=p.n_gpus if p.n_gpus > 1 else None)


# --- spec-decode ------------------------------------------------------------------------------


class SpecParams(Params):
    alpha: float = Field(ge=0, le=1)
    gamma: int = Field(ge=1, le=64)
    draft_cost: float = Field(ge=0, le=1)


TOKENS_PER_STEP = formula(
    r"E", lambda s: (1 - s.a ** (s.g + 1)) / (1 - s.a), a=r"\alpha", g=r"\gamma"
)
SPEEDUP = formula(r"S", lambda s: s.E / (s.g * s.c + 1), E="E", g=r"\gamma", c="c")
_ALPHAS = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)
_DRAFT_COSTS = (0.02, 0.03, 0.05, 0.08, 0.1, 0.15, 0.2)


def _expected_tokens(alpha: float, gamma: int) -> float:
    if alpha == 1:
        return float(gamma + 1)  # the limit of the geometric sum
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)


def _draft_pairs() -> list[tuple[catalog.ModelArch, catalog.ModelArch, float]]:
    """(draft, target, cost ratio) for dense models of one family sharing a tokenizer."""
    dense = dense_models()
    pairs = []
    for d in dense:
        for t in dense:
            same_family = d.name.rsplit(" ", 1)[0] == t.name.rsplit(" ", 1)[0]
            if (
                same_family
                and d.vocab_size == t.vocab_size
                and d.total_params * 4 <= t.total_params
            ):
                pairs.append((d, t, round(d.total_params / t.total_params, 4)))
    return pairs


@register
class SpecDecode(Template):
    slug = "spec-decode"
    title = "Speculative decoding: tokens per step and speedup"
    family = "serving"
    lessons = ("speculative-decoding", "llm-inference-at-scale")
    skills = ("speculative-decoding", "geometric-series")
    difficulty = 3
    Params = SpecParams

    def generate(self, rng: random.Random) -> SpecParams:
        pairs = _draft_pairs()
        # Half the time a real draft/target pair, costed by their parameter ratio.
        from_pair = bool(pairs) and rng.random() < 0.5
        cost = rng.choice(pairs)[2] if from_pair else rng.choice(_DRAFT_COSTS)
        return SpecParams(alpha=rng.choice(_ALPHAS), gamma=rng.randint(1, 8), draft_cost=cost)

    def solve(self, p: SpecParams) -> dict[str, Part]:
        tokens = _expected_tokens(p.alpha, p.gamma)
        return {
            "tokens_per_step": Part(
                "tokens_per_step", tokens, "", label="Expected tokens per target pass"
            ),
            "speedup": Part("speedup", tokens / (p.gamma * p.draft_cost + 1), "", label="Speedup"),
        }

    def statement(self, p: SpecParams) -> str:
        pair = next(
            (pr for pr in _draft_pairs() if math.isclose(pr[2], p.draft_cost, rel_tol=1e-9)),
            None,
        )
        if pair:
            setup = (
                f"You serve {pair[1].name} with speculative decoding, using {pair[0].name} "
                f"(same tokenizer) as the draft model. Decoding is memory-bound, so a draft "
                f"step costs about the ratio of their parameter counts: "
                f"$c = {tex(p.draft_cost, 12)}$ of a target forward pass."
            )
        else:
            setup = (
                "You serve a large model with speculative decoding. A small draft model's "
                f"forward pass costs $c = {tex(p.draft_cost, 12)}$ of the target model's."
            )
        return (
            f"{setup} Each step, the draft proposes $\\gamma = {p.gamma}$ tokens one by one, "
            "then the target verifies them all in a single forward pass. Each drafted token "
            f"is accepted with probability $\\alpha = {tex(p.alpha, 12)}$, independently; "
            "the first rejection ends the run, and the target's pass always contributes "
            "one token of its own (a correction or a bonus token).\n\n"
            "1. How many tokens does one step produce on average (a pure number)?\n"
            "2. What is the expected speedup over plain decoding with the target model "
            "(a pure number, counting the draft passes as cost)?"
        )

    def solution(self, p: SpecParams) -> str:
        tokens = _expected_tokens(p.alpha, p.gamma)
        speed = tokens / (p.gamma * p.draft_cost + 1)
        if p.alpha == 1:
            first = (
                f"With $\\alpha = 1$ every draft is accepted: $E = \\gamma + 1 = {p.gamma + 1}$."
            )
        else:
            first = (
                "The step yields $1 + \\alpha + \\alpha^2 + \\dots + \\alpha^{\\gamma}$ tokens "
                "on average (token $k$ survives only if all before it were accepted), a "
                "geometric sum:\n\n" + step(TOKENS_PER_STEP, {"a": p.alpha, "g": p.gamma}, tokens)
            )
        return (
            f"{first}\n\nOne step costs $\\gamma$ draft passes plus one target pass, "
            "$\\gamma c + 1$ target-pass equivalents, against 1 token per target pass "
            "without speculation:\n\n"
            + step(SPEEDUP, {"E": tokens, "g": p.gamma, "c": p.draft_cost}, speed)
        )

    def misconceptions(self, p: SpecParams) -> list[Misconception]:
        tokens = _expected_tokens(p.alpha, p.gamma)
        cost = p.gamma * p.draft_cost + 1
        out = [
            Misconception(
                "independent-acceptance",
                "tokens_per_step",
                p.gamma * p.alpha + 1,
                "That counts gamma x alpha accepted drafts, as if each draft were judged on "
                "its own. Verification stops at the first rejection, so later drafts count "
                "only if all earlier ones were accepted: a geometric sum.",
            ),
            Misconception(
                "missing-bonus-token",
                "tokens_per_step",
                tokens - 1,
                "That counts only accepted drafts. The target's verification pass always "
                "adds one token of its own, so add 1.",
            ),
            Misconception(
                "draft-cost-ignored",
                "speedup",
                tokens,
                "That treats the draft passes as free. Each step also runs gamma draft "
                "passes, each costing c of a target pass: divide by gamma x c + 1.",
            ),
            Misconception(
                "draft-cost-once",
                "speedup",
                tokens / (p.draft_cost + 1),
                "That charges for one draft pass per step. The draft runs once per proposed "
                "token, gamma times: divide by gamma x c + 1.",
            ),
            Misconception(
                "missing-bonus-token",
                "speedup",
                (tokens - 1) / cost,
                "That leaves out the token the target pass always contributes.",
            ),
        ]
        return out


# --- littles-law ------------------------------------------------------------------------------


class LittleParams(Params):
    arrival_rps: float = Field(gt=0, le=1e7)
    latency_s: float = Field(gt=0, le=86_400)
    per_replica_concurrency: int = Field(ge=1, le=1_000_000)


CONCURRENCY = formula("L", lambda s: s.lam * s.W, lam=r"\lambda", W="W")
REPLICAS = formula("r", lambda s: sympy.ceiling(s.L / s.c), L="L", c=r"C_{\mathrm{replica}}")
_RATES = (0.5, 1, 2, 3, 4, 5, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 120, 150, 200)
_LATENCIES = (0.4, 0.6, 0.8, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10, 12, 15, 20, 30, 45)
_SLOTS = (4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256)


def _exact_concurrency(p: LittleParams):
    return exact(p.arrival_rps) * exact(p.latency_s)


def _replicas(p: LittleParams) -> int:
    return math.ceil(_exact_concurrency(p) / p.per_replica_concurrency)


@register
class LittlesLaw(Template):
    slug = "littles-law"
    title = "Little's law: requests in flight and replicas"
    family = "serving"
    lessons = ("serving-models", "batching-for-llm-inference", "llm-inference-at-scale")
    skills = ("littles-law", "capacity-planning")
    difficulty = 1
    Params = LittleParams

    def generate(self, rng: random.Random) -> LittleParams:
        while True:
            p = LittleParams(
                arrival_rps=float(rng.choice(_RATES)),
                latency_s=float(rng.choice(_LATENCIES)),
                per_replica_concurrency=rng.choice(_SLOTS),
            )
            if 2 <= _replicas(p) <= 60:
                return p

    def solve(self, p: LittleParams) -> dict[str, Part]:
        return {
            "concurrency": Part(
                "concurrency",
                p.arrival_rps * p.latency_s,
                "",
                label="Requests in flight (average)",
            ),
            "replicas": Part(
                "replicas",
                _replicas(p),
                "",
                kind=Kind.INTEGER,
                tolerance=Exact(),
                label="Replicas needed",
            ),
        }

    def statement(self, p: LittleParams) -> str:
        return (
            f"An LLM inference endpoint receives on average $\\lambda = "
            f"{tex(p.arrival_rps, 12)}$ requests per second, and a request spends on average "
            f"$W = {tex(p.latency_s, 12)}$ s in the system, from arrival to its last token. "
            f"One replica of the serving engine can hold at most "
            f"$C_{{\\mathrm{{replica}}}} = {p.per_replica_concurrency}$ requests in flight "
            "(its maximum number of concurrent sequences).\n\n"
            "1. On average, how many requests are in flight (a pure number)?\n"
            "2. What is the smallest whole number of replicas whose combined slots hold that "
            "average (ignore bursts and headroom)?"
        )

    def solution(self, p: LittleParams) -> str:
        concurrency = p.arrival_rps * p.latency_s
        return (
            "Little's law: the average number in the system is arrival rate times the "
            "average time in the system.\n\n"
            + step(CONCURRENCY, {"lam": p.arrival_rps, "W": p.latency_s}, concurrency)
            + "\n\nReplicas come in whole units, so round up:\n\n"
            + step(REPLICAS, {"L": concurrency, "c": p.per_replica_concurrency}, _replicas(p))
            + "\n\nIn production you would add headroom for bursts on top of this floor."
        )

    def misconceptions(self, p: LittleParams) -> list[Misconception]:
        out = [
            Misconception(
                "rate-over-latency",
                "concurrency",
                p.arrival_rps / p.latency_s,
                "That divides the arrival rate by the latency. Little's law multiplies "
                "them: requests per second x seconds each = requests in flight.",
            ),
            Misconception(
                "latency-over-rate",
                "concurrency",
                p.latency_s / p.arrival_rps,
                "That divides the latency by the arrival rate (the mean gap between "
                "arrivals is 1/lambda). Requests in flight are lambda x W.",
            ),
            Misconception(
                "floor-not-ceil",
                "replicas",
                math.floor(_exact_concurrency(p) / p.per_replica_concurrency),
                "That rounds down, leaving too few slots for the average load. A partial "
                "replica still needs a whole one: round up.",
            ),
            Misconception(
                "rate-as-capacity",
                "replicas",
                math.ceil(exact(p.arrival_rps) / p.per_replica_concurrency),
                "That treats a replica's concurrent slots as requests per second. Each "
                "request holds a slot for W seconds, so divide lambda x W by the slots.",
            ),
        ]
        return drop_close_counts(out, {"replicas": _replicas(p)})
