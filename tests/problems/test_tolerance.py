"""Tolerance kinds (pure: no database)."""

import pytest
from pydantic import TypeAdapter, ValidationError

from problems.engine.tolerance import Estimate, Exact, RelAbs, SigFigs, Tolerance


def test_relabs_default_is_one_percent():
    t = RelAbs()
    assert t.score(80.53, 80.53) == 1.0
    assert t.score(81.3, 80.53) == 1.0  # 0.96 % off
    assert t.score(81.4, 80.53) == 0.0  # 1.08 % off
    assert t.score(79.8, 80.53) == 1.0
    assert t.score(-80.53, 80.53) == 0.0


def test_relabs_absolute_floor():
    t = RelAbs(rel=0.0, abs=0.5)
    assert t.score(0.4, 0.0) == 1.0
    assert t.score(0.6, 0.0) == 0.0
    assert RelAbs().score(0.0, 0.0) == 1.0
    assert RelAbs().score(1e-12, 0.0) == 0.0


def test_relabs_validation():
    with pytest.raises(ValidationError):
        RelAbs(rel=1.5)
    with pytest.raises(ValidationError):
        RelAbs(abs=-1)


def test_sigfigs():
    t = SigFigs(figures=3)
    assert t.score(80.5, 80.53) == 1.0
    assert t.score(80.6, 80.53) == 0.0
    assert t.score(0.000123, 0.0001234) == 1.0
    assert t.score(0.0, 0.0) == 1.0
    assert t.score(0.1, 0.0) == 0.0
    assert SigFigs(figures=1).score(90, 85) == 1.0


def test_sigfigs_refuses_other_kinds_settings():
    with pytest.raises(ValidationError):
        SigFigs(rel=0.1)
    with pytest.raises(ValidationError):
        SigFigs(figures=0)


def test_estimate_log_scale():
    t = Estimate()
    assert t.score(105, 100) == 1.0
    assert t.score(200, 100) == pytest.approx(0.5)
    assert t.score(50, 100) == pytest.approx(0.5)
    assert 0.5 < t.score(150, 100) < 1.0
    assert 0.0 < t.score(300, 100) < 0.5
    assert t.score(400, 100) == pytest.approx(0.0, abs=1e-12)
    assert t.score(1000, 100) == 0.0
    assert t.score(-100, 100) == 0.0
    assert t.score(0, 0) == 1.0
    assert t.score(0, 100) == 0.0


def test_estimate_validation():
    with pytest.raises(ValidationError):
        Estimate(full=1.0)
    with pytest.raises(ValidationError):
        Estimate(figures=2)


def test_exact():
    t = Exact()
    assert t.score(185, 185) == 1.0
    assert t.score(185.0, 185) == 1.0
    assert t.score(186, 185) == 0.0
    with pytest.raises(ValidationError):
        Exact(rel=0.1)


def test_discriminated_union_and_frozen():
    adapter = TypeAdapter(Tolerance)
    assert isinstance(adapter.validate_python({"kind": "sigfigs", "figures": 2}), SigFigs)
    assert isinstance(adapter.validate_python({"kind": "exact"}), Exact)
    with pytest.raises(ValidationError):
        adapter.validate_python({"kind": "sigfigs", "rel": 0.1})
    with pytest.raises(ValidationError):
        adapter.validate_python({"kind": "nope"})
    t = RelAbs()
    with pytest.raises(ValidationError):
        t.rel = 0.5


@pytest.mark.parametrize("tol", [RelAbs(), SigFigs(), Estimate(), Exact()])
def test_scores_are_in_unit_interval(tol):
    for answer, correct in [(1, 1), (2, 1), (0.5, 1), (-1, 1), (0, 1), (1e30, 1e-30)]:
        assert 0.0 <= tol.score(answer, correct) <= 1.0
