"""checkpoint-write-time: a checkpoint's size (full training state or weights only) and
the time to write it at the storage system's aggregate bandwidth.

Realism: models are the catalog's; aggregate write bandwidths run from 5 GB/s (a small
NFS filer) to 2 TB/s (Llama 3's Tectonic, 2 TB/s sustained, formulas.md section 6), and
the storage is sized to the job: every generated write takes 1 s to 15 minutes (no 405B
training state through a 5 GB/s filer).

Conventions examined: in about 40% of variants the bandwidth is the line rate of the
storage front-end links in Gb/s, as network figures are quoted (100 Gb/s to 6.4 Tb/s,
i.e. 12.5 to 800 GB/s), and the learner divides by 8; taking the Gb/s figure as GB/s is
named bits-vs-bytes, as is the reverse slip in the GB/s variants. The form is decided by
the parameters alone: a bandwidth of 100 x 2^k Gb/s that is not one of the GB/s figures
is stated in Gb/s.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import params_count
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import model_with_params, sig15, tex15

GB = 1e9


class WriteParams(Params):
    n_params: float = Field(gt=0, le=1e14)
    state: Literal["full", "weights"]
    storage_bw_gbps: float = Field(gt=0, le=1e7)


BYTES_PER_PARAM = {"full": 14, "weights": 2}
CKPT_SIZE = formula("S", lambda s: s.N * s.b / s.u, N="N", b="b", u="u")
WRITE_TIME = formula("t", lambda s: s.S / s.B, S="S", B="B")
STORAGE_GBPS = (5, 10, 20, 30, 60, 150, 300, 500, 1000, 2000)
# Front-end link line rates in Gb/s (100 Gb/s to 6.4 Tb/s): 12.5 to 800 GB/s.
LINK_GBITS = (100, 200, 400, 800, 1600, 3200, 6400)
WRITE_S = (1.0, 900.0)


def link_gbits(p: WriteParams) -> float | None:
    """The bandwidth in Gb/s when the statement gives it so, else None."""
    gbits = p.storage_bw_gbps * 8
    if gbits in LINK_GBITS and p.storage_bw_gbps not in STORAGE_GBPS:
        return float(gbits)
    return None


@register
class CheckpointWriteTime(Template):
    slug = "checkpoint-write-time"
    title = "Checkpoint size and write time"
    family = "checkpointing"
    lessons = ("storage-data-pipelines", "reliability-cost-at-scale", "gpu-memory-math")
    skills = ("checkpoint-size", "storage-bandwidth")
    difficulty = 1
    Params = WriteParams
    version = 2

    def generate(self, rng: random.Random) -> WriteParams:
        models = catalog.models()
        for _ in range(10_000):
            model = rng.choice(models)
            link = rng.random() < 0.4
            bw = rng.choice(LINK_GBITS) / 8 if link else float(rng.choice(STORAGE_GBPS))
            p = WriteParams(
                n_params=float(model.total_params),
                state=rng.choice(("full", "full", "weights")),
                storage_bw_gbps=bw,
            )
            # Storage sized to the job: a write of 1 s to 15 min.
            if WRITE_S[0] <= self._size_gb(p) / bw <= WRITE_S[1]:
                return p
        raise RuntimeError("no acceptable checkpoint-write-time variant")  # pragma: no cover

    def _size_gb(self, p: WriteParams) -> float:
        return p.n_params * BYTES_PER_PARAM[p.state] / GB

    def solve(self, p: WriteParams) -> dict[str, Part]:
        size = self._size_gb(p)
        return {
            "size": Part("size", size, "GB", label="Checkpoint size"),
            "write_time": Part(
                "write_time", size / p.storage_bw_gbps, "s", label="Checkpoint write time"
            ),
        }

    def statement(self, p: WriteParams) -> str:
        model = model_with_params(p.n_params)
        who = f"**{model.name}**" if model else "a model"
        if p.state == "full":
            what = (
                "the **full training state**: BF16 weights (2 bytes), FP32 master weights "
                "(4 bytes) and Adam's FP32 first and second moments (4 + 4 bytes), 14 bytes per "
                "parameter (gradients are not saved)"
            )
        else:
            what = "the **weights only**, in BF16 (2 bytes per parameter)"
        gbits = link_gbits(p)
        if gbits is None:
            bandwidth = (
                "The storage system absorbs writes from the job at "
                f"$B = {tex15(p.storage_bw_gbps)}$ GB/s in aggregate (1 GB $= 10^{{9}}$ bytes)."
            )
        else:
            bandwidth = (
                "The job writes to storage through front-end links with an aggregate line rate "
                f"of {sig15(gbits)} Gb/s (1 Gb $= 10^{{9}}$ bits), which the storage system "
                "absorbs in full; protocol overhead is negligible."
            )
        return (
            f"You checkpoint {who}, {params_count(p.n_params)} parameters "
            f"($N = {tex15(p.n_params)}$). The checkpoint holds {what}. {bandwidth}\n\n"
            "1. How large is the checkpoint, in GB?\n"
            "2. How long does it take to write, in seconds, if the storage bandwidth is the only "
            "limit?"
        )

    def solution(self, p: WriteParams) -> str:
        b = BYTES_PER_PARAM[p.state]
        size = self._size_gb(p)
        why = (
            "Full state is $b = 2 + 4 + 4 + 4 = 14$ bytes per parameter"
            if p.state == "full"
            else "BF16 weights are $b = 2$ bytes per parameter"
        )
        gbits = link_gbits(p)
        link = (
            ""
            if gbits is None
            else f"\n\nThe links carry {sig15(gbits)} Gb/s, eight bits to the byte: "
            f"$B = {tex15(gbits)} / 8 = {tex15(p.storage_bw_gbps)}$ GB/s."
        )
        return (
            f"{why}; $u = 10^{{9}}$ bytes make a GB.\n\n"
            + step(CKPT_SIZE, {"N": p.n_params, "b": b, "u": "10^{9}"}, size, "GB")
            + link
            + "\n\n"
            + step(WRITE_TIME, {"S": size, "B": p.storage_bw_gbps}, size / p.storage_bw_gbps, "s")
        )

    def misconceptions(self, p: WriteParams) -> list[Misconception]:
        size = self._size_gb(p)
        bw = p.storage_bw_gbps
        out: list[Misconception] = []

        def both(code: str, wrong_size: float, feedback: str) -> None:
            out.append(Misconception(code, "size", wrong_size, feedback))
            out.append(Misconception(code, "write_time", wrong_size / bw, feedback))

        if p.state == "full":
            both(
                "weights-only",
                p.n_params * 2 / GB,
                "That saves only the BF16 weights. A full training checkpoint also holds the "
                "FP32 master weights and both Adam moments: 14 bytes per parameter.",
            )
            both(
                "gradients-in-checkpoint",
                p.n_params * 16 / GB,
                "That counts 16 bytes per parameter, including gradients. Gradients are "
                "recomputed on the next step, so a checkpoint does not store them: 14 bytes.",
            )
        else:
            both(
                "wrong-bytes-per-param",
                p.n_params * 4 / GB,
                "That stores the weights in FP32 (4 bytes). The weights are saved in BF16, "
                "2 bytes per parameter.",
            )
            both(
                "full-state-not-weights",
                p.n_params * 14 / GB,
                "That is the full training state. The question saves only the weights.",
            )
        out.append(
            Misconception(
                "gb-vs-gib",
                "size",
                size * GB / 2**30,
                "That is the size in GiB. The question asks for GB (10^9 bytes).",
            )
        )
        gbits = link_gbits(p)
        if gbits is None:
            bits = Misconception(
                "bits-vs-bytes",
                "write_time",
                size * 8 / bw,
                f"That reads {sig15(bw)} GB/s as gigabits per second. The storage bandwidth is in "
                "bytes per second.",
            )
        else:
            bits = Misconception(
                "bits-vs-bytes",
                "write_time",
                size / gbits,
                f"That takes {sig15(gbits)} Gb/s as gigabytes per second. A link's rate is in "
                f"bits: divide by 8, B = {sig15(bw)} GB/s.",
            )
        out.append(bits)
        return out
