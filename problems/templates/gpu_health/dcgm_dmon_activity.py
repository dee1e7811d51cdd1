"""dcgm-dmon-activity: read `dcgmi dmon` profiling fields (GRACT, SMACT, TENSO, DRAMA)
and power for the eight GPUs of an HGX node, find the GPU that is not doing tensor work
like the others, and work out one healthy GPU's achieved dense tensor throughput.

Realism: HGX A100, H100, H200 or B200 (dense peaks and power limits from hardware_db),
in the column layout of DCGM 4's `dcgmi dmon` (spec/tool-output/dcgmi-dmon/sample-1.txt:
an 11-character entity column, 13-character value columns, an `ID` line carrying the W
unit of POWER). As in that capture, the first pass prints N/A for the profiling fields
(DCGM needs one interval before it can report a rate; POWER, a device field, is there at
once), then three passes of values. The node runs eight independent replicas of one job,
BF16/FP16 (or FP8 on Hopper and Blackwell), so healthy GPUs look alike: the job sets
TENSO 0.30-0.62, SMACT 0.20-0.35 above it, DRAMA 0.18-0.40 and 75-92% of the power limit,
and each healthy GPU's means sit within about 3% of the job's (parameter `generator` 1
keeps the earlier draw, whose healthy GPUs each drew their own level, up to 2x apart, so
that stored questions solve as they were shown). The odd GPU is one of:

- stalled: GRACT still about 1 (a kernel is resident) but SMACT under 0.03, TENSO 0,
  DRAMA near 0 and 15-22% of the power limit: a kernel that never completes (the
  replicas are single-GPU jobs, so no collective is involved);
- memory-bound: SMACT as high as the others' but TENSO 0.03-0.08 and DRAMA 0.80-0.91.

The number asked is mean TENSO of a named healthy GPU x the dense peak for the job's
precision: tensor-pipe utilisation turned into FLOP/s, not MFU (which counts only the
model's useful FLOPs). Named slips on it: SMACT used for TENSO (sm-active-as-tensor),
DRAMA read as TENSO (drama-as-tensor), the 2:4 sparse headline used as the peak
(sparse-peak), and TENSO read as a percentage (percent-as-fraction). A variant is redrawn
unless these land 2.5% or more from the answer and from each other. On the GPU part:
answering none because every GRACT reads about 1 (trusted-gract) or, for the
memory-bound GPU, because its SMACT looks like the others' (trusted-sm-active).
"""

from __future__ import annotations

import random
import statistics
from typing import Literal

from pydantic import Field, model_validator

from problems.engine.numbers import sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import PRECISION_LABEL, choice_part, parts_separated, peak_tflops_of
from problems.templates.gpu_health._family import (
    GPU_CHOICES,
    GPUS,
    NODES,
    NONE,
    SAMPLE_MAX,
    Hgx,
    gpu_label,
    readings_rng,
)

Odd = Literal["stalled", "memory-bound"]
Precision = Literal["bf16", "fp16", "fp8"]
SAMPLES = 3
FIELDS = ("GRACT", "SMACT", "TENSO", "DRAMA", "POWER")
FIELD_IDS = "1001,1002,1004,1005,155"


class DmonParams(Params):
    stored_defaults = frozenset({"generator"})

    accelerator: Hgx
    precision: Precision
    odd: Odd
    odd_gpu: int = Field(ge=0, le=GPUS - 1)
    named_gpu: int = Field(ge=0, le=GPUS - 1)
    sample: int = Field(ge=0, le=SAMPLE_MAX)
    generator: int = Field(default=1, ge=1, le=2)  # 2: healthy replicas within ~3%

    @model_validator(mode="after")
    def _consistent(self) -> DmonParams:
        if self.precision not in NODES[self.accelerator].acc.dense_flops:
            raise ValueError(f"{self.accelerator} publishes no {self.precision} peak")
        if self.named_gpu == self.odd_gpu:
            raise ValueError("the named GPU must be a healthy one")
        return self


ACHIEVED = formula(
    r"F",
    lambda s: s.t * s.P,
    t=r"\overline{\mathrm{TENSO}}",
    P=r"P_{\mathrm{dense}}",
)


def _u(rng: random.Random, lo: float, hi: float) -> float:
    return round(rng.uniform(lo, hi), 3)


def readings(p: DmonParams) -> list[list[dict]]:
    """rows[sample][gpu] = {field: value}."""
    if p.generator == 2:
        return _matched(p)
    cap = NODES[p.accelerator].cap_w
    rng = readings_rng("dcgm-dmon-activity", p.sample, p.accelerator, p.odd, p.odd_gpu)
    base = []
    for i in range(GPUS):
        t = rng.uniform(0.30, 0.62)
        b = {
            "GRACT": rng.uniform(0.965, 0.995),
            "TENSO": t,
            "SMACT": min(0.95, t + rng.uniform(0.20, 0.35)),
            "DRAMA": rng.uniform(0.18, 0.40),
            "POWER": rng.uniform(0.75, 0.92) * cap,
        }
        if i == p.odd_gpu and p.odd == "stalled":
            b.update(GRACT=0.985, SMACT=rng.uniform(0.008, 0.025), TENSO=0.0)
            b.update(DRAMA=rng.uniform(0.001, 0.006), POWER=rng.uniform(0.15, 0.22) * cap)
        elif i == p.odd_gpu:
            b.update(SMACT=rng.uniform(0.78, 0.90), TENSO=rng.uniform(0.03, 0.08))
            b.update(DRAMA=rng.uniform(0.80, 0.91), POWER=rng.uniform(0.55, 0.68) * cap)
        base.append(b)
    rows = []
    for _ in range(SAMPLES):
        row = []
        for i, b in enumerate(base):
            jitter = 0.003 if i == p.odd_gpu and p.odd == "stalled" else 0.02
            v = {k: b[k] + rng.uniform(-jitter, jitter) for k in ("GRACT", "SMACT", "DRAMA")}
            v["TENSO"] = b["TENSO"] + (rng.uniform(-0.025, 0.025) if b["TENSO"] else 0.0)
            v["GRACT"] = b["GRACT"] + rng.uniform(-0.02, 0.02)
            v = {k: min(1.0, max(0.0, round(x, 3))) for k, x in v.items()}
            v["POWER"] = round(b["POWER"] + rng.uniform(-0.02, 0.02) * cap, 3)
            row.append(v)
        rows.append(row)
    return rows


def _odd(p: DmonParams, rng: random.Random, b: dict, cap: float) -> None:
    if p.odd == "stalled":
        b.update(GRACT=0.985, SMACT=rng.uniform(0.008, 0.025), TENSO=0.0)
        b.update(DRAMA=rng.uniform(0.001, 0.006), POWER=rng.uniform(0.15, 0.22) * cap)
    else:  # its SMs as busy as the others', waiting on HBM
        b.update(SMACT=b["SMACT"] * rng.uniform(0.97, 1.03), TENSO=rng.uniform(0.03, 0.08))
        b.update(DRAMA=rng.uniform(0.80, 0.91), POWER=rng.uniform(0.55, 0.68) * cap)


def _matched(p: DmonParams) -> list[list[dict]]:
    """Generator 2: one job level, each healthy replica within 1.2% of it, each sample
    within 1.5% of the replica's level (means within about 3% of one another)."""
    cap = NODES[p.accelerator].cap_w
    rng = readings_rng("dcgm-dmon-activity", p.sample, p.accelerator, p.odd, p.odd_gpu, 2)
    t = rng.uniform(0.30, 0.62)
    job = {
        "GRACT": 0.98,
        "TENSO": t,
        "SMACT": min(0.95, t + rng.uniform(0.20, 0.35)),
        "DRAMA": rng.uniform(0.18, 0.40),
        "POWER": rng.uniform(0.75, 0.92) * cap,
    }
    base = []
    for i in range(GPUS):
        b = {k: v * rng.uniform(0.988, 1.012) for k, v in job.items()}
        if i == p.odd_gpu:
            _odd(p, rng, b, cap)
        base.append(b)
    rows = []
    for _ in range(SAMPLES):
        row = []
        for b in base:
            v = {k: min(1.0, round(x * rng.uniform(0.985, 1.015), 3)) for k, x in b.items()}
            v["POWER"] = round(b["POWER"] * rng.uniform(0.985, 1.015), 3)
            row.append(v)
        rows.append(row)
    return rows


def first_pass(p: DmonParams, rows: list[list[dict]]) -> list[float]:
    """POWER in the first pass, whose profiling fields print N/A (a stream of its own)."""
    rng = readings_rng("dcgm-dmon-activity", p.sample, "first", p.accelerator, p.odd_gpu)
    return [round(r["POWER"] * rng.uniform(0.985, 1.015), 3) for r in rows[0]]


def mean_of(rows: list[list[dict]], gpu: int, field: str) -> float:
    return statistics.fmean(r[gpu][field] for r in rows)


def dmon_output(p: DmonParams, rows: list[list[dict]]) -> str:
    lines = [
        f"$ dcgmi dmon -e {FIELD_IDS} -c {SAMPLES + 1}",
        "#Entity    " + "".join(f"{f:<13}" for f in FIELDS).rstrip(),
        ("ID         " + " " * 13 * (len(FIELDS) - 1) + "W").rstrip(),
    ]
    for i, watts in enumerate(first_pass(p, rows)):
        cells = ["N/A"] * (len(FIELDS) - 1) + [f"{watts:.3f}"]
        lines.append(f"{f'GPU {i}':<11}" + "".join(f"{c:<13}" for c in cells).rstrip())
    for row in rows:
        for i, v in enumerate(row):
            cells = [f"{v[f]:.3f}" for f in FIELDS]
            lines.append(f"{f'GPU {i}':<11}" + "".join(f"{c:<13}" for c in cells).rstrip())
    return "\n".join(lines)


@register
class DcgmDmonActivity(Template):
    slug = "dcgm-dmon-activity"
    title = "DCGM profiling fields: the odd GPU out, and tensor throughput"
    family = "gpu_health"
    lessons = ("gpu-monitoring-observability", "from-symptoms-to-device-evidence")
    skills = ("dcgm", "gpu-telemetry", "memory-vs-compute-bound")
    difficulty = 3
    version = 1
    Params = DmonParams

    def generate(self, rng: random.Random) -> DmonParams:
        for _ in range(10_000):
            acc = rng.choice(sorted(NODES))
            precisions = [q for q in ("bf16", "fp16", "fp8") if q in NODES[acc].acc.dense_flops]
            odd_gpu = rng.randrange(GPUS)
            p = DmonParams(
                accelerator=acc,
                precision=rng.choice(precisions),
                odd=rng.choice(("stalled", "memory-bound")),
                odd_gpu=odd_gpu,
                named_gpu=rng.choice([i for i in range(GPUS) if i != odd_gpu]),
                sample=rng.randrange(SAMPLE_MAX),
                generator=2,
            )
            if parts_separated({"tflops": self.solve(p)["tflops"]}, self.misconceptions(p)):
                return p
        raise RuntimeError("dcgm-dmon-activity: no separated variant drawn")  # pragma: no cover

    def _peak(self, p: DmonParams) -> float:
        return peak_tflops_of(NODES[p.accelerator].acc, p.precision)

    def _sparse(self, p: DmonParams) -> float:
        return round(NODES[p.accelerator].acc.sparse_flops[p.precision] / 1e12, 6)

    def solve(self, p: DmonParams) -> dict[str, Part]:
        tenso = mean_of(readings(p), p.named_gpu, "TENSO")
        return {
            "gpu": choice_part(
                "gpu", gpu_label(p.odd_gpu), GPU_CHOICES, "GPU not doing tensor work"
            ),
            "tflops": Part(
                "tflops",
                tenso * self._peak(p),
                "TFLOP/s",
                label=f"Achieved dense tensor throughput of GPU {p.named_gpu}",
            ),
        }

    def statement(self, p: DmonParams) -> str:
        node = NODES[p.accelerator]
        prec = PRECISION_LABEL[p.precision]
        return (
            f"An HGX node with eight {node.smi_name} GPUs runs eight independent replicas "
            f"of the same {prec} training job, one per GPU, so healthy GPUs should look "
            "alike. You sample DCGM's profiling fields (1001 graphics engine active, 1002 SM "
            "active, 1004 tensor pipe active, 1005 DRAM active, each a fraction of the "
            "sample period) and power, one pass a second:\n\n"
            f"```text\n{dmon_output(p, readings(p))}\n```\n\n"
            f"The {node.smi_name} datasheet lists {sig(self._peak(p))} TFLOP/s of dense "
            f"{prec} tensor throughput, and {sig(self._sparse(p))} TFLOP/s with 2:4 "
            "structured sparsity (the job uses none).\n\n"
            "1. Which GPU is not doing tensor work like the others? Answer GPU 0 to GPU 7, "
            "or none.\n"
            f"2. What dense {prec} throughput does GPU {p.named_gpu}'s tensor pipe achieve "
            "over these samples, in TFLOP/s?"
        )

    def solution(self, p: DmonParams) -> str:
        rows = readings(p)
        o, n = p.odd_gpu, p.named_gpu
        tenso = [r[n]["TENSO"] for r in rows]
        mean = statistics.fmean(tenso)
        g = {f: sig(mean_of(rows, o, f), 3) for f in FIELDS}
        if p.odd == "stalled":
            why = (
                f"GPU {o}'s GRACT is still about {g['GRACT']}, because a kernel is resident, "
                f"but SMACT averages {g['SMACT']}, TENSO is 0 and it draws about "
                f"{sig(mean_of(rows, o, 'POWER'), 3)} W: the kernel is waiting, not working "
                "(a kernel that never completes; each replica runs on one GPU, so there is "
                "no collective to wait on). GRACT, like nvidia-smi's GPU-Util, only says some "
                "kernel was running."
            )
        else:
            why = (
                f"GPU {o}'s SMACT ({g['SMACT']}) looks like everyone else's, but its TENSO "
                f"is only {g['TENSO']} while DRAMA is {g['DRAMA']}: its SMs are busy waiting "
                "on HBM, not doing matrix math. It is memory-bound (a much smaller batch, "
                "or work that runs without the tensor cores, looks like this)."
            )
        listed = " + ".join(f"{t:.3f}" for t in tenso)
        return (
            f"{why} Answer **GPU {o}**.\n\n"
            "The first pass prints N/A for the profiling fields: DCGM reports them as rates "
            "over an interval, and the first pass has none yet. Read the three passes that "
            f"follow. For GPU {n}, TENSO is the fraction of cycles its tensor pipes were busy. "
            f"Average the samples: $\\overline{{\\mathrm{{TENSO}}}} = ({listed}) / {SAMPLES} = "
            f"{sig(mean, 6)}$. Multiply by the dense peak for the job's precision, "
            f"$P_{{\\mathrm{{dense}}}} = {tex(self._peak(p), 12)}$ TFLOP/s, taking all its "
            "tensor work to run in that "
            "precision (the sparse figure needs 2:4 sparse weights, which this job does not "
            "use):\n\n"
            + step(ACHIEVED, {"t": mean, "P": self._peak(p)}, mean * self._peak(p), "TFLOP/s")
            + "\n\nThis is what the hardware achieved, not MFU: it counts every tensor "
            "operation, including recomputation and padding, while MFU counts only the "
            "FLOPs the model needs. SMACT and DRAMA are not tensor work: SMACT counts cycles "
            "with any warp on an SM, DRAMA counts memory traffic."
        )

    def misconceptions(self, p: DmonParams) -> list[Misconception]:
        rows = readings(p)
        peak = self._peak(p)
        n = p.named_gpu
        tenso = mean_of(rows, n, "TENSO")
        out = [
            Misconception(
                "sm-active-as-tensor",
                "tflops",
                mean_of(rows, n, "SMACT") * peak,
                "That uses SMACT, the share of cycles with any warp resident on an SM. Tensor "
                "throughput follows TENSO, the tensor pipes' busy share.",
            ),
            Misconception(
                "drama-as-tensor",
                "tflops",
                mean_of(rows, n, "DRAMA") * peak,
                "That uses DRAMA, the memory interface's busy share. Use TENSO, the tensor pipes'.",
            ),
            Misconception(
                "sparse-peak",
                "tflops",
                tenso * self._sparse(p),
                "That multiplies by the 2:4 sparsity headline. The job is dense: use the "
                "dense peak.",
            ),
            Misconception(
                "percent-as-fraction",
                "tflops",
                tenso * 100 * peak,
                "TENSO is already a fraction (0 to 1); multiplying by it as a percentage "
                "gives 100 times the answer.",
            ),
            Misconception(
                "trusted-gract",
                "gpu",
                NONE,
                "Every GPU reads GRACT near 1, but GRACT only says a kernel was resident. "
                "Compare TENSO, SMACT and power.",
            ),
        ]
        if p.odd == "memory-bound":
            out[-1] = Misconception(
                "trusted-sm-active",
                "gpu",
                NONE,
                f"GPU {p.odd_gpu}'s SMACT matches the others', but its TENSO is a fraction "
                "of theirs and its DRAMA is far higher: its SMs are waiting on memory.",
            )
        return out
