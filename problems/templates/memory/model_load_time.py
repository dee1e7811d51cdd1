"""model-load-time: how long replicas that start together take to read a model's weights
from shared storage whose bandwidth they split (a scale-out event, a cold start).

Realism constraints the generator enforces (issue #11): catalog models only, named in
the statement; checkpoints in the formats that are really published or served: BF16,
FP8 and INT4 (GPTQ/AWQ) for the dense models, and only FP8 or INT4 for DeepSeek-V3,
whose release is FP8; storage either behind the catalog's Ethernet links (a 10 GbE NFS
server; a 200 or 400 GbE storage server, its line rate over 8) or a parallel file
system at 20, 40 or 100 GB/s aggregate; 2 to 32 replicas; loads of at most two hours
(a deployment that waits longer is not one anybody runs).

Conventions examined: when storage sits behind a link, the statement also gives the
link's rate in Gb/s, and reading that figure as GB/s is the slip `link-bits-as-bytes`.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import BYTES_PER_ELEMENT, params_count, sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import separated
from problems.templates.memory._family import model_name

LoadDtype = Literal["fp32", "fp16", "bf16", "fp8", "int8", "int4", "fp4"]

# Parallel file systems (aggregate GB/s a deployment would see) and the catalog's
# Ethernet links in front of a single storage server.
PARALLEL_FS = (20.0, 40.0, 100.0)
STORAGE_LINKS = ("ethernet-10gbe", "roce-200gbe", "roce-400gbe")
MAX_LOAD_S = 7200.0


class ModelLoadParams(Params):
    n_params: float = Field(gt=0, le=1e14)
    weight_dtype: LoadDtype
    storage_gbps: float = Field(gt=0, le=100_000)
    n_replicas: int = Field(ge=1, le=100_000)


def storage_link(gbps: float) -> catalog.Link | None:
    """The catalog link whose per-direction rate is exactly this storage bandwidth."""
    for slug in STORAGE_LINKS:
        link = catalog.link(slug)
        if link.bw_bytes_per_s_per_direction == gbps * 1e9:
            return link
    return None


LOAD = formula(
    "t",
    lambda s: s.n * s.N * s.b / s.B,
    n="n",
    N="N",
    b="b",
    B="B",
)


@register
class ModelLoadTime(Template):
    slug = "model-load-time"
    title = "Replicas loading a model from shared storage"
    family = "memory"
    lessons = ("storage-data-pipelines", "serving-models", "gpu-memory-math")
    skills = ("weights-bytes", "shared-bandwidth", "load-time")
    difficulty = 2
    Params = ModelLoadParams

    def generate(self, rng: random.Random) -> ModelLoadParams:
        storages = [*PARALLEL_FS] + [
            catalog.link(s).bw_bytes_per_s_per_direction / 1e9 for s in STORAGE_LINKS
        ]
        for _ in range(1000):
            model = rng.choice(catalog.models())
            dtypes = ("fp8", "int4") if model.kv_lora_rank is not None else ("bf16", "fp8", "int4")
            p = ModelLoadParams(
                n_params=float(model.total_params),
                weight_dtype=rng.choice(dtypes),
                storage_gbps=rng.choice(storages),
                n_replicas=rng.choice((2, 4, 4, 8, 8, 16, 32)),
            )
            if self._load(p) <= MAX_LOAD_S:
                return p
        raise RuntimeError("model-load-time: no variant under the load cap")

    def _bytes(self, p: ModelLoadParams) -> float:
        return p.n_params * BYTES_PER_ELEMENT[p.weight_dtype]

    def _load(self, p: ModelLoadParams, bytes_per_param: float | None = None) -> float:
        b = BYTES_PER_ELEMENT[p.weight_dtype] if bytes_per_param is None else bytes_per_param
        return p.n_replicas * p.n_params * b / (p.storage_gbps * 1e9)

    def solve(self, p: ModelLoadParams) -> dict[str, Part]:
        return {"load": Part("load", self._load(p), "s", label="Load time")}

    def statement(self, p: ModelLoadParams) -> str:
        b = BYTES_PER_ELEMENT[p.weight_dtype]
        link = storage_link(p.storage_gbps)
        if link is not None:
            where = (
                f"one storage server behind a single {link.short_name} link "
                f"({sig(link.line_rate_bits_per_s / 1e9)} Gb/s), which delivers "
                f"**{sig(p.storage_gbps)} GB/s** in total"
            )
        else:
            where = f"a parallel file system that delivers **{sig(p.storage_gbps)} GB/s** in total"
        replicas = "replica" if p.n_replicas == 1 else "replicas"
        return (
            f"An autoscaler starts **{p.n_replicas}** {replicas} of "
            f"{model_name(p.n_params) or 'a model'} at once ({params_count(p.n_params)} "
            f"parameters, $N = {tex(p.n_params, 12)}$; the checkpoint holds the weights in "
            f"**{p.weight_dtype.upper()}**, {sig(b)} byte{'s' if b != 1 else ''} per "
            f"parameter). Each replica reads its own full copy of the checkpoint from "
            f"{where}, shared evenly by every reader (1 GB/s is $10^{{9}}$ bytes per "
            "second). Nothing is cached, and only the read counts (no copy to the GPU, no "
            "start-up work).\n\n"
            "How long until every replica has read its weights, in seconds?"
        )

    def solution(self, p: ModelLoadParams) -> str:
        b = BYTES_PER_ELEMENT[p.weight_dtype]
        one = self._bytes(p)
        t = self._load(p)
        return (
            f"At $b = {sig(b)}$ byte{'' if b == 1 else 's'} per parameter, one copy of the "
            f"weights is $N b = {tex(p.n_params, 12)} \\times {sig(b)} = "
            f"{tex(one, 12)}$ bytes. The $n = {p.n_replicas}$ replicas read "
            f"{p.n_replicas} copies through the same $B = {sig(p.storage_gbps)}$ GB/s "
            f"(${tex(p.storage_gbps * 1e9)}$ bytes per second), so the "
            "storage has to deliver all of them:\n\n"
            + step(
                LOAD,
                {"n": p.n_replicas, "N": p.n_params, "b": b, "B": p.storage_gbps * 1e9},
                t,
                "s",
            )
            + f"\n\nEach replica sees {sig(p.storage_gbps / p.n_replicas, 4)} GB/s; alone it "
            f"would have loaded in {sig(t / p.n_replicas, 4)} s."
        )

    def misconceptions(self, p: ModelLoadParams) -> list[Misconception]:
        b = BYTES_PER_ELEMENT[p.weight_dtype]
        out = [
            Misconception(
                "shared-bandwidth-ignored",
                "load",
                self._load(p) / p.n_replicas,
                f"That gives every replica the full {sig(p.storage_gbps)} GB/s. The "
                f"{p.n_replicas} replicas share it: each gets 1/{p.n_replicas} of it, so the "
                f"storage must deliver {p.n_replicas} copies.",
            ),
        ]
        wrong_b = {"bf16": 4, "fp16": 4, "int4": 1, "fp4": 1}.get(p.weight_dtype, 2)
        out.append(
            Misconception(
                "wrong-bytes-per-param",
                "load",
                self._load(p, wrong_b),
                f"That uses {wrong_b} byte(s) per parameter. The {p.weight_dtype.upper()} "
                f"checkpoint stores {sig(b)} byte(s) per parameter.",
            )
        )
        link = storage_link(p.storage_gbps)
        if link is not None:
            rate = link.line_rate_bits_per_s / 1e9
            slip = Misconception(
                "link-bits-as-bytes",
                "load",
                self._load(p) * p.storage_gbps / rate,
                f"That reads the link's {sig(rate)} Gb/s as GB/s. Gigabits per second "
                f"over 8 are gigabytes per second: {sig(p.storage_gbps)} GB/s.",
            )
            # With 8 replicas it is the shared-bandwidth slip's value: name that one only.
            if separated([self._load(p), *(m.value for m in out), slip.value]):
                out.append(slip)
        return out
