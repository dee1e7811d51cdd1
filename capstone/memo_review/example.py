"""A complete, correct memo for any brief, and the same memo with planted mistakes.

Used by the tests (the correct memo must earn full marks on every brief; each planted
mistake must be caught and named), by the demo and by the review benchmark. The plan is
the cheapest buildable one at the brief's minimum context (`figures.best_plan`).

Mistakes, by name:
    arithmetic          one replica too few, with GPUs and cost following from it
    memory-only-fleet   replicas by Little's law at the memory bound alone, compute never
                        checked (the old reference plan's slip; a brief whose compute or
                        TPOT sets the fleet shows it)
    cost-arithmetic     the monthly cost 10% off GPUs x price x 730
    gb-vs-gib           the weights given in GiB but labelled GB
    missing-section     the Demand section left out
    vague-measurement   a measurement plan with no numbers, metric or threshold
    vague-failure-test  the same for the failure-case test
"""

from __future__ import annotations

from capstone.memo_review import figures as fig
from capstone.memo_review.brief import Brief

MISTAKES = (
    "arithmetic",
    "memory-only-fleet",
    "cost-arithmetic",
    "gb-vs-gib",
    "missing-section",
    "vague-measurement",
    "vague-failure-test",
)


def _sections(brief: Brief, p: fig.Plan, acc, weights_text: str, m: dict) -> dict[str, str]:
    headroom = 1 - brief.kv_reserve_fraction
    return {
        "Assumptions": (
            f"{brief.model_name} with {brief.weight_dtype.upper()} weights and a "
            f"{brief.kv_dtype.upper()} KV cache on {acc.name}, priced at USD "
            f"{acc.usd_per_gpu_hour:g} per GPU-hour ({acc.provider} {acc.instance_type}, read "
            f"{acc.price_as_of}). The engine gets {brief.gpu_memory_utilization:g} of each GPU. "
            f"Each sequence reserves {p.context:,} tokens, the p99 prompt plus the p99 output, "
            "so no request is refused for length. A request holds its slot for the TTFT target "
            "plus its mean output at the per-token target."
        ),
        "Weights and state budget": (
            f"Weights: {brief.n_params:,} parameters, {weights_text}. KV cache: 2 x "
            f"{brief.n_layers} layers x {brief.n_kv_heads} KV heads x {brief.head_dim} x "
            f"bytes per element = {p.kv_kib:.4g} KiB per token. Tensor parallel {p.tp} "
            f"(the minimum is {p.tp_min}: the weights must fit in {headroom:g} of each "
            f"{acc.usable_gib:.2f} GiB GPU)."
        ),
        "Demand": (
            f"{brief.sessions_per_day:,} sessions x {brief.messages_per_session} messages / "
            f"86,400 s = {brief.mean_rps:.4g} requests/s on average, {brief.peak_rps:.4g} at "
            f"the {brief.peak_to_average:g}x peak. Each holds a slot for "
            f"{brief.slot_seconds:.4g} s, so by Little's law {m['peak']} sequences are in "
            "flight at the peak."
        ),
        "Capacity per replica": (
            f"{p.tp} GPUs give {p.tp} x {acc.usable_gib:.2f} GiB x "
            f"{brief.gpu_memory_utilization:g}; after the weights the rest holds {m['seqs']} "
            f"sequences of {p.context:,} tokens each. A decode step reads the weights once "
            f"and each running sequence's cache over {p.tp} x {acc.mem_bw_tb_s:.3g} TB/s, so "
            f"{p.seqs_tpot:,} sequences decode within {brief.tpot_ms} ms; the batch is the "
            f"smaller, {p.batch}. The p99 prompt prefills within the {brief.ttft_p99_ms:,} ms "
            f"TTFT target at 60% of the replica's {acc.dense_dtype.upper()} peak."
        ),
        "Fleet": m["fleet"],
        "Measurement plan": m["measure"],
        "Failure-case test": m["failure"],
        "What would change the plan": (
            "Paged attention reserves blocks as tokens arrive, so measured concurrency per "
            "replica could be well above the full-context bound and cut the fleet. A cheaper "
            "price, prefix caching for shared system prompts, or a longer p99 prompt would "
            "also move the numbers; each is one input to recompute."
        ),
    }


MEASURE = (
    "Replay a day of production prompt and output lengths against one replica with vLLM's "
    "benchmark_serving at {per_replica} requests/s, the peak rate over the replicas. "
    "Pass if TTFT p99 "
    "stays at or below {ttft} ms and time per output token stays at or below {tpot} ms, "
    "with KV cache usage under 95% and zero preemptions in the vLLM metrics."
)
FAILURE = (
    "Kill one replica (or one GPU with a DCGM-injected Xid) at the peak rate and watch the "
    "rest absorb the load for 30 minutes. Pass if TTFT p99 stays below {ttft2} ms and the "
    "error rate stays under 0.1%; fail otherwise and add one replica of headroom."
)
VAGUE_MEASURE = (
    "Once the fleet is live we will watch how the service behaves for a while, gather "
    "feedback from users and from the people on call, look at the dashboards regularly "
    "and tune the configuration whenever something seems off."
)
VAGUE_FAILURE = "We will test failures later and check the system is resilient."


def _little_replicas(brief: Brief, per_replica: int) -> int:
    little = fig.littles_law(brief.peak_rps, brief.slot_seconds, per_replica)
    return int(little.parts["replicas"].value)


def example_memo(brief: Brief, *, accelerator: str | None = None, mistakes=()) -> str:
    unknown = set(mistakes) - set(MISTAKES)
    if unknown:
        raise ValueError(f"unknown mistakes {sorted(unknown)}; known: {', '.join(MISTAKES)}")
    p = fig.best_plan(brief, accelerator)
    acc = brief.candidate(p.accelerator)
    replicas, gpus, cost = p.replicas, p.gpus, p.cost
    by_memory = _little_replicas(brief, p.batch)
    if "memory-only-fleet" in mistakes:
        replicas = _little_replicas(brief, p.seqs)
        gpus = replicas * p.tp
        cost = fig.monthly_cost(gpus, acc.usd_per_gpu_hour)
    if "arithmetic" in mistakes and replicas > 1:
        replicas -= 1
        gpus = replicas * p.tp
        cost = fig.monthly_cost(gpus, acc.usd_per_gpu_hour)
    if "cost-arithmetic" in mistakes:
        cost *= 1.1
    weights_bytes = p.weights_gb * 1e9
    weights = f"{p.weights_gb:.4g} GB"
    if "gb-vs-gib" in mistakes:
        weights = f"{weights_bytes / 2**30:.4g} GB"
    m = {
        "peak": f"{p.peak_concurrency:,.1f}",
        "seqs": p.seqs,
        "replicas": replicas,
        "gpus": gpus,
        "cost": f"{cost:,.0f} USD",
        "measure": MEASURE.format(  # one replica's share of the peak, over the memo's fleet
            per_replica=f"{brief.peak_rps / replicas:.3g}",
            ttft=brief.ttft_p99_ms,
            tpot=brief.tpot_ms,
        ),
        "failure": FAILURE.format(ttft2=2 * brief.ttft_p99_ms),
    }
    fleet = (
        f"{m['peak']} / {p.batch} rounded up is {by_memory} replicas for the sequences in "
        f"flight. The peak's prefill and decode need {p.replicas_compute} replicas' GPUs at "
        f"60% of their dense peak"
    )
    if p.replicas_compute > by_memory and "memory-only-fleet" not in mistakes:
        fleet += f", so compute sets the fleet: {replicas} replicas"
    else:
        fleet += f": {replicas} replicas"
    m["fleet"] = fleet + f", {gpus} GPUs, {m['cost']} a month at 730 hours."
    if "vague-measurement" in mistakes:
        m["measure"] = VAGUE_MEASURE
    if "vague-failure-test" in mistakes:
        m["failure"] = VAGUE_FAILURE
    sections = _sections(brief, p, acc, weights, m)
    if "missing-section" in mistakes:
        del sections["Demand"]
    body = "\n\n".join(f"## {name}\n\n{text}" for name, text in sections.items())
    key = [
        f"Accelerator: {acc.name} (`{acc.slug}`)",
        f"Tensor parallel: {p.tp}",
        f"Context per sequence: {p.context:,} tokens",
        f"Weights: {weights}",
        f"KV per token: {p.kv_kib:.4g} KiB",
        f"Concurrent sequences per replica: {p.seqs}",
        f"Peak concurrent sequences: {m['peak']}",
        f"Replicas: {replicas}",
        f"GPUs: {gpus}",
        f"Monthly cost: {m['cost']}",
    ]
    figures_block = "\n".join(f"- {line}" for line in key)
    title = f"# Capacity memo: {brief.workload} on {brief.model_name}"
    return f"{title}\n\n{body}\n\n## Key figures\n\n{figures_block}\n"
