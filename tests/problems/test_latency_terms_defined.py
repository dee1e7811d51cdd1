"""Every latency term a statement uses is defined in it (issue 34): TTFT from when to
when, and for which request; TPOT as the gap between consecutive tokens of a stream
(and, where it matters, every gap or the mean). A learner who reads "TPOT" as the
per-request mean and one who reads it as the worst gap must reach the same answer."""

from __future__ import annotations

import re

import pytest

from problems.engine import registry
from problems.engine.variants import Variant

SEEDS = range(40)
USES = {
    "ttft": re.compile(r"\bTTFT\b|time to first token", re.I),
    "tpot": re.compile(r"\bTPOT\b|time per output token|\bITL\b|inter-token", re.I),
}
DEFINES = {
    # from arrival to the first output token
    "ttft": re.compile(r"arriv\w*[^.]{0,40}(to|until) (its|the) first (output )?token", re.I),
    # the time between two consecutive tokens of one stream
    "tpot": re.compile(
        r"(between|from) (one|two) (consecutive )?output tokens?[^.]{0,40}"
        r"|time per output token is the step time",
        re.I,
    ),
}


@pytest.mark.parametrize("slug", registry.slugs())
def test_every_latency_term_is_defined_where_used(slug):
    undefined = set()
    for seed in SEEDS:
        text = Variant.from_seed(slug, seed).statement_markdown()
        for term, used in USES.items():
            if used.search(text) and not DEFINES[term].search(text):
                undefined.add((seed, term))
    assert not undefined, sorted(undefined)[:6]
