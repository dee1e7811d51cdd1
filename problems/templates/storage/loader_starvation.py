"""loader-starvation: does the data loader keep a training node's GPUs busy? A node of G
GPUs trains on JPEG images; at full speed each GPU consumes c images per second. The
loader must read them (from shared storage at B GB/s for this node, images of s KB) and
decode and augment them on the CPU (w loader worker processes, each decoding d images per
second). With prefetching, the steady rate is the slowest of the three: the loader can
supply min(B / s, w d) images per second against G c demanded, and the GPUs are busy
supply / demand of the time when that is below 1 (they wait on the loader otherwise).

Parts: the node's demand (images/s), what the loader can supply (images/s), the GPUs'
busy share (%), and what limits the node (a choice: storage, cpu-decode, or gpus when
the loader keeps up).

Realism: 8-GPU nodes; 600-3,000 images/s per GPU (ResNet-50 to ViT-class models on
A100/H100 with mixed precision); ImageNet-style JPEGs of about 110 KB (ImageNet-1k:
about 140 GB for 1.28 M images) or larger 300-500 KB crops; shared storage giving a node
0.5-10 GB/s (NFS to a parallel filesystem); 16-96 loader workers decoding 150-400 images
per second each (PIL or OpenCV on one core; NVIDIA DALI moves decoding to the GPU). KB
and GB are decimal, as the statement says.

Misconceptions: one GPU's demand for the node's (per-gpu-demand), the storage limit
alone (storage-only) or the decode limit alone (decode-only) taken as the supply, the
busy share turned over (ratio-inverted), and blaming the GPUs while the loader starves
them (gpus-blamed).
"""

from __future__ import annotations

import random

from pydantic import Field

from problems.engine.numbers import sig
from problems.engine.registry import register
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import parts_separated, sig15

STORAGE, CPU, GPUS = "storage", "cpu-decode", "gpus"
CHOICES = (STORAGE, CPU, GPUS)


class LoaderParams(Params):
    gpus: int = Field(ge=1, le=16)
    per_gpu: float = Field(gt=0, le=20_000)  # images/s one GPU consumes
    image_kb: float = Field(gt=0, le=10_000)
    storage_gbps: float = Field(gt=0, le=200)
    workers: int = Field(ge=1, le=256)
    decode_per_worker: float = Field(gt=0, le=5_000)


def limits(p: LoaderParams) -> tuple[float, float, float]:
    """(demand, storage limit, decode limit) in images/s."""
    return (
        p.gpus * p.per_gpu,
        p.storage_gbps * 1e9 / (p.image_kb * 1e3),
        p.workers * p.decode_per_worker,
    )


def bottleneck(p: LoaderParams) -> str:
    demand, storage, decode = limits(p)
    if min(storage, decode) >= demand:
        return GPUS
    return STORAGE if storage < decode else CPU


@register
class LoaderStarvation(Template):
    slug = "loader-starvation"
    title = "A data loader that leaves GPUs waiting"
    family = "storage"
    lessons = ("storage-data-pipelines",)
    skills = ("data-loading", "storage-bandwidth")
    difficulty = 2
    Params = LoaderParams
    version = 1

    def generate(self, rng: random.Random) -> LoaderParams:
        want = rng.choice(CHOICES)
        for _ in range(10_000):
            p = LoaderParams(
                gpus=8,
                per_gpu=float(rng.choice((600, 800, 1000, 1200, 1500, 2000, 2500, 3000))),
                image_kb=float(rng.choice((110, 110, 150, 300, 500))),
                storage_gbps=float(rng.choice((0.5, 1, 1.5, 2, 3, 5, 8, 10))),
                workers=rng.choice((16, 24, 32, 48, 64, 96)),
                decode_per_worker=float(rng.choice((150, 200, 250, 300, 400))),
            )
            demand, storage, decode = limits(p)
            apart = abs(storage - decode) > 0.1 * min(storage, decode)
            near = min(storage, decode) / demand
            if bottleneck(p) != want or not apart or 0.9 < near < 1.1:
                continue
            if parts_separated(self.solve(p), self.misconceptions(p)):
                return p
        raise RuntimeError("loader-starvation: no separated variant")  # pragma: no cover

    def solve(self, p: LoaderParams) -> dict[str, Part]:
        demand, storage, decode = limits(p)
        supply = min(storage, decode)
        return {
            "demand": Part("demand", demand, "image/s", label="Images/s the GPUs consume"),
            "supply": Part("supply", supply, "image/s", label="Images/s the loader supplies"),
            "busy": Part("busy", min(1.0, supply / demand) * 100, "%", label="GPU busy share"),
            "limit": Part(
                "limit", bottleneck(p), kind=Kind.CHOICE, tolerance=Exact(), choices=CHOICES,
                label="What limits the node",
            ),
        }  # fmt: skip

    def statement(self, p: LoaderParams) -> str:
        return (
            f"A training node has {p.gpus} GPUs; at full speed each consumes "
            f"{sig15(p.per_gpu)} images a second. The images are JPEGs of about "
            f"{sig(p.image_kb)} KB (1 KB = 1,000 bytes) on shared storage, which gives this "
            f"node {sig(p.storage_gbps)} GB/s of reads. The data loader runs {p.workers} "
            f"worker processes on the node's CPUs, each decoding and augmenting "
            f"{sig(p.decode_per_worker)} images a second, and prefetches batches ahead of "
            "the GPUs.\n\n"
            "1. How many images a second do the GPUs consume at full speed?\n"
            "2. How many images a second can the loader supply?\n"
            "3. What share of the time, in %, are the GPUs busy?\n"
            "4. What limits the node: `storage`, `cpu-decode`, or `gpus` (the loader keeps "
            "up)?"
        )

    def solution(self, p: LoaderParams) -> str:
        demand, storage, decode = limits(p)
        supply = min(storage, decode)
        limit = bottleneck(p)
        verdict = {
            GPUS: "The loader keeps up: the GPUs run at full speed, and the loader is not "
            "the problem.",
            STORAGE: "Storage is the slowest stage: more workers would not help; cache the "
            "dataset on local NVMe, shard it into larger files, or add storage bandwidth.",
            CPU: "Decoding is the slowest stage: more workers (if cores are free), "
            "smaller pre-resized images, or GPU decoding (NVIDIA DALI) would help; faster "
            "storage would not.",
        }[limit]
        return (
            "Reading and decoding form a pipeline in front of the GPUs. With prefetching it "
            "runs at its slowest stage, so compare what each stage can deliver with what "
            "the GPUs consume: when the slowest stage delivers less, the GPUs wait for the "
            "rest of the time.\n\n"
            f"Demand: {p.gpus} x {sig15(p.per_gpu)} = **{sig(demand, 6)} images/s**.\n\n"
            f"Storage can deliver {sig(p.storage_gbps)} GB/s / {sig(p.image_kb)} KB = "
            f"{sig(storage, 6)} images/s; the workers decode {p.workers} x "
            f"{sig(p.decode_per_worker)} = {sig(decode, 6)} images/s. With prefetching the "
            f"pipeline runs at its slowest stage: **{sig(supply, 6)} images/s**.\n\n"
            f"The GPUs are busy {sig(supply, 6)} / {sig(demand, 6)} of the time, capped at "
            f"100%: **{sig(min(1.0, supply / demand) * 100, 4)}%**. {verdict} The signature "
            "of a starved node: GPU utilisation low and sawtoothed, the training loop's "
            "time spent waiting on the next batch."
        )

    def misconceptions(self, p: LoaderParams) -> list[Misconception]:
        demand, storage, decode = limits(p)
        supply = min(storage, decode)
        out = [
            Misconception(
                "per-gpu-demand", "demand", p.per_gpu,
                f"That is one GPU's rate; the node has {p.gpus} of them.",
            ),
        ]  # fmt: skip
        if decode < storage:
            out.append(
                Misconception(
                    "storage-only",
                    "supply",
                    storage,
                    "Reading is not the whole pipeline: every image must also be decoded on "
                    "the CPU, and the workers decode fewer than storage delivers.",
                )  # fmt: skip
            )
        else:
            out.append(
                Misconception(
                    "decode-only",
                    "supply",
                    decode,
                    "The workers can only decode what storage delivers, and storage is the "
                    "slower stage here.",
                )  # fmt: skip
            )
        if supply < demand:
            out += [
                Misconception(
                    "ratio-inverted", "busy", demand / supply * 100,
                    "Busy share is what the loader supplies over what the GPUs could use.",
                ),
                Misconception(
                    "gpus-blamed", "limit", GPUS,
                    "The GPUs could go faster: they wait on the loader, which supplies "
                    "fewer images than they consume.",
                ),
            ]  # fmt: skip
        else:
            slower = STORAGE if storage < decode else CPU
            out.append(
                Misconception(
                    "loader-blamed",
                    "limit",
                    slower,
                    "Both loader stages deliver more than the GPUs consume: the GPUs set the pace.",
                )  # fmt: skip
            )
        return out
