"""storage-feed-rate: the read bandwidth the storage must sustain to keep every GPU of a
training job fed with samples, in GB/s or MB/s, and the data read in a day in TB. The
slips named are one GPU's rate for the job's, the other unit of the pair, one hour for a
day, and TiB for TB.

Realism constraints the generator enforces:

- Jobs of 8 to 4,096 GPUs (whole 8-GPU servers).
- Samples as training jobs read them: ImageNet-style JPEG images (about 110 KB on
  average; ImageNet-1k's 1.28 M training images take about 140 GB) at 400 to 3,000 images
  per second per GPU; pre-tokenized text sequences of 4,096 or 8,192 tokens stored as
  4-byte token IDs (16.384 or 32.768 KB) at 1 to 16 sequences per second per GPU; 30 s
  audio clips of 16 kHz 16-bit PCM (960 KB) at 20 to 120 per second per GPU; compressed
  video clips of 2 to 20 MB at 1 to 6 per second per GPU.
- KB is 1,000 bytes and TB 10^12 bytes, stated in the statement; each named slip lands
  at least 2.5% from the answer and from the part's other slips.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field

from problems.engine.numbers import sig
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import parts_separated, tex15

RateUnit = Literal["GB/s", "MB/s"]
RATE_BYTES = {"GB/s": 1e9, "MB/s": 1e6}
OTHER = {"GB/s": "MB/s", "MB/s": "GB/s"}
UNIT_NOTE = {"GB/s": "1 GB = 10^9 bytes", "MB/s": "1 MB = 10^6 bytes"}
DAY_S = 86_400
TB = 1e12

GPU_COUNTS = (8, 16, 32, 64, 128, 256, 512, 1536, 2048, 4096)
# (sample sizes in KB, samples per second per GPU)
SCENARIOS = (
    ((110,), (400, 600, 800, 1200, 1500, 2000, 2500, 3000)),
    ((16.384, 32.768), (1, 2, 2.5, 4, 6, 8, 12, 16)),
    ((960,), (20, 30, 40, 50, 80, 120)),
    ((2000, 4000, 8000, 12000, 20000), (1, 1.5, 2, 3, 4, 6)),
)

READ = formula("R", lambda s: s.n * s.r * s.k, n="n", r="r", k="s")
DAILY = formula("D", lambda s: s.R * s.t, R="R", t="t")


class FeedParams(Params):
    n_gpus: int = Field(ge=1, le=1_000_000)
    samples_per_s_per_gpu: float = Field(gt=0, le=1e6)
    sample_kb: float = Field(gt=0, le=1e9)
    unit: RateUnit


def read_bytes_per_s(p: FeedParams) -> float:
    return p.n_gpus * p.samples_per_s_per_gpu * p.sample_kb * 1e3


@register
class StorageFeedRate(Template):
    slug = "storage-feed-rate"
    title = "Storage read rate to feed a training job"
    family = "storage"
    lessons = ("storage-data-pipelines",)
    skills = ("storage-bandwidth", "data-pipeline-throughput", "units-tb-tib")
    difficulty = 1
    Params = FeedParams
    version = 1

    def generate(self, rng: random.Random) -> FeedParams:
        for _ in range(10_000):
            sizes, rates = rng.choice(SCENARIOS)
            p = FeedParams(
                n_gpus=rng.choice(GPU_COUNTS),
                samples_per_s_per_gpu=float(rng.choice(rates)),
                sample_kb=float(rng.choice(sizes)),
                unit=rng.choice(["GB/s", "MB/s"]),
            )
            if parts_separated(self.solve(p), self.misconceptions(p)):
                return p
        raise RuntimeError("no acceptable storage-feed-rate variant")  # pragma: no cover

    def solve(self, p: FeedParams) -> dict[str, Part]:
        rate = read_bytes_per_s(p)
        return {
            "read": Part("read", rate / RATE_BYTES[p.unit], p.unit, label="Read bandwidth"),
            "daily": Part("daily", rate * DAY_S / TB, "TB", label="Data read per day"),
        }

    def statement(self, p: FeedParams) -> str:
        return (
            f"A training job runs on $n = {p.n_gpus}$ GPUs. Each GPU consumes "
            f"$r = {tex15(p.samples_per_s_per_gpu)}$ training samples per second, and a "
            f"sample is $s = {tex15(p.sample_kb)}$ KB as stored (1 KB = 1,000 bytes). Every "
            "sample is read from shared storage (no local cache), and the job runs around "
            "the clock.\n\n"
            f"1. What read bandwidth must the storage sustain for the whole job, in {p.unit} "
            f"({UNIT_NOTE[p.unit]})?\n"
            "2. How much data does the job read in one day (86,400 s), in TB "
            "(1 TB = 10^12 bytes)?"
        )

    def solution(self, p: FeedParams) -> str:
        rate = read_bytes_per_s(p)
        read = rate / RATE_BYTES[p.unit]
        daily = rate * DAY_S / TB
        return (
            "Every GPU reads its own samples, so the job's read rate is the GPU count times "
            "each GPU's samples per second times the bytes per sample:\n\n"
            + step(
                READ,
                {"n": p.n_gpus, "r": tex15(p.samples_per_s_per_gpu), "k": tex15(p.sample_kb * 1e3)},
                tex15(rate),
                "B/s",
            )
            + f"\n\nthat is **{sig(read, 6)} {p.unit}**. Over a day of $t = 86{{,}}400$ s:\n\n"
            + step(DAILY, {"R": tex15(rate), "t": 86400}, tex15(rate * DAY_S), "B")
            + f"\n\nthat is **{sig(daily, 6)} TB** a day."
        )

    def misconceptions(self, p: FeedParams) -> list[Misconception]:
        rate = read_bytes_per_s(p)
        read = rate / RATE_BYTES[p.unit]
        daily = rate * DAY_S / TB
        out: list[Misconception] = []
        if p.n_gpus > 1:
            out += [
                Misconception(
                    "one-gpu-not-job",
                    "read",
                    read / p.n_gpus,
                    f"That is one GPU's read rate. All {p.n_gpus} GPUs read their own samples: "
                    "multiply by the GPU count.",
                ),
                Misconception(
                    "one-gpu-not-job",
                    "daily",
                    daily / p.n_gpus,
                    f"That is one GPU's data per day. Multiply by the {p.n_gpus} GPUs.",
                ),
            ]
        out += [
            Misconception(
                "wrong-rate-unit",
                "read",
                rate / RATE_BYTES[OTHER[p.unit]],
                f"That is the rate in {OTHER[p.unit]}; the question asks for {p.unit}.",
            ),
            Misconception(
                "one-hour-not-day",
                "daily",
                daily / 24,
                "That is one hour of reading (3,600 s). A day is 86,400 s.",
            ),
            Misconception(
                "tb-vs-tib",
                "daily",
                rate * DAY_S / 2**40,
                "That is the amount in TiB (2^40 bytes). The question asks for TB, 10^12 bytes.",
            ),
        ]
        return out
