"""Hand-worked answers and slips for the measurement family (request-log-latency,
sweep-knee-max-seqs, fleet-from-sweep), and a reader written here that finds every answer
from the printed log or table alone, over 200 seeds. Every expected value below is worked
in the comment beside it from the stated numbers, not from the templates' code."""

from __future__ import annotations

import math
import random
import re

import pytest

from problems.engine import registry
from problems.engine.variants import Variant
from tests.problems.template_harness import slips, solve

SLUGS = ["request-log-latency", "sweep-knee-max-seqs", "fleet-from-sweep"]
SEEDS = range(200)


@pytest.mark.parametrize("slug", SLUGS)
def test_generators_vary(slug):
    t = registry.get(slug)
    drawn = {t.generate(random.Random(s)).model_dump_json() for s in SEEDS}
    assert len(drawn) > 150


# --- sweep-knee-max-seqs ----------------------------------------------------------------

ROWS = (
    (1, 100, 200, 10),
    (2, 195, 205, 10),
    (4, 380, 210, 11),
    (8, 720, 230, 12),
    (16, 1300, 260, 14),
    (32, 2100, 320, 18),
    (64, 2800, 450, 26),
    (128, 3000, 900, 45),
    (256, 3010, 5000, 46),
)
SWEEP = {
    "deployment": "llama-3.1-8b-h100",
    "prompt_tokens": 1000,
    "output_tokens": 300,
    "rows": ROWS,
    "slo_ttft_ms": 500,
    "slo_tpot_ms": 25,
}


def test_knee_is_the_last_row_within_both_targets():
    # TPOT <= 25 holds up to c = 32 (18 ms; 64 has 26 ms); TTFT <= 500 up to c = 64
    # (450 ms). Both: c = 32, 2,100 tok/s.
    parts = solve("sweep-knee-max-seqs", SWEEP)
    assert parts["max_num_seqs"].value == 32
    assert parts["tokens_per_s"].value == 2100.0
    # Peak throughput 3,010 at c = 256; TTFT alone allows 64; the first row breaking the
    # SLO is also 64 (dropped: the same count); its throughput 2,800; one user's share
    # 2,100 / 32 = 65.625 tok/s. TPOT alone allows 32, the answer: not named.
    assert slips("sweep-knee-max-seqs", SWEEP) == {
        ("throughput-peak", "max_num_seqs"): 256,
        ("throughput-peak", "tokens_per_s"): 3010.0,
        ("tpot-ignored", "max_num_seqs"): 64,
        ("first-violating-row", "tokens_per_s"): 2800.0,
        ("per-user-rate", "tokens_per_s"): 65.625,
    }


def test_a_binding_ttft_target_moves_the_answer():
    # TTFT <= 300 holds up to c = 16 (260 ms; 32 has 320); TPOT <= 25 up to 32: both, 16.
    parts = solve("sweep-knee-max-seqs", {**SWEEP, "slo_ttft_ms": 300})
    assert (parts["max_num_seqs"].value, parts["tokens_per_s"].value) == (16, 1300.0)
    assert (
        slips("sweep-knee-max-seqs", {**SWEEP, "slo_ttft_ms": 300})[
            ("ttft-ignored", "max_num_seqs")
        ]
        == 32
    )


# --- fleet-from-sweep -----------------------------------------------------------------


def test_fleet_sized_from_the_slo_row_with_headroom():
    # SLO row c = 32: 2,100 tok/s / 300 output tokens = 7 req/s. At 80%: 5.6 req/s, and
    # 50 / 5.6 = 8.93 -> 9 replicas.
    params = {**SWEEP, "peak_rps": 50.0, "max_util_pct": 80}
    parts = solve("fleet-from-sweep", params)
    assert parts["per_replica_rps"].value == pytest.approx(7.0)
    assert parts["replicas"].value == 9
    # Peak row: 3,010 / 300 = 10.0333 req/s; 50 / (0.8 x 10.0333) = 6.23 -> 7.
    # Prompt counted: 2,100 / 1,300 = 1.61538 req/s; 50 / 1.29231 = 38.7 -> 39.
    # No headroom: 50 / 7 = 7.14 -> 8. Headroom on the load: 60 / 7 = 8.57 -> 9, the
    # answer; rounding down: 8, as no headroom: both dropped.
    got = slips("fleet-from-sweep", params)
    assert got[("peak-row", "per_replica_rps")] == pytest.approx(3010 / 300)
    assert got[("prompt-counted", "per_replica_rps")] == pytest.approx(2100 / 1300)
    assert {k: v for k, v in got.items() if k[1] == "replicas"} == {
        ("peak-row", "replicas"): 7,
        ("prompt-counted", "replicas"): 39,
        ("headroom-ignored", "replicas"): 8,
    }


# --- request-log-latency --------------------------------------------------------------


def _req(arrival, prompt, first, last, out, finish):
    return {
        "arrival_ms": arrival,
        "prompt_tokens": prompt,
        "first_token_ms": first,
        "last_token_ms": last,
        "output_tokens": out,
        "finish": finish,
    }


LOG = {
    "deployment": "llama-3.1-8b-h100",
    "concurrency": 8,
    "max_tokens": 64,
    "requests": (
        _req(0, 500, 120, 1000, 64, "length"),  # r01 TTFT 120
        _req(100, 800, 400, 1500, 40, "stop"),  # r02 TTFT 300
        _req(200, 300, None, None, 0, "error"),  # r03
        _req(300, 900, 2300, 2400, 5, "abort"),  # r04 TTFT 2,000, cancelled
        _req(450, 600, 700, 900, 5, "stop"),  # r05 TTFT 250, traced
        _req(600, 700, 1100, 3100, 60, "stop"),  # r06 TTFT 500, named
        _req(700, 400, None, None, 0, "abort"),  # r07
    ),
    "trace": 4,
    "trace_ms": (700, 730, 760, 850, 900),
    "e2e_request": 5,
}


def test_request_log_by_hand():
    parts = solve("request-log-latency", LOG)
    # Completed (stop, length): r01, r02, r05, r06, TTFTs sorted 120, 250, 300, 500.
    # n = 4: p50 at rank ceil(2) = 2 -> 250 ms; p99 at rank ceil(3.96) = 4 -> 500 ms.
    assert parts["ttft_p50"].value == 250.0
    assert parts["ttft_p99"].value == 500.0
    # r05's gaps 30, 30, 90, 50 ms: worst 90. r06: 3,100 - 600 = 2,500 ms = 2.5 s.
    assert parts["worst_gap"].value == 90.0
    assert parts["e2e"].value == pytest.approx(2.5)
    # completed 4, cancelled 2 (r04, r07), failed 1 (r03).
    assert [parts[k].value for k in ("completed", "cancelled", "failed")] == [4, 2, 1]


def test_request_log_slips_by_hand():
    got = slips("request-log-latency", LOG)
    # mean 1,170 / 4 = 292.5; first-token times 120, 400, 700, 1,100: p50 400, p99 1,100;
    # middle two averaged (250 + 300) / 2 = 275; r04's 2,000 ms timed too: p99 2,000.
    assert got[("mean-not-percentile", "ttft_p50")] == 292.5
    assert got[("first-token-timestamp", "ttft_p50")] == 400.0
    assert got[("interpolated-percentile", "ttft_p50")] == 275.0
    assert got[("first-token-timestamp", "ttft_p99")] == 1100.0
    assert got[("cancelled-timed", "ttft_p99")] == 2000.0
    # mean gap (900 - 700) / 4 = 50; r05's TTFT 250 counted as a gap.
    assert got[("mean-gap", "worst_gap")] == 50.0
    assert got[("ttft-as-gap", "worst_gap")] == 250.0
    # from r06's first token 2.0 s; its last token's timestamp 3.1 s.
    assert got[("e2e-from-first-token", "e2e")] == pytest.approx(2.0)
    assert got[("timestamp-not-duration", "e2e")] == pytest.approx(3.1)
    # 4 + 2 cancelled = 6; stop only 3; failed + length 2; failed + cancelled 3.
    assert got[("aborted-counted-completed", "completed")] == 6
    assert got[("length-not-completed", "completed")] == 3
    assert got[("length-counted-failed", "failed")] == 2
    assert got[("abort-counted-failed", "failed")] == 3


def test_a_length_finish_must_reach_max_tokens():
    bad = dict(LOG, max_tokens=100)  # r01 says length with 64 tokens
    with pytest.raises(ValueError):
        registry.get("request-log-latency").parse_params(bad)


# --- readers: the answers from the printed text alone ---------------------------------

_FENCE = re.compile(r"```text\n(.*?)\n```", re.S)


def _rank(values, pct):
    ordered = sorted(values)
    return ordered[max(1, math.ceil(pct * len(ordered) / 100)) - 1]


def _ms(text):
    return None if text == "-" else round(float(text) * 1000)


def read_log(statement: str) -> dict:
    """Every answer of request-log-latency, from its statement's text."""
    log, trace = _FENCE.findall(statement)
    rows = {}
    for line in log.splitlines()[1:]:
        rid, arr, _prompt, first, last, out, finish = line.split()
        rows[rid] = (_ms(arr), _ms(first), _ms(last), int(out), finish)
    times = [_ms(t) for t in trace.split()]
    traced = re.search(r"consecutive output tokens of (r\d+)", statement).group(1)
    named = re.search(r"end-to-end latency of (r\d+)", statement).group(1)
    done = [r for r in rows.values() if r[4] in ("stop", "length")]
    ttfts = [first - arr for arr, first, _, _, _ in done]
    assert (times[0], times[-1], len(times)) == rows[traced][1:4]
    arr, _, last, _, _ = rows[named]
    kinds = [r[4] for r in rows.values()]
    return {
        "ttft_p50": _rank(ttfts, 50),
        "ttft_p99": _rank(ttfts, 99),
        "worst_gap": max(b - a for a, b in zip(times, times[1:], strict=False)),
        "e2e": (last - arr) / 1000,
        "completed": kinds.count("stop") + kinds.count("length"),
        "cancelled": kinds.count("abort"),
        "failed": kinds.count("error"),
    }


def read_sweep(statement: str) -> tuple[int, int]:
    """(concurrency, tok/s) of the last row within both targets the statement gives."""
    (table,) = _FENCE.findall(statement)
    ttft = int(re.search(r"p99 TTFT at most ([\d,]+) ms", statement).group(1).replace(",", ""))
    tpot = int(re.search(r"p99 TPOT at most (\d+) ms", statement).group(1))
    best = None
    for line in table.splitlines()[1:]:
        c, tok, a, b = (int(x.replace(",", "")) for x in line.split())
        if a <= ttft and b <= tpot:
            best = (c, tok)
    return best


def test_the_log_reader_finds_every_answer():
    for seed in SEEDS:
        v = Variant.from_seed("request-log-latency", seed)
        read = read_log(v.statement_markdown())
        for name, part in v.parts.items():
            assert read[name] == pytest.approx(part.value), (seed, name)


@pytest.mark.parametrize("slug", ["sweep-knee-max-seqs", "fleet-from-sweep"])
def test_the_sweep_reader_finds_the_slo_row(slug):
    for seed in SEEDS:
        v = Variant.from_seed(slug, seed)
        c, tok = read_sweep(v.statement_markdown())
        p = v.params
        if slug == "sweep-knee-max-seqs":
            assert (v.parts["max_num_seqs"].value, v.parts["tokens_per_s"].value) == (c, tok)
        else:
            rate = tok / p.output_tokens
            assert v.parts["per_replica_rps"].value == pytest.approx(rate), seed
            need = p.peak_rps / (p.max_util_pct / 100 * rate)
            assert v.parts["replicas"].value == math.ceil(need - 1e-9), seed


def test_sweeps_rise_then_flatten_while_latency_grows():
    """The server model: throughput never falls as concurrency doubles, each doubling gains
    less than the last, little at the top; p99 TTFT and TPOT never fall; the answer row is
    one of c = 4..128."""
    t = registry.get("sweep-knee-max-seqs")
    for seed in range(100):
        p = t.generate(random.Random(seed))
        tok = [r[1] for r in p.rows]
        assert tok == sorted(tok), seed
        gains = [b / a for a, b in zip(tok, tok[1:], strict=False)]
        # each doubling gains no more than the one before (2% for rounding)
        assert all(g2 <= g1 * 1.02 for g1, g2 in zip(gains, gains[1:], strict=False)), seed
        assert gains[-1] < 1.6, seed  # far from the 2x of the first doublings
        assert tok[-1] > 5 * tok[0], seed  # batching buys throughput
        for col in (2, 3):
            lat = [r[col] for r in p.rows]
            assert lat == sorted(lat), (seed, col)
        assert 4 <= t.solve(p)["max_num_seqs"].value <= 128, seed
