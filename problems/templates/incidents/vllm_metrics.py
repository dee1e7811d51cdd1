"""vllm-metrics-diagnosis: two scrapes of a vLLM server's Prometheus /metrics, some seconds
apart; say what state the server is in, and read two numbers off the series.

Realism: vLLM 0.7's V0 engine, its series and HELP texts (`vllm:num_requests_running`,
`vllm:num_requests_waiting`, `vllm:gpu_cache_usage_perc` as a 0-1 fraction,
`vllm:num_preemptions_total`, `vllm:prompt_tokens_total`, `vllm:generation_tokens_total`,
and `vllm:cache_config_info` carrying the cache config as labels: block_size,
num_gpu_blocks, and num_cpu_blocks from the 4 GiB swap space; _vllm.py), labelled
with the served model's Hugging Face name, values printed the way the Prometheus Python
client prints them (Go-style exponents from a million up). Deployments are real models
on real accelerators at a tensor-parallel size that holds them; num_gpu_blocks follows
from the accelerator's memory at gpu_memory_utilization 0.9, less the weights' share and
a few GiB of activations, over 16-token blocks of BF16 K and V. Scrape intervals are the
usual 15, 30 or 60 s; decode and prompt rates are those the state allows (_vllm_system.py).

One state is planted, and the validator refuses parameters that fit none: kv-cache-full
(usage at 0.98 or more, the preemption counter rising, the queue growing, the batch below
max_num_seqs); batch-cap-reached (running pinned at max_num_seqs, the queue growing, KV
usage moderate, no new preemptions); healthy (nothing waiting). Parts: the diagnosis, the
generation rate between the scrapes (tok/s) and the KV blocks in use at the second.

Discrimination: waiting > 0 read as a full cache (waiting-means-kv-full); the 0-1 usage
read as a percentage (usage-read-as-percent, on the diagnosis and the blocks); a high
usage with nothing queued called a problem (usage-without-queue); an old, flat preemption
total read as current preemption (counter-not-rate); on the rate, the counter's value
(counter-read-as-rate), its value over the interval (total-not-delta), the delta not
divided (delta-not-divided) and prompt tokens counted in (prompt-tokens-counted); on the
blocks, tokens instead of blocks (blocks-vs-tokens). Each numeric slip is kept 2.5% or
more from the answer and the others (the generator redraws).
"""

from __future__ import annotations

import random
from typing import Annotated

from pydantic import Field, model_validator

from hardware_db import catalog
from problems.engine.numbers import sig
from problems.engine.registry import register
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import parts_separated
from problems.templates.incidents import _vllm_system as system
from problems.templates.incidents._family import choice_part, fenced, menu
from problems.templates.incidents._vllm import (
    BLOCK,
    DEPLOYMENTS,
    GREP,
    HELP,
    SWAP_BYTES,
    UTIL,
    Deployment,
    cpu_blocks,
    go_float,
    gpu_blocks,
)

DIAGNOSES: dict[str, str] = {
    "kv-cache-full": "the KV cache has no free blocks: running requests are preempted and new "
    "ones queue",
    "batch-cap-reached": "the scheduler is running as many sequences as --max-num-seqs allows; "
    "the queue grows although KV blocks are free",
    "healthy": "every request that arrives is admitted; nothing is queued",
}
Count = Annotated[int, Field(ge=0, le=10**12)]
Pair = tuple[Count, Count]


class VllmParams(Params):
    deployment: Deployment
    max_num_seqs: int = Field(ge=1, le=4096)
    interval_s: int = Field(ge=1, le=3600)
    running: Pair
    waiting: Pair
    blocks_used: Pair
    preemptions: Pair
    prompt_tokens: Pair
    generation_tokens: Pair

    @model_validator(mode="after")
    def _consistent(self) -> VllmParams:
        for name in ("preemptions", "prompt_tokens", "generation_tokens"):
            a, b = getattr(self, name)
            if b < a:
                raise ValueError(f"{name} is a counter: the second scrape cannot be lower")
        if self.generation_tokens[1] == self.generation_tokens[0]:
            raise ValueError("no tokens were generated between the scrapes")
        if max(self.running) > self.max_num_seqs:
            raise ValueError("more requests running than max_num_seqs allows")
        if max(self.blocks_used) > gpu_blocks(self.deployment):
            raise ValueError("more KV blocks in use than the deployment has")
        if diagnose(self) is None:
            raise ValueError("the scrapes fit no single diagnosis")
        return self


def diagnose(p: VllmParams) -> str | None:
    """The state the two scrapes show, or None when they fit none cleanly."""
    n = gpu_blocks(p.deployment)
    preempted = p.preemptions[1] > p.preemptions[0]
    usage = p.blocks_used[1] / n
    if p.waiting == (0, 0) and not preempted:
        return "healthy"
    if p.waiting[1] > p.waiting[0] > 0 and preempted and usage >= 0.98:
        return "kv-cache-full" if p.running[1] < p.max_num_seqs else None
    if p.waiting[1] > p.waiting[0] > 0 and not preempted and usage <= 0.85:
        return "batch-cap-reached" if p.running == (p.max_num_seqs,) * 2 else None
    return None


def scrape(p: VllmParams, i: int) -> str:
    """The i-th scrape (0 or 1), filtered to the series the question uses."""
    _, name, _, _ = DEPLOYMENTS[p.deployment]
    n = gpu_blocks(p.deployment)
    values = {
        "num_requests_running": float(p.running[i]),
        "num_requests_waiting": float(p.waiting[i]),
        "gpu_cache_usage_perc": p.blocks_used[i] / n,
        "num_preemptions_total": float(p.preemptions[i]),
        "prompt_tokens_total": float(p.prompt_tokens[i]),
        "generation_tokens_total": float(p.generation_tokens[i]),
    }
    lines = [
        f"$ curl -s http://localhost:8000/metrics | {GREP}",
        "# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig",
        "# TYPE vllm:cache_config_info gauge",
        f'vllm:cache_config_info{{block_size="{BLOCK}",cache_dtype="auto",'
        'calculate_kv_scales="False",cpu_offload_gb="0",enable_prefix_caching="False",'
        f'gpu_memory_utilization="{UTIL}",is_attention_free="False",'
        f'num_cpu_blocks="{cpu_blocks(p.deployment)}",num_gpu_blocks="{n}",'
        'num_gpu_blocks_override="None",sliding_window="None",'
        f'swap_space_bytes="{SWAP_BYTES}"}} 1.0',
    ]
    for series, (kind, text) in HELP.items():
        lines += [f"# HELP vllm:{series} {text}", f"# TYPE vllm:{series} {kind}"]
        lines.append(f'vllm:{series}{{model_name="{name}"}} {go_float(values[series])}')
    return "\n".join(lines)


def _rate(p: VllmParams) -> float:
    return (p.generation_tokens[1] - p.generation_tokens[0]) / p.interval_s


@register
class VllmMetricsDiagnosis(Template):
    slug = "vllm-metrics-diagnosis"
    title = "Diagnose a vLLM server from two /metrics scrapes"
    family = "incidents"
    lessons = (
        "vllm-and-the-job-of-a-model-server",
        "batching-for-llm-inference",
        "the-kv-cache",
        "from-symptoms-to-device-evidence",
    )
    skills = ("vllm", "continuous-batching", "paged-attention", "service-diagnosis")
    difficulty = 3
    Params = VllmParams
    feasibility = system.FEASIBILITY

    def generate(self, rng: random.Random) -> VllmParams:
        while True:
            p = _draw(rng)
            if p is None:
                continue
            numbers = {k: v for k, v in self.solve(p).items() if k != "diagnosis"}
            slips = [m for m in self.misconceptions(p) if m.part in numbers]
            if parts_separated(numbers, slips):
                return p

    def solve(self, p: VllmParams) -> dict[str, Part]:
        return {
            "diagnosis": choice_part("diagnosis", diagnose(p), tuple(DIAGNOSES), "Diagnosis"),
            "gen_rate": Part("gen_rate", _rate(p), "tok/s", label="Generation rate"),
            "kv_blocks": Part(
                "kv_blocks",
                p.blocks_used[1],
                kind=Kind.INTEGER,
                tolerance=Exact(),
                label="KV blocks in use",
            ),
        }

    def statement(self, p: VllmParams) -> str:
        slug, name, acc_slug, tp = DEPLOYMENTS[p.deployment]
        acc = catalog.accelerator(acc_slug)
        gpus = f"one {acc.prose_name}" if tp == 1 else f"{tp} x {acc.prose_name}"
        tp_flag = f" --tensor-parallel-size {tp}" if tp > 1 else ""
        return (
            f"A vLLM 0.7 server (V0 engine) serves `{name}` in BF16 on {gpus}, started with "
            f"`--max-num-seqs {p.max_num_seqs}{tp_flag}`. Two scrapes of its metrics, taken "
            f"{p.interval_s} s apart:\n\n"
            + fenced(scrape(p, 0))
            + f"\n\n{p.interval_s} s later:\n\n"
            + fenced(scrape(p, 1))
            + "\n\n1. Which state is the server in? One of:\n\n"
            + menu(DIAGNOSES)
            + "\n\n2. How many tokens per second did it generate between the two scrapes?\n"
            "3. How many KV-cache blocks were in use at the second scrape?"
        )

    def solution(self, p: VllmParams) -> str:
        n = gpu_blocks(p.deployment)
        u0, u1 = p.blocks_used[0] / n, p.blocks_used[1] / n
        dg = p.generation_tokens[1] - p.generation_tokens[0]
        dp = p.preemptions[1] - p.preemptions[0]
        d = diagnose(p)
        why = {
            "kv-cache-full": f"the cache is {sig(u1 * 100, 4)}% used, {dp} sequences were "
            f"preempted in {p.interval_s} s and the queue grew from {p.waiting[0]} to "
            f"{p.waiting[1]}, while only {p.running[1]} of the {p.max_num_seqs} allowed "
            "sequences run: memory, not the sequence cap, is what stops admission.",
            "batch-cap-reached": f"{p.running[1]} sequences run, exactly --max-num-seqs, and "
            f"the queue grew from {p.waiting[0]} to {p.waiting[1]}, yet the cache is only "
            f"{sig(u1 * 100, 4)}% used and the preemption counter did not move: the "
            "scheduler's sequence cap, not memory, holds requests back.",
            "healthy": f"nothing waits in either scrape and the preemption counter stayed at "
            f"{p.preemptions[1]} (a counter keeps its history; only its change matters). A "
            f"cache {sig(u1 * 100, 4)}% full with an empty queue is the cache doing its job.",
        }[d]
        return (
            "Gauges (running, waiting, usage) are read at each scrape; counters (`_total`) only "
            "mean something as a change between scrapes. `gpu_cache_usage_perc` is a fraction "
            f"of the `num_gpu_blocks` = {n:,} blocks, despite its name.\n\n"
            f"**{d}**: {why}\n\n"
            f"Generation rate: the counter went from {p.generation_tokens[0]:,} to "
            f"{p.generation_tokens[1]:,} tokens, {dg:,} tokens in {p.interval_s} s, so "
            f"$r = {dg} / {p.interval_s} = {sig(_rate(p), 6)}$ tokens/s, **{sig(_rate(p), 6)} "
            "tok/s**. Prompt tokens are prefilled, not generated, and stay out of it.\n\n"
            f"Blocks in use: usage {go_float(u1)} $\\times$ {n:,} blocks = "
            f"**{p.blocks_used[1]:,}** blocks (of {BLOCK} tokens each). At the first scrape "
            f"it was {p.blocks_used[0]:,} ({sig(u0 * 100, 4)}%)."
        )

    def _numeric_slips(self, p: VllmParams) -> list[Misconception]:
        g0, g1 = p.generation_tokens
        dp = p.prompt_tokens[1] - p.prompt_tokens[0]
        t = p.interval_s
        return [
            Misconception(
                "counter-read-as-rate",
                "gen_rate",
                float(g1),
                "That is the counter's value: every token since the server started. "
                "A rate is the change between the two scrapes over the time between.",
            ),
            Misconception(
                "total-not-delta",
                "gen_rate",
                g1 / t,
                "That divides the whole counter by the interval. Subtract the first "
                "scrape's value first: the counter started long before it.",
            ),
            Misconception(
                "delta-not-divided",
                "gen_rate",
                float(g1 - g0),
                f"That is the number of tokens between the scrapes; divide by the "
                f"{t} s between them for a rate.",
            ),
            Misconception(
                "prompt-tokens-counted",
                "gen_rate",
                (g1 - g0 + dp) / t,
                "That adds prompt tokens, which are prefilled rather than generated; "
                "the generation rate counts output tokens only.",
            ),
        ]

    def misconceptions(self, p: VllmParams) -> list[Misconception]:
        d = diagnose(p)
        n = gpu_blocks(p.deployment)
        used = p.blocks_used[1]
        out = list(self._numeric_slips(p))
        pct = round(used / 100)
        if pct != used:
            out.append(
                Misconception(
                    "usage-read-as-percent",
                    "kv_blocks",
                    pct,
                    "That takes the usage as a percentage. The gauge is a fraction: 0.5 means "
                    f"half of the {n:,} blocks.",
                )
            )
        out.append(
            Misconception(
                "blocks-vs-tokens",
                "kv_blocks",
                used * BLOCK,
                f"That is tokens: each block holds {BLOCK} tokens. The question asks for blocks.",
            )
        )
        if d == "kv-cache-full":
            out.append(
                Misconception(
                    "usage-read-as-percent",
                    "diagnosis",
                    "batch-cap-reached",
                    "The usage gauge is a 0-1 fraction: near 1 means the cache is nearly all in "
                    "use, not nearly empty. Rising preemptions confirm memory is what runs out.",
                )
            )
        elif d == "batch-cap-reached":
            out.append(
                Misconception(
                    "waiting-means-kv-full",
                    "diagnosis",
                    "kv-cache-full",
                    "Requests wait for more than one reason. Here the cache has free blocks and "
                    "nothing was preempted; what is full is the sequence cap, --max-num-seqs.",
                )
            )
        elif used / n >= 0.9:
            out.append(
                Misconception(
                    "usage-without-queue",
                    "diagnosis",
                    "kv-cache-full",
                    "A nearly full cache is only a problem when requests queue or get preempted; "
                    "here nothing waits, so the cache is simply being used.",
                )
            )
        else:
            out.append(
                Misconception(
                    "counter-not-rate",
                    "diagnosis",
                    "kv-cache-full",
                    "The preemption total is a counter with the server's whole history; it did "
                    "not change between the scrapes, so nothing is being preempted now.",
                )
            )
        return out


def _draw(rng: random.Random) -> VllmParams | None:
    """One candidate variant of a randomly chosen state (None when it misses a rule)."""
    dep = rng.choice(tuple(DEPLOYMENTS))
    n = gpu_blocks(dep)
    cap = rng.choice((64, 128, 256, 256, 512))
    state = rng.choice(tuple(DIAGNOSES))
    interval = rng.choice((15, 30, 60))
    history = rng.choice((0, rng.randint(1, 3000)))
    if state == "kv-cache-full":
        used = (n - rng.randint(0, n // 200), n - rng.randint(0, n // 60))
        ctx = rng.randint(2048, 16384)
        running = [min(cap - 1, max(4, round(u * BLOCK / ctx) + rng.randint(-2, 2))) for u in used]
        w0 = rng.randint(2, 40)
        waiting = (w0, w0 + rng.randint(3, 60))
        pre = (history, history + max(1, round(rng.uniform(0.1, 3.0) * interval)))
    elif state == "batch-cap-reached":
        u1 = rng.uniform(0.35, 0.8)
        used = (round(u1 * n * rng.uniform(0.96, 1.02)), round(u1 * n))
        running = [cap, cap]
        w0 = rng.randint(3, 80)
        waiting = (w0, w0 + rng.randint(5, 150))
        pre = (history, history)
        if used[1] * BLOCK / cap < 300:  # under 300 tokens a sequence: not a chat workload
            return None
    else:
        u1 = rng.choice((rng.uniform(0.9, 0.97), rng.uniform(0.15, 0.8)))
        used = (round(u1 * n * rng.uniform(0.9, 1.05)), round(u1 * n))
        ctx = rng.randint(600, 8000)
        running = [min(cap - 1, max(1, round(u * BLOCK / ctx))) for u in used]
        waiting = (0, 0)
        pre = (history, history)
        if u1 < 0.9 and history == 0:
            pre = (rng.randint(1, 3000),) * 2
    used, running = tuple(min(n, u) for u in used), tuple(running)
    per_seq = system.draw_decode_rate(rng, dep, running, used)
    dg = round((running[0] + running[1]) / 2 * per_seq * interval)
    g0 = rng.randint(2 * 10**5, 9 * 10**8)
    p0 = rng.randint(g0, 6 * g0)
    dpr = system.draw_prompt_tokens(rng, dep, running, used, dg, interval)
    try:
        return VllmParams(
            deployment=dep,
            max_num_seqs=cap,
            interval_s=interval,
            running=running,
            waiting=waiting,
            blocks_used=used,
            preemptions=pre,
            prompt_tokens=(p0, p0 + dpr),
            generation_tokens=(g0, g0 + dg),
        )
    except ValueError:
        return None
