"""One capstone brief in a line: what `manage.py capstone briefs --json` prints per seed.

A reviewer sampling briefs (issue 34's expert read 300 of them) wants the model, the
load, the targets and the reference plan side by side, as data to sort and count, not
the Markdown page. Pure: the brief and figures.best_plan only.
"""

from __future__ import annotations

from typing import Any

from capstone.memo_review import figures
from capstone.memo_review.brief import Brief


def brief_summary(brief: Brief) -> dict[str, Any]:
    """seed, model, params, active_params, weights_dtype, workload, slo and the reference
    plan (accelerator slug, tp, replicas, gpus, monthly_cost_usd) of one brief."""
    plan = figures.best_plan(brief)
    return {
        "seed": brief.seed,
        "model": brief.model_slug,
        "params": brief.n_params,
        "active_params": brief.n_params,  # every capstone model is dense
        "weights_dtype": brief.weight_dtype,
        "workload": {
            "peak_rps": round(brief.peak_rps, 4),
            "prompt_mean": brief.prompt_tokens_mean,
            "prompt_p99": brief.prompt_tokens_p99,
            "output_mean": brief.output_tokens_mean,
            "output_p99": brief.output_tokens_p99,
        },
        "slo": {"ttft_p99_ms": brief.ttft_p99_ms, "tpot_ms": brief.tpot_ms},
        "plan": {
            "accelerator": plan.accelerator,
            "tp": plan.tp,
            "replicas": plan.replicas,
            "gpus": plan.gpus,
            "monthly_cost_usd": round(plan.cost, 2),
        },
    }
