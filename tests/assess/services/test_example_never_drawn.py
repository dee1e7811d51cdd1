"""A question never draws its template's public worked example (the variant the lesson
page shows with its solution, problems.engine.examples): with a template of only a few
parameter sets, plain seeds land on it often; question_draw draws again."""

from __future__ import annotations

from assess.models import Slot
from assess.services.questions import question_draw, question_seed
from problems.engine.examples import EXAMPLE_SEED, example_params, is_example
from problems.engine.variants import Variant

FEW = "param-count-dense"  # a handful of parameter sets in all


def test_plain_seeds_do_land_on_the_example_of_a_small_template():
    slot = Slot(pk=7, templates=[FEW])
    hits = sum(
        is_example(
            Variant.from_seed(FEW, question_seed(attempt_id=a, slot_id=slot.pk, variant_number=0))
        )
        for a in range(1, 400)
    )
    assert hits > 0  # what the redraw is for: without it these would be questions


def test_question_draw_never_gives_the_example():
    slot = Slot(pk=7, templates=[FEW])
    example = example_params(FEW)
    for attempt_id in range(1, 400):
        seed, variant = question_draw(attempt_id=attempt_id, slot=slot, order=1, variant_number=0)
        assert variant.params.model_dump(mode="json") != example
        assert Variant.from_seed(FEW, seed).params == variant.params  # the seed stored replays it


def test_a_draw_off_the_example_keeps_its_original_seed():
    slot = Slot(pk=7, templates=[FEW])
    for attempt_id in range(1, 60):
        plain = question_seed(attempt_id=attempt_id, slot_id=slot.pk, variant_number=0)
        if not is_example(Variant.from_seed(FEW, plain)):
            assert (
                question_draw(attempt_id=attempt_id, slot=slot, order=1, variant_number=0)[0]
                == plain
            )


WEIGHTS = "weights-memory"  # its example, 405B in INT4 in GB, prints the bytes in GiB too


def _printed_answer(variant: Variant, text: str) -> bool:
    """The variant's answer as a page prints it (two decimals and the unit) is in `text`."""
    part = variant.parts["weights"]
    return f"{float(part.value):.2f} {part.unit}" in text


def test_no_draw_answers_with_a_number_the_lesson_page_prints():
    """The weights-memory example's solution says the same bytes are 188.99 GiB: the
    answer of the variants asking for 405B in INT4 or FP4 in GiB, other parameters than
    the example's. A CI run's deferred-feedback walk met one in an exam and found its
    answer on the lesson page; plain seeds land there one time in 60."""
    example = Variant.from_seed(WEIGHTS, EXAMPLE_SEED)
    page = example.statement_markdown() + example.solution_markdown()
    assert "188.99 GiB" in page
    slot = Slot(pk=7, templates=[WEIGHTS])
    plain = [
        Variant.from_seed(WEIGHTS, question_seed(attempt_id=a, slot_id=slot.pk, variant_number=0))
        for a in range(1, 600)
    ]
    assert any(_printed_answer(v, page) for v in plain)  # what the redraw is for
    for attempt_id in range(1, 600):
        _, variant = question_draw(attempt_id=attempt_id, slot=slot, order=1, variant_number=0)
        assert not _printed_answer(variant, page), variant.params
