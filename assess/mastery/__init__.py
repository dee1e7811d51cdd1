"""Learner mastery estimates. `bkt` is pure Bayesian Knowledge Tracing (no Django)."""

from assess.mastery.bkt import (
    DEFAULT_NUMERIC,
    DEFAULT_PARAMS,
    MASTERED,
    BKTParams,
    FitResult,
    fit,
    is_mastered,
    lesson_mastery,
    log_likelihood,
    params_for_kind,
    simulate,
    update,
    update_score,
    weakest_unmastered,
)

__all__ = [
    "DEFAULT_NUMERIC",
    "DEFAULT_PARAMS",
    "MASTERED",
    "BKTParams",
    "FitResult",
    "fit",
    "is_mastered",
    "lesson_mastery",
    "log_likelihood",
    "params_for_kind",
    "simulate",
    "update",
    "update_score",
    "weakest_unmastered",
]
