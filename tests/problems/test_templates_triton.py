"""Hand-checked answers and slips for triton-tile (kernels family)."""

from __future__ import annotations

import pytest

from problems.engine.variants import Variant
from tests.problems.template_harness import assert_bad_params_refused, slips, solve

SLUG = "triton-tile"


def test_h100_bf16_128x256x64_three_stages():
    # intensity = 2 x 128 x 256 / ((128 + 256) x 2) = 65,536 / 768 = 85.333 FLOP/B;
    # one stage = (128 x 64 + 64 x 256) x 2 B = 49,152 B; x 3 = 147,456 B = 144 KiB <= 227.
    params = {
        "gpu": "h100-sxm",
        "dtype": "bf16",
        "block_m": 128,
        "block_n": 256,
        "block_k": 64,
        "num_stages": 3,
    }
    parts = solve(SLUG, params)
    assert parts["intensity"].value == pytest.approx(65536 / 768)
    assert parts["intensity"].unit == "FLOP/B"
    assert parts["smem"].value == pytest.approx(144.0)
    assert parts["smem"].unit == "KiB"
    assert parts["fits"].value == "yes"
    named = slips(SLUG, params)
    # C tile counted: 2 x 128 x 256 x 64 / ((8,192 + 16,384 + 32,768) x 2) = 36.571
    assert named[("counted-output-tile", "intensity")] == pytest.approx(4194304 / 114688)
    assert named[("flop-not-doubled", "intensity")] == pytest.approx(65536 / 768 / 2)
    assert named[("elements-not-bytes", "intensity")] == pytest.approx(65536 / 384)
    assert named[("forgot-num-stages", "smem")] == pytest.approx(48.0)
    assert named[("kb-vs-kib", "smem")] == pytest.approx(147.456)
    assert named[("counted-output-tile", "smem")] == pytest.approx(144 + 64)
    assert named[("elements-not-bytes", "smem")] == pytest.approx(72.0)
    assert ("forgot-num-stages", "fits") not in named  # one stage fits as well


def test_a100_pipelined_tiles_do_not_fit_but_one_stage_would():
    # (256 + 128) x 64 x 2 B x 4 stages = 196,608 B = 192 KiB > 163 KiB; one stage 48 KiB.
    params = {
        "gpu": "a100-sxm-80gb",
        "dtype": "bf16",
        "block_m": 256,
        "block_n": 128,
        "block_k": 64,
        "num_stages": 4,
    }
    parts = solve(SLUG, params)
    assert parts["smem"].value == pytest.approx(192.0)
    assert parts["fits"].value == "no"
    assert slips(SLUG, params)[("forgot-num-stages", "fits")] == "yes"
    v = Variant.from_params(SLUG, params)
    graded = v.grade("fits", "yes")
    assert not graded.correct and graded.misconception == "forgot-num-stages"


def test_mi300x_fp8_against_64_kib_of_lds():
    # 2 x 256 x 256 / (512 x 1) = 256 FLOP/B; (256 + 256) x 128 x 1 B x 2 = 128 KiB > 64.
    params = {
        "gpu": "mi300x",
        "dtype": "fp8",
        "block_m": 256,
        "block_n": 256,
        "block_k": 128,
        "num_stages": 2,
    }
    parts = solve(SLUG, params)
    assert parts["intensity"].value == pytest.approx(256.0)
    assert parts["smem"].value == pytest.approx(128.0)
    assert parts["fits"].value == "no"
    named = slips(SLUG, params)
    assert not any(code == "elements-not-bytes" for code, _ in named)  # 1 byte per element


def test_square_tile_where_two_slips_coincide_names_the_first():
    # 128 x 128 x 64 bf16: counted-output gives 2*128*128*64 / ((8192*2 + 16384) * 2)
    # = 32 = intensity / 2, the flop-not-doubled value: only the first cause is named.
    params = {
        "gpu": "h100-sxm",
        "dtype": "bf16",
        "block_m": 128,
        "block_n": 128,
        "block_k": 64,
        "num_stages": 4,
    }
    named = slips(SLUG, params)
    assert named[("counted-output-tile", "intensity")] == pytest.approx(32.0)
    assert ("flop-not-doubled", "intensity") not in named


def test_bad_params_refused():
    assert_bad_params_refused(
        SLUG,
        [
            ("gpu", "l40s"),
            ("dtype", "fp64"),
            ("block_m", 0),
            ("num_stages", 0),
            ("num_warps", 4),
        ],
    )
    from problems.engine import registry

    with pytest.raises(ValueError):  # A100 has no FP8 tensor cores
        registry.get(SLUG).parse_params(
            {
                "gpu": "a100-sxm-80gb",
                "dtype": "fp8",
                "block_m": 128,
                "block_n": 128,
                "block_k": 64,
                "num_stages": 3,
            }
        )


def test_statement_quotes_the_launch_and_both_verdicts_occur():
    verdicts = set()
    for seed in range(200):
        v = Variant.from_seed(SLUG, seed)
        p = v.params
        text = v.statement_markdown()
        assert f"BLOCK_M={p.block_m}, BLOCK_N={p.block_n}, BLOCK_K={p.block_k}" in text
        assert f"num_stages={p.num_stages}" in text
        verdicts.add(v.parts["fits"].value)
    assert verdicts == {"yes", "no"}
