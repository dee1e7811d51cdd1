"""Units family: gb-gib."""

import math

import pytest

from tests.problems.template_harness import solve, variant


@pytest.mark.parametrize(
    ("value", "src", "dst", "expected"),
    [
        (80, "GB", "GiB", 74.50580596923828),
        (1, "TiB", "GB", 1099.511627776),
        (81559, "MiB", "GB", 85.520809984),
        (128, "KiB", "KB", 131.072),
        (2, "PiB", "PB", 2.251799813685248),
        (1.5, "GB", "B", 1.5e9),
        (3, "TB", "TB", 3),
        (192, "MiB", "TB", 0.000201326592),  # pub-112, to 1e-12 rather than the cases' 1e-9
    ],
)
def test_conversions(value, src, dst, expected):
    part = solve("gb-gib", {"value": value, "from_unit": src, "to_unit": dst})["converted"]
    assert part.unit == dst
    assert math.isclose(part.value, expected, rel_tol=1e-12)


def test_part_unit_follows_to_unit():
    for unit in ("B", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "PB", "PiB"):
        part = solve("gb-gib", {"value": 1, "from_unit": "GiB", "to_unit": unit})["converted"]
        assert part.unit == unit


def test_named_slips():
    v = variant("gb-gib", {"value": 80, "from_unit": "GB", "to_unit": "GiB"})
    by_code = {}
    for m in v.misconceptions:
        by_code.setdefault(m.code, []).append(m.value)
    assert by_code["gb-vs-gib"] == [80]  # 80 GB read as 80 GiB
    assert any(math.isclose(x, 80 * 2**30 / 1e9) for x in by_code["unit-scale"])
    assert "80 GB" in v.statement_markdown()  # a real part sold as "80 GB"


def test_slips_to_plain_bytes_are_named_once():
    # 80 GB to B: "steps by the wrong factor" is 80 GiB in bytes, the GB-read-as-GiB slip.
    v = variant("gb-gib", {"value": 80, "from_unit": "GB", "to_unit": "B"})
    slips = v.template.misconceptions(v.params)
    values = [m.value for m in slips]
    assert len(values) == len({round(x, 3) for x in values})
    assert v.grade("converted", str(80 * 2**30)).misconception == "gb-vs-gib"
    # Between two prefixed units both readings stay named.
    v = variant("gb-gib", {"value": 1, "from_unit": "GiB", "to_unit": "MB"})
    codes = [m.code for m in v.template.misconceptions(v.params)]
    assert codes.count("unit-scale") == 2 and codes.count("gb-vs-gib") == 2
