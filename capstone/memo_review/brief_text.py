"""The brief as the page shows it: Markdown, in our own words.

Prices are written "USD 6.88", never with a dollar sign: the renderer reads `$...$` as
maths. The sizing conventions are spelled out because the reviewer recomputes every key
figure with them; a memo may argue for others under "What would change the plan".
"""

from __future__ import annotations

from capstone.memo_review.memo import FIGURES, SECTIONS


def _n(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.4g}"


def brief_markdown(brief) -> str:
    rows = "\n".join(
        f"| {c.name} (`{c.slug}`) | {c.usable_gib:.2f} GiB | {c.mem_bw_tb_s:.3g} TB/s "
        f"| {c.dense_tflops:,.0f} TFLOP/s {c.dense_dtype.upper()} "
        f"| USD {c.usd_per_gpu_hour:.4g} ({c.provider} {c.instance_type}, "
        f"{c.gpus_per_instance} GPU{'s' if c.gpus_per_instance > 1 else ''}, "
        f"read {c.price_as_of}) |"
        for c in brief.candidates
    )
    sources = "\n".join(
        f"- {c.provider} {c.instance_type}: " + ", ".join(f"<{s}>" for s in c.price_source)
        for c in brief.candidates
    )
    sections = "\n".join(f"{i}. {name}" for i, name in enumerate(SECTIONS, 1))
    figure_lines = "\n".join(f"- {f.label}: ... {f.unit_hint}".rstrip() for f in FIGURES)
    return f"""# Capstone brief {brief.seed}: serve a {brief.workload}

You are planning the inference fleet for a **{brief.workload}** built on
**{brief.model_name}** (`{brief.model_slug}`): {brief.n_params:,} parameters,
{brief.n_layers} layers, {brief.n_kv_heads} key/value heads of dimension {brief.head_dim},
a context window of {brief.max_context:,} tokens. Weights are served in
**{brief.weight_dtype.upper()}** and the KV cache is kept in **{brief.kv_dtype.upper()}**.

## Traffic

- {brief.sessions_per_day:,} sessions a day, {brief.messages_per_session} messages (requests)
  per session on average; the busiest hour runs at {_n(brief.peak_to_average)} times the
  daily average rate.
- Prompt tokens per request: mean {brief.prompt_tokens_mean:,}, p99
  {brief.prompt_tokens_p99:,} (conversation history and retrieved context included).
- Output tokens per request: mean {brief.output_tokens_mean:,}, p99
  {brief.output_tokens_p99:,}.

## Service-level objectives

- Time to first token, p99: {brief.ttft_p99_ms:,} ms.
- Time per output token: {brief.tpot_ms} ms.

## Candidate accelerators

| Accelerator | Usable memory | Memory bandwidth | Dense peak | On-demand price per GPU-hour |
|---|---|---|---|---|
{rows}

Price sources (public on-demand list prices; they move, so each carries the date it was read):

{sources}

## Sizing conventions the review uses

- The serving engine may use {_n(brief.gpu_memory_utilization)} of each GPU's memory
  (vLLM's `gpu_memory_utilization`); weights are split evenly across a replica's GPUs.
- A replica is one tensor-parallel group inside one instance of the listed type: a power
  of two, at most the instance's GPUs and at most {brief.max_tensor_parallel}; its weights
  must leave {_n(brief.kv_reserve_fraction)} of every GPU free.
- Every sequence reserves its full context; a context must hold the p99 prompt plus the
  p99 output ({brief.min_context:,} tokens) and fit the model's window.
- A request holds its sequence slot for the p99 TTFT target plus its mean output at the
  time-per-output-token target. Size the fleet for the peak rate (Little's law).
- A replica runs no more sequences than its memory holds, nor more than it can decode
  within the time-per-output-token target: a decode step reads the weights once and each
  running sequence's cache (on average its mean prompt plus half its mean output) over
  the replica's memory bandwidth.
- Compute: the fleet may count on at most 60% of its GPUs' dense peak (at the precision
  quoted above) for the peak's prefill and decode together, at 2 x parameters FLOPs per
  token plus attention (2 x layers x context x query heads x head dimension; the model
  has {brief.n_heads or "its"} query heads).
- The p99 prompt, prefilled on one replica's GPUs at 60% of their dense peak, must meet
  the TTFT target.
- A month is 730 hours; cost is GPUs times the listed price per GPU-hour.

## What to hand in

A fleet that breaks any of these (compute, memory, TTFT, time per output token) cannot
serve the traffic, however cheap it is.

A Markdown memo with these `##` sections, in any order:

{sections}

The **Key figures** section is a list of `- Label: value unit` lines, one per figure
(the unit may be left out when it is the one shown):

{figure_lines}

Show your arithmetic in the sections. The measurement plan and the failure-case test
must name what you would measure, with which tool, and the number that decides pass or
fail.
"""
