"""Is a measurement plan, or a failure-case test, concrete enough to run, and right?

A reviewer can run a measurement plan that names four things: the tool that makes or
reads the traffic (vLLM's benchmark_serving, GuideLLM, genai-perf, Locust, k6, DCGM,
Prometheus...), a load at the brief's peak, pass thresholds at the brief's SLO, and the
rule that decides pass or fail (plan_content holds the two checks against the brief). A
failure-case test names the fault it injects, the behaviour expected during it, a
threshold on a metric (a comparison, a number and what it is measured in) and the rule.
Each is found by its content, wherever it stands in the text; length is not judged (a
terse plan with all four beats a long one with none, so nobody learns to pad). Points:
all four 3, three 2, two 1. The evidence quotes what was found, the comment names what
is missing or wrong. Keyword patterns, not judgement: they catch the vague or mistaken
plan and leave the good one to the instructor's reading.
"""

from __future__ import annotations

import re
from typing import Any

from capstone.memo_review import plan_content as content
from capstone.memo_review.checks import _c, quote
from capstone.memo_review.memo import Section

_TOOL = re.compile(
    r"\b(vllm\S*|benchmark_serving|benchmark[_ ]serving\.py|guidellm|genai-perf|locust|k6|"
    r"wrk2?|hey|vegeta|perf_analyzer|triton|sglang|tensorrt-llm|trtllm-bench|dcgm\w*|"
    r"dcgmi|nvidia-smi|prometheus|grafana|nccl-tests|all_reduce_perf|chaos mesh|"
    r"litmus|kubectl|load ?generator|load[- ]test(?:er|ing)?)\b",
    re.IGNORECASE,
)
_NUMBER = content.NUMBER
_LOAD = re.compile(
    rf"({_NUMBER}\s*(?:requests?|reqs?|req|queries|sessions?|users?|clients?|streams?|"
    rf"prompts?|sequences?)?\s*(?:/|per)\s*(?:s|sec|second|min|minute)\b|"
    rf"{_NUMBER}\s*(?:rps|qps)\b|"
    rf"{_NUMBER}\s*(?:concurrent|parallel|simultaneous)\b[\w ]{{0,20}}|"
    rf"(?:concurrency|batch(?: size)?|rate)\s*(?:of|=|:)?\s*{_NUMBER}|"
    rf"{_NUMBER}\s*(?:%|x|×)\s*(?:of\s+)?(?:the\s+)?peak|"
    rf"(?:at|under|with)\s+(?:the\s+)?peak(?:\s+(?:rate|load|traffic))?)",
    re.IGNORECASE,
)
_COMPARATOR = (
    r"(?:<=|>=|≤|≥|<|>|at most|at least|below|under|above|over|exceeds?|within|"
    r"no more than|less than|more than|stays? (?:at or )?(?:below|under|above))"
)
_UNIT = r"(?:ms|s|seconds?|%|tokens?/s|req/s|gb|gib|w|°c|requests?)"
_THRESHOLD = re.compile(
    rf"({_COMPARATOR}\s*{_NUMBER}\s*{_UNIT}|{_NUMBER}\s*{_UNIT}\s*(?:or (?:less|more|lower|"
    rf"higher)|max(?:imum)?|min(?:imum)?|ceiling|floor|budget|target))",
    re.IGNORECASE,
)
_RULE = re.compile(
    r"\b(pass(?:es)? (?:if|when|only)|fails? (?:if|when|otherwise)|fail otherwise|"
    r"(?:the )?test (?:passes|fails)|pass/fail|go/no-go|abort if|roll ?back if|"
    r"(?:if|when) [^.]{0,80}\b(?:then|we|add|roll|page|fail|stop|abort|block)\b)",
    re.IGNORECASE,
)
_tool = content.found_by("tool", _TOOL, "the tool that makes or reads the traffic")
_load = content.found_by(
    "load", _LOAD, "the load it runs at (a rate, a concurrency or a share of the peak)"
)
_threshold = content.found_by("threshold", _THRESHOLD, "a threshold with its number and unit")
_rule = content.found_by("pass/fail rule", _RULE, "the rule that decides pass or fail")


def concrete_parts(text: str) -> list[content.Found]:
    """The four parts of any runnable plan, judged on wording alone."""
    return [f(text) for f in (_tool, _load, _threshold, _rule)]


def measurement_parts(
    text: str, *, peak_rps: float, replicas: int | None, ttft_ms: int, tpot_ms: int
) -> list[content.Found]:
    """A measurement plan: a tool, a load at the peak, thresholds at the SLO, a rule."""
    return [
        _tool(text),
        content.load_at_peak(text, peak_rps, replicas),
        content.slo_thresholds(text, ttft_ms, tpot_ms),
        _rule(text),
    ]


def failure_parts(text: str) -> list[content.Found]:
    """A failure-case test: the fault, the behaviour expected, a threshold, a rule."""
    return [content.fault_named(text), content.behaviour_named(text), _threshold(text), _rule(text)]


def check_plan_text(
    code: str, title: str, section: Section | None, parts_of=concrete_parts
) -> dict[str, Any]:
    if section is None:
        return _c(code, title, 0, 3, "", f"The '{title.split(' is ')[0]}' section is missing.")
    parts = parts_of(section.text)
    have = [f.name for f in parts if f.evidence]
    missing = [f.missing for f in parts if not f.evidence]
    evidence = " · ".join(f"{f.name}: {quote(f.evidence)}" for f in parts if f.evidence)
    if not missing:
        comment = "Concrete and right: " + ", ".join(have) + "."
    else:
        found = f"Found {', '.join(have)}; " if have else ""
        comment = f"{found}missing: {'; '.join(missing)}."
    return _c(code, title, max(0, len(have) - 1), 3, evidence, comment)
