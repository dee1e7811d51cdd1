"""Every link from an objective to what tests it is kept only where that thing asks about it.

For each linked template or drill, the statement (and part labels, or the drill's alert,
fault and remedy) of several seeds must mention one of the objective's terms; a link that
cannot show it in words carries a one-line reason instead (curricula/objectives.py).
"""

from __future__ import annotations

import pytest

from curricula.objectives import LINK_SEEDS, ObjectiveRecord, asked_text, unsupported_links
from curricula.schema import load_catalog
from tests.curricula.capstone_rubric import capstone_titles


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def test_every_unreasoned_link_mentions_the_objectives_terms(catalog):
    problems = [
        problem
        for _c, _m, lesson in catalog.lessons()
        for objective in lesson.objectives
        for problem in unsupported_links(lesson.slug, objective, capstone_titles=capstone_titles())
    ]
    assert problems == []


def test_the_link_test_catches_an_off_topic_link():
    objective = ObjectiveRecord.model_validate(
        {
            "text": "Explain the causal mask.",
            "terms": ["causal mask"],
            "tested_by": ["weights-memory", "drill-gpu-off-bus", "capstone:replicas"],
        }
    )
    problems = unsupported_links(
        "a-lesson", objective, seeds=(1,), capstone_titles=capstone_titles()
    )
    assert [p.split(" (seed")[0] for p in problems] == [
        "a-lesson: weights-memory",
        "a-lesson: drill-gpu-off-bus",
        "a-lesson: capstone:replicas",
    ]


def test_a_reason_excuses_a_link_and_terms_match_across_case_and_line_breaks():
    objective = ObjectiveRecord.model_validate(
        {
            "text": "Size the weights.",
            "terms": ["WEIGHTS MEMORY"],
            "tested_by": [
                "weights-memory",
                {"ref": "gb-gib", "reason": "the unit conversion is half the skill"},
            ],
        }
    )
    assert unsupported_links("a-lesson", objective) == []


def test_what_each_kind_of_reference_shows_the_link_test():
    assert "Weights memory" in asked_text("weights-memory", 1)  # a part label
    assert "GPU fallen off the bus" in asked_text("drill-gpu-off-bus", 1)  # the planted fault
    titles = capstone_titles()
    assert asked_text("capstone:replicas", 1, titles) == asked_text("capstone:replicas", 7, titles)
    with pytest.raises(ValueError, match="rubric's titles"):
        asked_text("capstone:replicas", 1)
    assert len(LINK_SEEDS) >= 5
