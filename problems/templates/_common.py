"""What the template modules share; registers no template.

A template's parameters are plain numbers (the contract), so a statement names the real
hardware or model by finding the catalog records whose published figures match them.
The look-ups for that live here, one function per job, together with the figures the
generators state (peaks, bandwidths, capacities) so that generating and naming agree.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable
from typing import Any

from hardware_db import catalog
from problems.engine.numbers import sig, tex
from problems.engine.template import Kind, Misconception, Part
from problems.engine.tolerance import Exact

PRECISION_LABEL = {
    "fp64": "FP64",
    "tf32": "TF32",
    "bf16": "BF16",
    "fp16": "FP16",
    "fp8": "FP8",
    "int8": "INT8",
    "fp4": "FP4",
}
# Preferred order when one peak figure is published under several precisions.
_PRECISION_ORDER = ("bf16", "fp16", "fp8", "fp4", "tf32", "int8", "fp64")

Hit = tuple[catalog.Accelerator, str | None]


# --- numbers in prose -----------------------------------------------------------------------


def sig15(x: float) -> str:
    """A parameter for prose, exactly as held (15 significant figures, no float noise)."""
    return sig(x, 15)


def tex15(x: float) -> str:
    """A parameter for LaTeX, exactly as held."""
    return tex(x, 15)


# --- indexes over the catalog ---------------------------------------------------------------

_INDEX: dict[str, tuple[object, Any]] = {}


def cached_index(name: str, source: object, build: Callable[[Any], Any]) -> Any:
    """`build(source)`, kept until the catalog hands out a new `source` (after a reload)."""
    hit = _INDEX.get(name)
    if hit is not None and hit[0] is source:
        return hit[1]
    value = build(source)
    _INDEX[name] = (source, value)
    return value


def group_by(items: Iterable[Any], key: Callable[[Any], Any]) -> dict[Any, tuple]:
    """{key: items with that key, in catalog order}."""
    index: dict[Any, list] = {}
    for item in items:
        index.setdefault(key(item), []).append(item)
    return {k: tuple(v) for k, v in index.items()}


# --- figures as the generators state them ---------------------------------------------------


def peak_tflops_of(acc: catalog.Accelerator, precision: str) -> float:
    """The dense peak in TFLOP/s, as a clean decimal (989.4, not 989.4000000000001)."""
    return round(acc.dense_flops[precision] / 1e12, 6)


def bw_tbps_of(acc: catalog.Accelerator) -> float:
    """HBM bandwidth in decimal TB/s (3.35)."""
    return round(acc.mem_bw_bytes_per_s / 1e12, 6)


def usable_gib_of(acc: catalog.Accelerator) -> float:
    """The capacity a generator states: usable GiB to two decimals (79.65 for H100 SXM)."""
    return round(acc.usable_gib, 2)


def draw_accelerator(
    rng: random.Random, precisions: tuple[str, ...] = ("bf16",), need_bw: bool = True
) -> tuple[catalog.Accelerator, str]:
    """A real accelerator and one of `precisions` it publishes a dense peak for."""
    pool = [
        (acc, prec)
        for acc in catalog.accelerators()
        for prec in precisions
        if prec in acc.dense_flops and (not need_bw or acc.mem_bw_bytes_per_s)
    ]
    return rng.choice(pool)


def dense_models() -> tuple[catalog.ModelArch, ...]:
    return cached_index(
        "dense", catalog.models(), lambda ms: tuple(m for m in ms if m.arch_type == "dense")
    )


# --- finding what the figures name ----------------------------------------------------------


def model_with_params(
    n_params: float, among: Iterable[catalog.ModelArch] | None = None
) -> catalog.ModelArch | None:
    """The first catalog model with exactly `n_params` parameters in all (optionally only
    one of `among`), or None."""
    index = cached_index(
        "models-by-params", catalog.models(), lambda ms: group_by(ms, lambda m: m.total_params)
    )
    pool = None if among is None else tuple(among)
    return next((m for m in index.get(n_params, ()) if pool is None or m in pool), None)


def moe_with_active_params(n_params: float) -> catalog.ModelArch | None:
    """The first mixture-of-experts model whose active parameter count is `n_params`."""
    return next(
        (m for m in catalog.models() if m.arch_type == "moe" and m.active_params == n_params),
        None,
    )


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9)


def matching_accelerators(
    peak_tflops: float | None = None,
    mem_bw_tbps: float | None = None,
    usable_gib: float | None = None,
) -> list[Hit]:
    """Catalog accelerators whose dense peak, bandwidth and/or usable memory equal the
    given figures.

    Each hit carries the precision whose dense peak matched (None when no peak was
    asked). Deterministic: catalog order, one hit per accelerator.
    """
    hits: list[Hit] = []
    for acc in catalog.accelerators():
        if mem_bw_tbps is not None and not _same(bw_tbps_of(acc), mem_bw_tbps):
            continue
        if usable_gib is not None and not _same(usable_gib_of(acc), usable_gib):
            continue
        precision = None
        if peak_tflops is not None:
            precision = next(
                (
                    prec
                    for prec in _PRECISION_ORDER
                    if prec in acc.dense_flops and _same(peak_tflops_of(acc, prec), peak_tflops)
                ),
                None,
            )
            if precision is None:
                continue
        hits.append((acc, precision))
    return hits


# --- naming ---------------------------------------------------------------------------------


def name_list(names: Iterable[str], *, most: int | None = None, conj: str | None = None) -> str:
    """Names for prose, the first `most` of them: alternatives that share one figure as
    "A / B", or with `conj` as a list, "A, B and C" ("A or B")."""
    names = list(names)[:most]
    if conj is None or len(names) < 2:
        return " / ".join(names)
    return f"{', '.join(names[:-1])} {conj} {names[-1]}"


def accelerator_names(hits: list[Hit]) -> str:
    """'NVIDIA H100 SXM5 80GB' or 'NVIDIA H100 SXM5 80GB / NVIDIA H200 SXM 141GB'."""
    return name_list(acc.prose_name for acc, _ in hits)


# --- dense and sparse peaks -----------------------------------------------------------------


def sparse_note(hits: list[Hit]) -> str:
    """A sentence naming the sparsity headline, so the learner sees both figures."""
    for acc, prec in hits:
        if prec is not None and prec in acc.sparse_flops:
            sparse = round(acc.sparse_flops[prec] / 1e12, 6)
            if sparse > peak_tflops_of(acc, prec) * 1.01:
                return (
                    f" (The datasheet headline of {sig(sparse)} TFLOP/s for the {acc.short_name} "
                    "assumes 2:4 structured sparsity; it does not apply here.)"
                )
    return ""


def sparse_ratio(hits: list[Hit]) -> float | None:
    """Sparse headline / dense peak for the matched part.

    2 when no catalog part matches (the usual 2:4 factor); None when the matched parts
    publish no sparsity figure, so there is no headline to mistake for the peak.
    """
    if not hits:
        return 2.0
    for acc, prec in hits:
        if prec is not None and prec in acc.sparse_flops:
            ratio = acc.sparse_flops[prec] / acc.dense_flops[prec]
            if ratio > 1.01:
                return ratio
    return None


# --- misconceptions -------------------------------------------------------------------------


def drop_close_counts(slips: list[Misconception], counts: dict[str, int]) -> list[Misconception]:
    """Drop a slip on a whole-number part that lies within 1% of that part's answer (given
    in `counts`) or of an earlier slip on the same part; other parts pass through.

    Variant.misconceptions already drops every slip a grader cannot tell apart, which for
    a whole number means an equal one. These templates have always also treated counts
    within 1% as the same answer (1,353 sequences against 1,341), which only matters for
    counts above 100.
    """
    kept: list[Misconception] = []
    for m in slips:
        if m.part in counts:
            taken = [counts[m.part]] + [k.value for k in kept if k.part == m.part]
            if any(abs(m.value - v) <= 0.01 * max(abs(m.value), abs(v)) for v in taken):
                continue
        kept.append(m)
    return kept


# Slips a generator keeps apart: each named slip at least this far (relative) from the
# answer and from the part's other slips, so the grader can name it (issue #11).
SLIP_GAP = 0.025


def separated(values: Iterable[float], gap: float = SLIP_GAP) -> bool:
    """True when every two of the values differ by more than `gap` (relative)."""
    vals = sorted(abs(float(v)) for v in values)
    return all(b > a * (1 + gap) for a, b in zip(vals, vals[1:], strict=False))


def parts_separated(solved: dict, slips: list[Misconception], gap: float = SLIP_GAP) -> bool:
    """Each numeric part's answer and its named slips are pairwise `separated` (a choice
    part's slips are other words, apart by construction)."""
    for name, part in solved.items():
        if isinstance(part.value, str):
            continue
        values = [m.value for m in slips if m.part == name]
        if not separated([part.value, *values], gap):
            return False
    return True


# --- answers that are words, and tool output -----------------------------------------------


def choice_part(name: str, value: str, choices: tuple[str, ...], label: str) -> Part:
    """A one-word answer graded exactly against `choices` (radio buttons in the page)."""
    if value not in choices:
        raise ValueError(f"{name}: {value!r} is not one of {choices}")
    return Part(name, value, kind=Kind.CHOICE, tolerance=Exact(), choices=choices, label=label)


def fenced(text: str, lang: str = "text") -> str:
    """Tool output as a fenced block: the renderer leaves it as it is, monospaced."""
    return f"```{lang}\n{text.rstrip()}\n```"
