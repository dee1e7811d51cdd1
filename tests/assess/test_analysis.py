"""Point-biserial discrimination, pure."""

import numpy as np
import pytest

from assess.analysis import point_biserial


def test_matches_pearson():
    xs = [True, False, True, True, False]
    ys = [0.9, 0.2, 0.7, 0.8, 0.5]
    assert point_biserial(xs, ys) == pytest.approx(np.corrcoef([float(x) for x in xs], ys)[0, 1])


@pytest.mark.parametrize(
    ("xs", "ys"),
    [([], []), ([True], [1.0]), ([True, True], [0.1, 0.9]), ([True, False], [0.5, 0.5])],
)
def test_undefined_is_none(xs, ys):
    assert point_biserial(xs, ys) is None
