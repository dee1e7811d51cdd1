"""What the two plan sections must say about *this* brief, beyond being concrete.

A measurement plan proves the fleet only if it loads it as the peak will (a rate at or
above the brief's peak over the whole fleet, or the peak's share for the one replica it
tests, or a share of the peak of 100% or more) and passes it on the brief's own SLO (the
TTFT p99 and TPOT targets, each equal to the brief's within rounding: a looser bar
passes a fleet that misses the SLO, a tighter one fails a fleet that meets it). A
failure-case test is one only if it names a fault (what breaks, and where) and the
behaviour expected while it lasts.

Each part is found by its content (keyword and number patterns, as in plan_text), and
says what it found or what is wrong, so the comment names the gap.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

# A number starts only where a run of digits starts: tried from every digit, `\d[\d,]*`
# was quadratic on a run of them (plan_text reads numbers with it too).
NUMBER = r"(?<![\d,.])\d[\d,]*(?:\.\d+)?"
_RATE = re.compile(
    rf"(?P<n>{NUMBER})\s*(?:requests?|reqs?|queries|prompts?|sessions?|users?)?\s*"
    rf"(?:/|per)\s*(?P<per>s|sec|second|min|minute)\b|(?P<m>{NUMBER})\s*(?:rps|qps)\b",
    re.IGNORECASE,
)
_SHARE = re.compile(
    rf"(?P<n>{NUMBER})\s*(?P<kind>%|percent|x|×)\s*(?:of\s+)?(?:the\s+)?(?:brief's\s+)?peak",
    re.IGNORECASE,
)
_AT_PEAK = re.compile(
    r"\b(?:at|under|with|replay(?:ing)?|drive[sn]?|run(?:ning)?)\s+(?:the\s+)?(?:full\s+)?peak"
    r"(?:\s+(?:rate|load|traffic))?\b|\bthe peak rate\b",
    re.IGNORECASE,
)
_ONE_REPLICA = re.compile(
    r"\b(?:one|a single|each|single)\s+replica\b|\bper[- ]replica\b|\bper replica\b",
    re.IGNORECASE,
)
_MS = re.compile(rf"(?P<n>{NUMBER})\s*(?:ms|milliseconds?)\b", re.IGNORECASE)
_TTFT = re.compile(r"\b(?:ttft|time to first token)\b", re.IGNORECASE)
_TPOT = re.compile(
    r"\b(?:tpot|itl|inter-token latency|time per output token|per-token latency)\b",
    re.IGNORECASE,
)
_FAULT = re.compile(
    r"\b(?:kill(?:s|ing)?|crash(?:es|ing)?|stop(?:s|ping)?|drain(?:s|ing)?|evict(?:s|ing)?|"
    r"reboot(?:s|ing)?|power(?:s|ing)? off|unplug(?:s|ging)?|disconnect(?:s|ing)?|"
    r"los(?:e|es|ing)|take(?:s)? down|cordon(?:s)?|fail(?:s|ing)?)\s+"
    r"(?:(?:one|a|an|the|two|\d+|its|of)\s+)*(?:\w+\s+)?"
    r"(?:replicas?|pods?|nodes?|gpus?|servers?|hosts?|links?|nics?|ports?|switch(?:es)?|"
    r"racks?|workers?|instances?|zones?|engines?)\b|"
    r"\bxid\s*\d+|\b(?:ecc|nvlink|infiniband|ib|network|nic|link)\s+"
    r"(?:errors?|failures?|down|flaps?|flapping|partition)\b|"
    r"\b(?:oom|out of memory|network partition|power loss|thermal throttl\w*)\b",
    re.IGNORECASE,
)
_BEHAVIOUR = re.compile(
    r"\b(?:absorb\w*|re-?rout\w*|fail(?:s)? ?over|failover|retr(?:y|ies|ied)|"
    r"redistribut\w*|shift\w*|reschedul\w*|recover\w*|replac\w*|autoscal\w*|"
    r"keeps? serving|(?:stays?|remains?) (?:at or )?(?:below|under|within|above)|"
    r"no (?:dropped|lost|failed) requests|degrade[sd]? gracefully|"
    r"queue(?:s|d)? (?:rather than|instead of))",
    re.IGNORECASE,
)
TOLERANCE = 0.02  # a figure within 2% reads as the brief's (rounding)


@dataclass(frozen=True)
class Found:
    """A part of a plan: `evidence` when it is there and right, else `missing` says why."""

    name: str
    evidence: str | None
    missing: str


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def _rates(text: str) -> list[tuple[float, str]]:
    found = []
    for m in _RATE.finditer(text):
        if m.group("m"):
            found.append((_num(m.group("m")), m.group(0)))
        else:
            per_min = m.group("per").lower().startswith("m")
            found.append((_num(m.group("n")) / (60 if per_min else 1), m.group(0)))
    return found


def load_at_peak(text: str, peak_rps: float, replicas: int | None) -> Found:
    """The plan's load against the brief's peak (whole fleet, or one replica's share)."""
    want = f"a load at the brief's peak ({peak_rps:.3g} requests/s over the fleet"
    one = _ONE_REPLICA.search(text) is not None and replicas
    if one:
        want += f", {peak_rps / replicas:.3g} for one of {replicas} replicas"
    want += ")"
    for m in _SHARE.finditer(text):
        share = _num(m.group("n")) / (100 if m.group("kind") in ("%", "percent") else 1)
        if share >= 1 - TOLERANCE:
            return Found("load", m.group(0).strip(), want)
        return Found("load", None, f"{want}: '{m.group(0).strip()}' is below it")
    rates = _rates(text)
    floor = (peak_rps / replicas if one else peak_rps) * (1 - TOLERANCE)
    for rate, words in rates:
        if rate >= floor:
            return Found("load", words.strip(), want)
    if rates:
        return Found("load", None, f"{want}: '{rates[0][1].strip()}' is below it")
    at_peak = _AT_PEAK.search(text)
    if at_peak:
        return Found("load", at_peak.group(0).strip(), want)
    return Found("load", None, want)


def _threshold_near(text: str, metric: re.Pattern, target: int) -> tuple[str | None, str | None]:
    """(evidence, wrong value) for the first millisecond figure after the metric's name,
    within its sentence."""
    for name in metric.finditer(text):
        window = text[name.end() : name.end() + 120]  # bounded: hostile text stays linear
        window = window.split(". ", 1)[0]
        ms = _MS.search(window)
        if ms is None:
            continue
        value = _num(ms.group("n"))
        if abs(value - target) <= TOLERANCE * target:
            return f"{name.group(0)} … {ms.group(0)}", None
        return None, ms.group(0)
    return None, None


def slo_thresholds(text: str, ttft_ms: int, tpot_ms: int) -> Found:
    """Pass thresholds equal to the brief's SLO: TTFT p99 and TPOT, in milliseconds."""
    want = f"pass thresholds at the SLO (TTFT p99 {ttft_ms} ms and TPOT {tpot_ms} ms)"
    ttft, ttft_wrong = _threshold_near(text, _TTFT, ttft_ms)
    tpot, tpot_wrong = _threshold_near(text, _TPOT, tpot_ms)
    if ttft and tpot:
        return Found("SLO thresholds", f"{ttft}; {tpot}", want)
    problems = []
    if ttft is None:
        problems.append(f"TTFT at {ttft_wrong}" if ttft_wrong else "no TTFT threshold")
    if tpot is None:
        problems.append(f"TPOT at {tpot_wrong}" if tpot_wrong else "no TPOT threshold")
    return Found("SLO thresholds", None, f"{want}: {', '.join(problems)}")


def found_by(name: str, pattern: re.Pattern, want: str) -> Callable[[str], Found]:
    """A part found by a pattern alone: its first match, or `want` as what is missing."""

    def find(text: str) -> Found:
        m = pattern.search(text)
        return Found(name, m.group(0).strip() if m else None, want)

    return find


fault_named = found_by("fault", _FAULT, "the fault it injects and where (kill one replica, ...)")
behaviour_named = found_by(
    "expected behaviour", _BEHAVIOUR, "the behaviour expected during the fault"
)
