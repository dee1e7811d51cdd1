"""The spec's example file (shared/spec/authoring.md, copied to data/): it validates, draws
exact answers over seeds 0-99, grades like a built-in template and passes the QA sweep."""

import random
from fractions import Fraction
from pathlib import Path

import pytest

from problems.authored.loader import load_file, read_file, validate
from problems.engine.check import check_template
from problems.engine.hints import hints_for
from problems.engine.variants import ParamError, Variant, parse_params

EXAMPLE = Path(__file__).parent / "data" / "team-kv-budget.yaml"

# By hand, from hardware_db/data/models.yaml and accelerators.yaml.
ARCH = {"llama-3.1-8b": (32, 8, 128), "llama-3.1-70b": (80, 8, 128)}
MEMORY = {"h100-sxm": 80 * 10**9, "h200": 141 * 10**9}
GIB = 2**30


@pytest.fixture(scope="module")
def template():
    return load_file(EXAMPLE)


def by_hand(params) -> tuple[int, str, int]:
    """(KV bytes for one sequence, the fit verdict, the K-or-V-only bytes)."""
    layers, kv_heads, head_dim = ARCH[params.model]
    per_token = 2 * layers * kv_heads * head_dim * 2  # K and V, BF16 = 2 bytes
    total = per_token * params.tokens
    fits = "fits" if params.batch * total <= MEMORY[params.gpu] else "does-not-fit"
    return total, fits, total // 2


def test_the_example_validates():
    assert validate(read_file(EXAMPLE)) == []


def test_seeds_0_to_99_draw_exact_answers(template):
    verdicts = set()
    for seed in range(100):
        variant = Variant(template, template.generate(random.Random(seed)))
        p = variant.params
        assert p.model in ARCH and p.gpu in MEMORY
        assert 4096 <= p.tokens <= 65536 and p.tokens % 4096 == 0
        assert 1 <= p.batch <= 64
        total, fits, slip = by_hand(p)
        assert total < MEMORY[p.gpu]  # the constraint
        parts = variant.parts
        assert parts["kv"].unit == "GiB"
        assert Fraction(parts["kv"].value) == Fraction(total, GIB)  # exact: a multiple of 1/64
        assert parts["fits_batch"].value == fits
        (m,) = variant.misconceptions
        assert (m.code, m.part, m.value) == ("k-or-v-only", "kv", slip / GIB)
        assert f"{p.tokens} tokens" in variant.statement_markdown()
        verdicts.add(fits)
    assert verdicts == {"fits", "does-not-fit"}  # both answers occur over the seeds


def test_same_seed_same_variant(template):
    a = template.generate(random.Random(7))
    assert a == template.generate(random.Random(7))
    stored = template.parse_params(a.model_dump())  # as an attempt stores and replays them
    assert stored == a
    assert Variant(template, a).parts == Variant(template, stored).parts


@pytest.mark.parametrize(
    "change, needle",
    [
        ({"tokens": 70000}, "tokens"),
        ({"tokens": "4096"}, "tokens"),
        ({"batch": True}, "batch"),
        ({"gpu": "b200"}, "gpu"),
        ({"model": "gpt-3-175b"}, "model"),
        ({"extra": 1}, "extra"),
    ],
)
def test_stored_parameters_are_held_to_what_could_be_drawn(template, change, needle):
    good = template.generate(random.Random(0)).model_dump()
    with pytest.raises(ParamError, match=needle):
        parse_params(template, {**good, **change})


def test_grading_right_answer_gib_slip_and_named_misconception(template):
    variant = Variant(template, template.generate(random.Random(3)))
    total, _fits, _slip = by_hand(variant.params)
    right = total / GIB
    assert variant.grade("kv", f"{right}").correct
    assert variant.grade("kv", f"{right:.3f} GiB").correct
    assert variant.grade("kv", f"{total / 1e9} GB").correct  # any unit of the same kind
    assert variant.grade("kv", f"{total} bytes").correct

    gb_as_gib = variant.grade("kv", f"{total / 1e9:.4f} GiB")  # divided by 10^9, called GiB
    assert not gb_as_gib.correct and gb_as_gib.misconception == "gb-vs-gib"

    half = variant.grade("kv", f"{right / 2}")
    assert not half.correct
    assert half.misconception == "k-or-v-only"
    assert half.feedback == "Keys and values are both cached, so twice this."

    wrong_kind = variant.grade("kv", f"{right} s")
    assert wrong_kind.misconception == "wrong-unit-kind"


def test_choice_part_grades_by_word(template):
    variant = Variant(template, template.generate(random.Random(0)))
    _total, fits, _slip = by_hand(variant.params)
    other = "does-not-fit" if fits == "fits" else "fits"
    assert variant.grade("fits_batch", fits).correct
    assert variant.grade("fits_batch", fits.upper().replace("-", " ")).correct
    assert not variant.grade("fits_batch", other).correct
    assert not variant.grade("fits_batch", "maybe").valid


def test_author_hints_are_used_and_rendered_safely(template):
    variant = Variant(template, template.generate(random.Random(0)))
    hints = hints_for(variant)
    assert [h.markdown for h in hints] == [
        "Each layer stores a key and a value vector per KV head for every token."
    ]
    assert hints[0].html.startswith("<p>Each layer")


def test_check_sweep_passes_with_every_slip_distinguishable(template):
    report = check_template(template, 100)
    assert report.variants == 100
    assert report.failures == []
    rows = {(r.part, r.misconception): r for r in report.distinguish.rows.values()}
    own = rows[("kv", "k-or-v-only")]
    assert own.applies == 100 and own.distinguishable == 100
    assert rows[("kv", "gb-vs-gib")].share == 1.0
    assert report.distinguish.below(0.9, 5) == []
