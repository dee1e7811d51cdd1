"""The fleet criteria (replicas, GPUs, monthly cost, feasibility) and the consistency checks.

Replicas are a floor, not an exact figure: a memo may carry headroom, but never fewer
replicas than the peak needs: Little's law at the running batch memory and the TPOT
target allow, and enough GPUs for the peak's FLOPs at 60% of dense peak. Feasibility
puts the memo's own fleet to the engine's checks (compute, memory, TTFT, TPOT) and names
the one it fails. GPUs follow from the memo's replicas (or
the floor, if it stated fewer), and the cost from those GPUs at the brief's price; the
consistency checks then hold the memo's own figures against each other, so an error is
named where it was made and again where it breaks the plan.
"""

from __future__ import annotations

from typing import Any

from capstone.memo_review import feasible
from capstone.memo_review import figures as fig
from capstone.memo_review.checks import (
    COST_REL_TOL,
    SLACK,
    _c,
    _g,
    _line,
    _missing,
    _num,
    choices,
    computable,
    named,
)
from capstone.memo_review.memo import Figure, ParsedMemo
from problems.engine.units import UnitError, convert

# -------------------------------------------------------------------------- the fleet


def fleet_criteria(brief, parsed: ParsedMemo) -> list[dict[str, Any]]:
    figs = parsed.figures
    acc, tp, ctx = choices(brief, parsed)
    p = None
    if computable(brief, acc, tp, ctx):
        p = fig.plan(brief, acc.slug, tp, ctx)
    titles = {"replicas": "Replicas cover the peak", "gpus": "GPUs", "monthly-cost": "Monthly cost"}
    keys = {"replicas": "replicas", "gpus": "gpus", "monthly-cost": "monthly_cost"}
    points = {"replicas": 2, "gpus": 1, "monthly-cost": 2}
    if p is None or p.replicas is None:
        why = (
            "the weights leave no room for a sequence at this tensor parallel, or one "
            "sequence alone decodes slower than the TPOT target"
            if p is not None
            else "the accelerator, tensor parallel or context is missing or invalid"
        )
        return [
            _c(
                code,
                titles[code],
                0,
                points[code],
                _line(figs.get(keys[code])),
                f"Cannot be checked: {why}.",
            )
            for code in titles
        ]
    out = []
    f = figs.get("replicas")
    least = p.replicas
    if f is None or f.value is None:
        out.append(_missing("replicas", titles["replicas"], 2, f, "Replicas"))
        replicas = least
    elif f.value >= least:
        replicas = int(f.value)
        out.append(
            _c(
                "replicas",
                titles["replicas"],
                2,
                2,
                _line(f),
                f"At or above the {least} replicas the peak needs.",
            )
        )
    else:
        replicas = least
        out.append(_too_few_replicas(p, f, titles["replicas"]))
    gpus = replicas * tp
    f = figs.get("gpus")
    if f is None or f.value is None:
        out.append(_missing("gpus", titles["gpus"], 1, f, "GPUs"))
    elif int(f.value) == gpus:
        out.append(_c("gpus", titles["gpus"], 1, 1, _line(f), "Replicas x tensor parallel."))
    else:
        out.append(
            _c(
                "gpus",
                titles["gpus"],
                0,
                1,
                _line(f),
                f"Expected {gpus} ({replicas} replicas x {tp} GPUs each).",
            )
        )
    cost = fig.monthly_cost(gpus, acc.usd_per_gpu_hour)
    f = figs.get("monthly_cost")
    if f is None or f.value is None or f.unit != "USD":
        if f is not None and f.value is not None:
            f = Figure(f.key, f.label, f.text, None, "", f"{f.unit} is not USD.")
        out.append(_missing("monthly-cost", titles["monthly-cost"], 2, f, "Monthly cost"))
    elif abs(f.value - cost) <= COST_REL_TOL * cost:
        out.append(
            _c("monthly-cost", titles["monthly-cost"], 2, 2, _line(f), "GPUs x price x 730.")
        )
    else:
        code = None
        if abs(f.value - cost / 730) <= COST_REL_TOL * cost / 730:
            code = "hourly-not-monthly"
        elif (
            abs(f.value - cost * acc.gpus_per_instance)
            <= COST_REL_TOL * cost * acc.gpus_per_instance
        ):
            code = "instance-price-per-gpu"
        out.append(
            _c(
                "monthly-cost",
                titles["monthly-cost"],
                0,
                2,
                _line(f),
                f"Expected USD {cost:,.0f} ({gpus} GPUs x USD {acc.usd_per_gpu_hour:g} "
                f"per GPU-hour x 730 h)." + (f" ({code})" if code else ""),
                code,
            )
        )
    return out


def _too_few_replicas(p: fig.Plan, f: Figure, title: str) -> dict[str, Any]:
    """The replicas criterion for a memo below the floor, saying which bound sets it."""
    if p.binding == "compute":
        why = (
            f"the peak's prefill and decode need {p.replicas_compute} replicas of {p.tp} GPUs "
            f"at {feasible.COMPUTE_CEILING:.0%} of their dense peak (memory and the TPOT "
            f"target alone would allow {p.batch} sequences per replica)."
        )
        return _c("replicas", title, 0, 2, _line(f), f"Expected at least {p.replicas}: {why}")
    bound = (
        f"{p.batch} per replica (the most that decode within the TPOT target; memory "
        f"holds {p.seqs})"
        if p.binding == "tpot"
        else f"{p.batch} per replica"
    )
    result = p.variant("little").grade("replicas", _num(f.value))
    return _c(
        "replicas",
        title,
        0,
        2,
        _line(f),
        f"Expected at least {p.replicas}: {p.peak_concurrency:,.1f} sequences at the peak / "
        f"{bound}, rounded up. {result.feedback}{named(result)}",
        result.misconception,
    )


FEASIBILITY_POINTS = 3
_CHECK_NAMES = {
    feasible.COMPUTE: "compute (at most 60% of the fleet's dense peak)",
    feasible.MEMORY: "memory (weights and the running sequences' full-context KV)",
    feasible.TTFT: "TTFT (the p99 prompt's prefill on one replica)",
    feasible.TPOT: "TPOT (one decode step at the running batch)",
}


def feasibility_criterion(brief, parsed: ParsedMemo) -> dict[str, Any]:
    """The memo's fleet (its accelerator, tensor parallel, context and replicas) against
    compute, memory, TTFT and TPOT at the brief's peak: all or nothing, and a failure
    names its check with the figures."""
    title, code = "The fleet can serve the peak", "feasibility"
    acc, tp, ctx = choices(brief, parsed)
    f = parsed.figures.get("replicas")
    if not computable(brief, acc, tp, ctx) or f is None or f.value is None or f.value < 1:
        return _c(
            code,
            title,
            0,
            FEASIBILITY_POINTS,
            _line(f),
            "Cannot be checked: the accelerator, tensor parallel, context or replicas is "
            "missing or invalid.",
        )
    peak = fig.littles_law(brief.peak_rps, brief.slot_seconds, 1)
    concurrency = float(peak.parts["concurrency"].value)
    verdicts = feasible.fleet_verdicts(brief, acc, tp, int(f.value), ctx, concurrency)
    failed = [v for v in verdicts if not v.ok]
    if not failed:
        return _c(
            code,
            title,
            FEASIBILITY_POINTS,
            FEASIBILITY_POINTS,
            _line(f),
            "Passes compute, memory, TTFT and TPOT at the peak.",
        )
    first = failed[0]
    others = ", ".join(v.check for v in failed[1:])
    comment = f"Fails the {_CHECK_NAMES[first.check]} check: {first.detail}." + (
        f" Also fails: {others}." if others else ""
    )
    return _c(code, title, 0, FEASIBILITY_POINTS, _line(f), comment)


# ------------------------------------------------------------------------ consistency


def _value(figs, key) -> float | None:
    f = figs.get(key)
    return f.value if f is not None else None


def check_consistency(brief, parsed: ParsedMemo) -> dict[str, Any]:
    """Four checks of the memo's own figures against each other (1 point each)."""
    figs = parsed.figures
    acc, tp, _ = choices(brief, parsed)
    r, s, peak, g, cost = (
        _value(figs, k)
        for k in ("replicas", "seqs_per_replica", "peak_concurrency", "gpus", "monthly_cost")
    )
    problems: list[tuple[str, str]] = []
    if None in (r, s, peak):
        problems.append(
            (
                "",
                "Fleet capacity cannot be checked: replicas, sequences or peak missing.",
            )
        )
    elif r * s < peak * (1 - SLACK):
        problems.append(
            (
                _line(figs["replicas"]),
                f"{_g(r)} replicas x {_g(s)} sequences = {_g(r * s)}, "
                f"below the stated peak of {_g(peak)}.",
            )
        )
    if None in (g, r, tp):
        problems.append(("", "GPUs cannot be checked against replicas x tensor parallel."))
    elif g != r * tp:
        problems.append((_line(figs["gpus"]), f"{_g(g)} GPUs is not {_g(r)} replicas x {tp}."))
    if None in (cost, g) or acc is None:
        problems.append(("", "Cost cannot be checked against GPUs x price x 730."))
    else:
        implied = fig.monthly_cost(g, acc.usd_per_gpu_hour)
        if abs(cost - implied) > COST_REL_TOL * implied:
            problems.append(
                (
                    _line(figs["monthly_cost"]),
                    f"USD {_g(cost)} is not {_g(g)} GPUs x USD {acc.usd_per_gpu_hour:g} x 730 "
                    f"= USD {_g(implied)}.",
                )
            )
    wf = figs.get("weights")
    if wf is None or wf.value is None or tp is None or acc is None:
        problems.append(("", "Weights cannot be checked against the tensor-parallel memory."))
    else:
        try:
            stated = convert(wf.value, wf.unit, "B")
        except UnitError:
            stated = None
        room = tp * acc.usable_gib * 2**30 * (1 - brief.kv_reserve_fraction)
        if stated is None:
            problems.append((_line(wf), f"{wf.unit} is not a size."))
        elif stated > room * (1 + SLACK):
            problems.append(
                (
                    _line(wf),
                    f"The stated weights do not fit {tp} x {acc.usable_gib:.2f} GiB "
                    f"with {brief.kv_reserve_fraction:g} of each GPU kept free.",
                )
            )
    points = 4 - len(problems)
    comment = " ".join(p[1] for p in problems) or "The figures agree with each other."
    evidence = next((p[0] for p in problems if p[0]), "")
    return _c("consistency", "Internal consistency", points, 4, evidence, comment)
