"""No TeX reaches a reader as text: a number formatted for maths (`3{,}200`,
`2.1 \\times 10^{9}`) printed in prose, outside `$...$`, showed its braces on the page."""

import pytest

from problems.engine import registry
from problems.engine.variants import Variant

LEFTOVERS = ("{,}", "\\times", "10^{")
# the variants that showed it, then a sweep of every template
FOUND = [("checkpoint-write-time", 43), ("param-count-dense", 1), ("tp-allreduce-layer", 18)]


def leftovers(variant: Variant) -> list[str]:
    html = variant.statement_html() + variant.solution_html()
    return [t for t in LEFTOVERS if t in html]


@pytest.mark.parametrize(("slug", "seed"), FOUND)
def test_the_variants_that_showed_tex_render_it(slug, seed):
    assert leftovers(Variant.from_seed(slug, seed)) == []


def test_no_template_prints_tex_in_prose():
    found = {
        (t.slug, seed): bad
        for t in registry.all_templates()
        for seed in range(1, 13)
        if (bad := leftovers(Variant.from_seed(t.slug, seed)))
    }
    assert found == {}
