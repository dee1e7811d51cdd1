"""The rubric's sizing checks, and the helpers every check module shares.

Each returns plain dicts (code, title, points, max_points, evidence, comment,
misconception) that review.py freezes into Criterion objects. A figure with a template
part is graded by `Variant.grade`, given the memo's own text for quantities (so "131.4
GiB" is converted, and "131.4 GB" for 141.1 GB is named gb-vs-gib) and the number alone
for counts (the templates' count parts carry no unit). A comment always states the
expected figure when the memo's is wrong.
"""

from __future__ import annotations

from typing import Any

from capstone.memo_review import figures as fig
from capstone.memo_review.memo import Figure, ParsedMemo

COST_REL_TOL = 0.02  # figures without a template part: within 2%
SLACK = 0.005  # consistency checks compare the memo's rounded figures
MAX_QUOTE = 160
CANNOT = "Cannot be checked: the accelerator, tensor parallel or context is missing or invalid."


def quote(text: str) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= MAX_QUOTE else text[: MAX_QUOTE - 1] + "…"


def _c(code, title, points, max_points, evidence="", comment="", misconception=None):
    return {
        "code": code,
        "title": title,
        "points": points,
        "max_points": max_points,
        "evidence": evidence,
        "comment": comment,
        "misconception": misconception,
    }


def _line(f: Figure | None) -> str:
    return f"{f.label}: {f.text}" if f is not None else ""


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _g(x: float) -> str:
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.4g}"


def _missing(code, title, max_points, f: Figure | None, what: str) -> dict[str, Any]:
    if f is None:
        return _c(code, title, 0, max_points, "", f"No '{what}' line in Key figures.")
    return _c(code, title, 0, max_points, _line(f), f"Could not read the value: {f.error}")


def named(result) -> str:
    """ " (code)" after a comment when the engine named the slip, else nothing."""
    return f" ({result.misconception})" if result.misconception else ""


def _graded(code, title, max_points, f, variant, part, text, expected: str) -> dict[str, Any]:
    result = variant.grade(part, text)
    if not result.valid:
        return _c(code, title, 0, max_points, _line(f), f"Could not read: {result.error}")
    if result.correct:
        return _c(code, title, max_points, max_points, _line(f), "Matches the recomputed figure.")
    return _c(
        code,
        title,
        max_points * result.score,
        max_points,
        _line(f),
        f"Expected {expected}. {result.feedback}{named(result)}".strip(),
        result.misconception,
    )


# ------------------------------------------------------------------ choices and sizing


def choices(brief, parsed: ParsedMemo):
    """(candidate or None, tp or None, context or None) as the memo states them."""
    figs = parsed.figures
    acc = brief.candidate(figs["accelerator"].text) if "accelerator" in figs else None
    tp = figs.get("tensor_parallel")
    ctx = figs.get("context")
    tp_value = int(tp.value) if tp is not None and tp.value is not None else None
    ctx_value = int(ctx.value) if ctx is not None and ctx.value is not None else None
    return acc, tp_value, ctx_value


def computable(brief, acc, tp: int | None, ctx: int | None) -> bool:
    """Whether the memo's choices can be run through the templates at all: a candidate,
    a degree the engine accepts (1-64), a context within the model's window."""
    return (
        acc is not None
        and tp is not None
        and ctx is not None
        and 1 <= tp <= 64
        and 1 <= ctx <= brief.max_context
    )


def sizing_criteria(brief, parsed: ParsedMemo) -> list[dict[str, Any]]:
    figs = parsed.figures
    acc, tp, ctx = choices(brief, parsed)
    out: list[dict[str, Any]] = []
    f = figs.get("accelerator")
    names = ", ".join(f"{c.name} ({c.slug})" for c in brief.candidates)
    if acc is not None:
        out.append(_c("accelerator", "Accelerator is a candidate", 1, 1, _line(f), "A candidate."))
    elif f is None:
        out.append(_missing("accelerator", "Accelerator is a candidate", 1, f, "Accelerator"))
    else:
        out.append(
            _c(
                "accelerator",
                "Accelerator is a candidate",
                0,
                1,
                _line(f),
                f"Choose one of: {names}.",
            )
        )

    title = "Tensor parallel holds the weights"
    w = fig.weights(brief.n_params, brief.weight_dtype)
    weights_gb = float(w.parts["weights"].value)
    if tp is None:
        out.append(
            _missing("tensor-parallel", title, 2, figs.get("tensor_parallel"), "Tensor parallel")
        )
    elif acc is None:
        out.append(
            _c(
                "tensor-parallel",
                title,
                0,
                2,
                _line(figs["tensor_parallel"]),
                "Cannot be checked without a candidate accelerator.",
            )
        )
    else:
        tmin = fig.tp_min(
            brief.n_params, brief.weight_dtype, acc.usable_gib, brief.kv_reserve_fraction
        )
        least = int(tmin.parts["min_gpus"].value)
        line = _line(figs["tensor_parallel"])
        limit = brief.tp_limit(acc)
        if tp not in fig.TP_DEGREES or tp > limit:
            out.append(
                _c(
                    "tensor-parallel",
                    title,
                    0,
                    2,
                    line,
                    f"Use a power of two up to {limit} (one {acc.instance_type} instance "
                    f"of {acc.gpus_per_instance} GPU(s), no more GPUs than the "
                    f"{brief.n_kv_heads} KV heads); at least {least}.",
                )
            )
        elif tp < least:
            result = tmin.grade("min_gpus", _num(tp))
            out.append(
                _c(
                    "tensor-parallel",
                    title,
                    0,
                    2,
                    line,
                    f"Expected at least {least}: {weights_gb:.4g} GB of weights need "
                    f"{least} x {acc.usable_gib:.2f} GiB with {brief.kv_reserve_fraction:g} "
                    f"of each kept free. {result.feedback}{named(result)}",
                    result.misconception,
                )
            )
        else:
            out.append(
                _c("tensor-parallel", title, 2, 2, line, f"At or above the minimum of {least}.")
            )

    title = "Context per sequence covers the p99 request"
    if ctx is None:
        out.append(_missing("context", title, 1, figs.get("context"), "Context per sequence"))
    elif brief.min_context <= ctx <= brief.max_context:
        out.append(_c("context", title, 1, 1, _line(figs["context"]), "Holds the p99 request."))
    else:
        out.append(
            _c(
                "context",
                title,
                0,
                1,
                _line(figs["context"]),
                f"Expected between {brief.min_context:,} (p99 prompt + p99 output) and "
                f"{brief.max_context:,} tokens (the model's window).",
            )
        )

    f = figs.get("weights")
    if f is None or f.value is None:
        out.append(_missing("weights", "Weights", 2, f, "Weights"))
    else:
        out.append(
            _graded(
                "weights",
                "Weights",
                2,
                f,
                w,
                "weights",
                f.text,
                f"{weights_gb:.4g} GB ({brief.weight_dtype.upper()})",
            )
        )
    kv = fig.kv_per_token(brief.n_layers, brief.n_kv_heads, brief.head_dim, brief.kv_dtype)
    f = figs.get("kv_per_token")
    if f is None or f.value is None:
        out.append(_missing("kv-per-token", "KV cache per token", 2, f, "KV per token"))
    else:
        kib = float(kv.parts["per_token"].value)
        out.append(
            _graded(
                "kv-per-token",
                "KV cache per token",
                2,
                f,
                kv,
                "per_token",
                f.text,
                f"{kib:.4g} KiB",
            )
        )

    title = "Concurrent sequences per replica"
    f = figs.get("seqs_per_replica")
    if f is None or f.value is None:
        out.append(_missing("seqs-per-replica", title, 2, f, "Concurrent sequences per replica"))
    elif not computable(brief, acc, tp, ctx):
        out.append(
            _c(
                "seqs-per-replica",
                title,
                0,
                2,
                _line(f),
                CANNOT,
            )
        )
    else:
        sv = fig.max_sequences(brief.shape, acc.usable_gib, tp, brief.gpu_memory_utilization, ctx)
        n = int(sv.parts["max_seqs"].value)
        out.append(
            _graded(
                "seqs-per-replica",
                title,
                2,
                f,
                sv,
                "max_seqs",
                _num(f.value),
                f"{n} at {acc.slug}, tensor parallel {tp}, {ctx:,} tokens each",
            )
        )

    title = "Peak concurrent sequences"
    f = figs.get("peak_concurrency")
    little = fig.littles_law(brief.peak_rps, brief.slot_seconds, 1)
    peak = float(little.parts["concurrency"].value)
    if f is None or f.value is None:
        out.append(_missing("peak-concurrency", title, 2, f, "Peak concurrent sequences"))
    else:
        out.append(
            _graded(
                "peak-concurrency",
                title,
                2,
                f,
                little,
                "concurrency",
                _num(f.value),
                f"{peak:,.1f} ({brief.peak_rps:.4g} requests/s at the peak x "
                f"{brief.slot_seconds:.4g} s per request)",
            )
        )
    return out
