"""Is a measurement plan, or a failure-case test, concrete enough to run?

A reviewer cannot act on "we will monitor performance": the text must be long enough
to say something (MIN_PLAN_WORDS), give numbers, name a metric or a tool a serving team
really uses, and state the threshold that decides pass or fail. One point for each of
the last three; a text too short to act on scores nothing. Keyword lists, not judgement:
they catch the vague plan, and leave the good one to the instructor's reading.
"""

from __future__ import annotations

import re
from typing import Any

from assess.memo_review.checks import _c, quote
from assess.memo_review.memo import Section

MIN_PLAN_WORDS = 25

# ---------------------------------------------------------------- plans that can fail

_METRIC = re.compile(
    r"\b(ttft|tpot|itl|time to first token|time per output token|inter-token|latency|p50|p90|"
    r"p95|p99|throughput|tokens?/s|requests?/s|rps|qps|goodput|queue|kv[- ]cache|preempt\w*|"
    r"error rate|utili[sz]ation|vllm|benchmark_serving|guidellm|genai-perf|locust|k6|dcgm\w*|"
    r"nvidia-smi|prometheus|grafana|sglang|tensorrt|triton|perf_analyzer|load test\w*)\b",
    re.IGNORECASE,
)
_THRESHOLD = re.compile(
    r"(<=|>=|≤|≥|<|>|\bat most\b|\bat least\b|\bbelow\b|\bunder\b|\babove\b|\bexceeds?\b|"
    r"\bwithin\b|\bno more than\b|\bpass(es)?\b|\bfails?\b)",
    re.IGNORECASE,
)


def check_plan_text(code: str, title: str, section: Section | None) -> dict[str, Any]:
    if section is None:
        return _c(code, title, 0, 3, "", f"The '{title.split(' is ')[0]}' section is missing.")
    text = section.text
    words = len(text.split())
    first = quote(text.split("\n")[0]) if text else ""
    if words < MIN_PLAN_WORDS:
        return _c(
            code,
            title,
            0,
            3,
            first,
            f"Too short to act on ({words} words; at least {MIN_PLAN_WORDS}): say what you "
            "measure, with which tool, and the number that decides pass or fail.",
        )
    gaps = []
    if not re.search(r"\d", text):
        gaps.append("no numbers")
    if not _METRIC.search(text):
        gaps.append("no named metric or tool (TTFT, p99, vLLM's benchmark, DCGM, ...)")
    if not _THRESHOLD.search(text):
        gaps.append("no pass/fail threshold")
    comment = (
        "Concrete: numbers, a named metric or tool, a threshold."
        if not gaps
        else ("Vague: " + "; ".join(gaps) + ".")
    )
    return _c(code, title, 3 - len(gaps), 3, first, comment)
