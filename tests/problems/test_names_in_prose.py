"""Statements name hardware as an engineer would (issue 34): "NVIDIA B200", not the
catalog record's "B200 (HGX B200, per GPU)", whose parenthetical qualifies the record's
figures and reads as a database label in prose."""

from __future__ import annotations

import pytest

from hardware_db import catalog
from problems.engine import registry
from problems.engine.variants import Variant

SEEDS = range(60)
LABELS = [a.name for a in catalog.accelerators() if "(" in a.name] + [
    link.name for link in catalog.links() if "(" in link.name
]


def test_the_catalog_has_labels_to_keep_out():
    assert "B200 (HGX B200, per GPU)" in LABELS
    assert catalog.accelerator("b200").prose_name == "NVIDIA B200"
    assert catalog.link("google-ici-v6e").short_name == "Google TPU v6e inter-chip interconnect"


@pytest.mark.parametrize("slug", registry.slugs())
def test_no_catalog_label_in_statement_or_solution(slug):
    leaks = set()
    for seed in SEEDS:
        variant = Variant.from_seed(slug, seed)
        text = variant.statement_markdown() + variant.template.solution(variant.params)
        text += " ".join(m.feedback for m in variant.misconceptions)
        leaks |= {(seed, label) for label in LABELS if label in text}
    assert not leaks, sorted(leaks)[:5]
