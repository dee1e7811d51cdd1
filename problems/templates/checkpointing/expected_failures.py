"""expected-failures: how many GPU failures a training run should plan for, the chance it
sees none, and the mean time between them (templates-2.md).

Failures of independent GPUs with exponential lifetimes add up: n GPUs of per-GPU MTBF m
fail at n/m per hour, so a run of D days expects n·24·D/m failures, sees none with
probability e^(−expected) (Poisson) and one every m/n hours on average.

Realism: per-GPU MTBF of 25,000 to 200,000 hours. Meta's 54-day Llama 3 405B run had 419
unexpected interruptions on 16,384 H100s, one per ~3.1 h, which is ~51,000 h per GPU
across every cause (formulas.md section 6); GPU-attributed faults alone are rarer. Clusters
run from one 8-GPU server to 32,768 GPUs and runs from a day to three months, drawn so
that about half the variants have a real chance of a clean run (small jobs: fine-tuning,
evaluations, a bring-up burn-in) and the rest the near-certain failures of a large
pre-training run, where the chance of none is 0 to the grader: p_none is graded within 1%
or 0.01 percentage points, so a vanishing chance is answered by 0.

Discrimination: the run left in days (run-in-days) and the GPU count forgotten
(gpu-count-ignored) on the expected count; on the chance of none, the linear estimate
1 − expected (linear-chance, floored at 0), the chance of at least one failure
(chance-of-failure), one GPU's chance of lasting the run (one-gpu-survives) and the
fraction for the percentage (fraction-not-percent), each named only when the grader can
tell it from the answer; the per-GPU MTBF left undivided (gpu-count-ignored) and the gap
given in days (in-days) on the mean time between failures.
"""

from __future__ import annotations

import math
import random

from pydantic import Field

from problems.engine.numbers import sig
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.engine.tolerance import RelAbs
from problems.templates._common import separated, tex15

# A chance in %: within 1%, or within 0.01 points so that 0 is right for a vanishing one.
CHANCE = RelAbs(rel=0.01, abs=0.01)

GPU_MTBF_H = (25_000.0, 40_000.0, 50_000.0, 75_000.0, 100_000.0, 150_000.0, 200_000.0)
SMALL_GPUS = (8, 16, 32, 64, 128, 256)
LARGE_GPUS = (512, 1024, 2048, 4096, 8192, 16384, 24576, 32768)
SMALL_DAYS = (1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 14.0)
LARGE_DAYS = (7.0, 14.0, 21.0, 30.0, 45.0, 54.0, 60.0, 90.0)
EXPECTED_RANGE = (0.15, 600.0)  # e^-600 still a float above 0


class ExpectedFailuresParams(Params):
    n_gpus: int = Field(ge=1, le=10_000_000)
    run_days: float = Field(gt=0, le=3650)
    gpu_mtbf_h: float = Field(gt=0, le=1e9)


EXPECTED = formula(
    r"\lambda",
    lambda s: s.n * s.D * 24 / s.m,
    n="n",
    D="D",
    m="m",
)
P_NONE = formula(r"P_0", lambda s: 100 * s.e, e=r"e^{-\lambda}")
BETWEEN = formula(r"\bar t", lambda s: s.m / s.n, m="m", n="n")


def expected_failures(p: ExpectedFailuresParams) -> float:
    return p.n_gpus * p.run_days * 24 / p.gpu_mtbf_h


@register
class ExpectedFailures(Template):
    slug = "expected-failures"
    title = "Failures to expect in a training run"
    family = "checkpointing"
    lessons = ("reliability-cost-at-scale", "platform-and-operations")
    skills = ("system-mtbf", "failure-rates", "operations")
    difficulty = 2
    Params = ExpectedFailuresParams

    def generate(self, rng: random.Random) -> ExpectedFailuresParams:
        for _ in range(10_000):
            small = rng.random() < 0.5
            p = ExpectedFailuresParams(
                n_gpus=rng.choice(SMALL_GPUS if small else LARGE_GPUS),
                run_days=rng.choice(SMALL_DAYS if small else LARGE_DAYS),
                gpu_mtbf_h=rng.choice(GPU_MTBF_H),
            )
            if EXPECTED_RANGE[0] <= expected_failures(p) <= EXPECTED_RANGE[1]:
                return p
        raise RuntimeError("no acceptable expected-failures variant")  # pragma: no cover

    def solve(self, p: ExpectedFailuresParams) -> dict[str, Part]:
        lam = expected_failures(p)
        return {
            "expected": Part("expected", lam, "", label="Expected failures during the run"),
            "p_none": Part(
                "p_none", 100 * math.exp(-lam), "%", tolerance=CHANCE, label="Chance of none"
            ),
            "mean_between": Part(
                "mean_between", p.gpu_mtbf_h / p.n_gpus, "h", label="Mean time between failures"
            ),
        }

    def statement(self, p: ExpectedFailuresParams) -> str:
        return (
            f"A job runs on $n = {tex15(p.n_gpus)}$ GPUs for $D = {tex15(p.run_days)}$ days "
            "without a break. Each GPU fails independently, with exponentially distributed "
            f"lifetimes and a mean time between failures of $m = {tex15(p.gpu_mtbf_h)}$ hours. "
            "Any one GPU failing interrupts the job.\n\n"
            "1. How many failures should the run expect?\n"
            "2. What is the chance, in %, that the run sees no failure at all?\n"
            "3. What is the mean time between failures of the job as a whole, in hours?"
        )

    def solution(self, p: ExpectedFailuresParams) -> str:
        lam = expected_failures(p)
        p_none = 100 * math.exp(-lam)
        text = (
            f"The run lasts ${tex15(p.run_days)} \\times 24 = {tex15(p.run_days * 24)}$ "
            "hours; every GPU contributes its own failure rate $1/m$ per hour, so "
            "the job's rate is $n/m$ and the expected count over the run is\n\n"
            + step(EXPECTED, {"n": p.n_gpus, "D": p.run_days, "m": p.gpu_mtbf_h}, lam)
            + "\n\nWith independent exponential lifetimes the number of failures is Poisson with "
            "mean $\\lambda$, and the chance of none is\n\n"
            + step(P_NONE, {"e": math.exp(-lam)}, p_none, r"\%")
            + "\n\nThe job as a whole fails once every\n\n"
            + step(BETWEEN, {"m": p.gpu_mtbf_h, "n": p.n_gpus}, p.gpu_mtbf_h / p.n_gpus, "h")
        )
        if p_none < CHANCE.abs:
            text += (
                f"\n\nA chance of {sig(p_none, 3)}% is no chance: plan the run around "
                "failures (checkpoints, automatic restarts, spare nodes) rather than hope."
            )
        elif lam < 1:
            text += (
                "\n\nFor small $\\lambda$ the chance of a failure, $1 - e^{-\\lambda}$, is "
                "close to $\\lambda$ itself, but the estimate $1 - \\lambda$ for none drifts "
                "as $\\lambda$ grows: use the exponential."
            )
        return text

    def misconceptions(self, p: ExpectedFailuresParams) -> list[Misconception]:
        lam = expected_failures(p)
        run_h = p.run_days * 24
        one_gpu = 100 * math.exp(-run_h / p.gpu_mtbf_h)
        # On a large cluster one GPU's survival (99.7%) and the chance of a failure (100%)
        # are the same answer to the grader: name only the second, the likelier slip.
        survives = [
            Misconception(
                "one-gpu-survives",
                "p_none",
                one_gpu,
                "That is the chance that one GPU lasts the run. The job needs all n of "
                "them to last: e^(−n·t/m).",
            )
        ]
        if not separated([one_gpu, 100 * (1 - math.exp(-lam))]):
            survives = []
        return [
            Misconception(
                "run-in-days",
                "expected",
                p.n_gpus * p.run_days / p.gpu_mtbf_h,
                "That divides days by an MTBF in hours. Turn the run into hours (×24) first.",
            ),
            Misconception(
                "gpu-count-ignored",
                "expected",
                run_h / p.gpu_mtbf_h,
                "That is one GPU's expected failures. Every one of the n GPUs can fail, so "
                "the job's rate is n times one GPU's.",
            ),
            Misconception(
                "linear-chance",
                "p_none",
                100 * max(0.0, 1 - lam),
                "That is 1 − λ, a straight-line estimate. With independent failures the "
                "count is Poisson, and the chance of none is e^(−λ).",
            ),
            Misconception(
                "chance-of-failure",
                "p_none",
                100 * (1 - math.exp(-lam)),
                "That is the chance of at least one failure. The question asks for none.",
            ),
            Misconception(
                "fraction-not-percent",
                "p_none",
                math.exp(-lam),
                "That is a fraction. The question asks for a percentage from 0 to 100.",
            ),
            *survives,
            Misconception(
                "gpu-count-ignored",
                "mean_between",
                p.gpu_mtbf_h,
                "That is one GPU's MTBF. With n GPUs failing independently the job sees a "
                "failure n times as often: m/n.",
            ),
            Misconception(
                "in-days",
                "mean_between",
                p.gpu_mtbf_h / p.n_gpus / 24,
                "That is the gap in days. The question asks for hours.",
            ),
        ]
