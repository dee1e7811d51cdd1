"""manage.py capstone briefs --seeds A-B --json (issue 34): one JSON line per seed with
the model, the load, the SLOs and the reference plan; bad ranges exit 2 with one line,
exactly as `problems generate --seeds` does."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from capstone.memo_review import brief_for
from capstone.memo_review import figures as fig
from hardware_db import catalog

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("capstone", *args, stdout=out)
    return out.getvalue()


def test_one_json_line_per_seed_with_the_brief_and_its_reference_plan():
    lines = run("briefs", "--seeds", "3-7", "--json").splitlines()
    assert len(lines) == 5
    for seed, line in zip(range(3, 8), lines, strict=True):
        row = json.loads(line)
        assert set(row) == {
            "seed", "model", "params", "active_params", "weights_dtype", "workload", "slo",
            "plan",
        }  # fmt: skip
        assert set(row["workload"]) == {
            "peak_rps", "prompt_mean", "prompt_p99", "output_mean", "output_p99"
        }  # fmt: skip
        assert set(row["slo"]) == {"ttft_p99_ms", "tpot_ms"}
        assert set(row["plan"]) == {"accelerator", "tp", "replicas", "gpus", "monthly_cost_usd"}
        brief, plan = brief_for(seed), fig.best_plan(brief_for(seed))
        model = catalog.model(row["model"])
        assert row["seed"] == seed and row["model"] == brief.model_slug
        assert row["params"] == model.total_params and row["active_params"] == model.active_params
        assert row["weights_dtype"] == brief.weight_dtype in ("bf16", "fp8")
        assert row["workload"]["peak_rps"] == pytest.approx(brief.peak_rps, abs=1e-4)
        assert row["workload"]["prompt_p99"] == brief.prompt_tokens_p99
        assert row["slo"] == {"ttft_p99_ms": brief.ttft_p99_ms, "tpot_ms": brief.tpot_ms}
        p = row["plan"]
        catalog.accelerator(p["accelerator"])  # a catalog slug
        assert (p["accelerator"], p["tp"], p["replicas"]) == (
            plan.accelerator,
            plan.tp,
            plan.replicas,
        )
        assert p["gpus"] == p["replicas"] * p["tp"]
        price = brief.candidate(p["accelerator"]).usd_per_gpu_hour
        assert p["monthly_cost_usd"] == pytest.approx(p["gpus"] * price * 730, abs=0.01)


def test_without_json_one_readable_line_per_seed():
    lines = run("briefs", "--seeds", "0-1").splitlines()
    assert len(lines) == 2 and "b200" in lines[0] and "GPUs" in lines[0]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--seeds", "9-3"], "reversed"),
        (["--seeds", "x"], "--seeds must be A-B"),
        (["--seeds=-1-4"], "--seeds must be A-B"),
        (["--seeds", "0-10000"], "at most 10,000"),
        ([], "needs --seeds A-B"),
    ],
)
def test_bad_ranges_exit_2(args, needle):
    with pytest.raises(CommandError) as err:
        run("briefs", *args, "--json")
    assert err.value.returncode == 2
    assert needle in str(err.value)


def test_a_bad_range_is_one_stderr_line_and_nothing_on_stdout():
    proc = subprocess.run(  # noqa: S603
        [sys.executable, "manage.py", "capstone", "briefs", "--seeds", "9-3", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "9-3" in lines[0]
