"""checkpoint-write-time: a checkpoint's size (full training state or weights only) and
the time to write it at the storage system's aggregate bandwidth.
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
STORAGE_GBPS = (5, 10, 20, 25, 50, 100, 200, 500, 1000, 2000)


@register
class CheckpointWriteTime(Template):
    slug = "checkpoint-write-time"
    title = "Checkpoint size and write time"
    family = "checkpointing"
    lessons = ("storage-data-pipelines", "reliability-cost-at-scale", "gpu-memory-math")
    skills = ("checkpoint-size", "storage-bandwidth")
    difficulty = 1
    Params = WriteParams

    def generate(self, rng: random.Random) -> WriteParams:
        model = rng.choice(catalog.models())
        return WriteParams(
            n_params=float(model.total_params),
            state=rng.choice(("full", "full", "weights")),
            storage_bw_gbps=float(rng.choice(STORAGE_GBPS)),
        )

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
        return (
            f"You checkpoint {who}, {params_count(p.n_params)} parameters "
            f"($N = {tex15(p.n_params)}$). The checkpoint holds {what}. The storage system "
            f"absorbs writes from the job at $B = {tex15(p.storage_bw_gbps)}$ GB/s in aggregate "
            "(1 GB $= 10^{9}$ bytes).\n\n"
            "1. How large is the checkpoint, in GB?\n"
            "2. How long does it take to write, in seconds, if the storage bandwidth is the only "
            "limit?"
        )

    def solution(self, p: WriteParams) -> str:
        b = BYTES_PER_PARAM[p.state]
        size = self._size_gb(p)
        why = (
            "Full state is $2 + 4 + 4 + 4 = 14$ bytes per parameter."
            if p.state == "full"
            else "BF16 weights are 2 bytes per parameter."
        )
        return (
            f"{why}\n\n"
            + step(CKPT_SIZE, {"N": p.n_params, "b": b, "u": "10^{9}"}, size, "GB")
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
        out.append(
            Misconception(
                "bits-vs-bytes",
                "write_time",
                size * 8 / bw,
                f"That reads {sig15(bw)} GB/s as gigabits per second. The storage bandwidth is in "
                "bytes per second.",
            )
        )
        return out
