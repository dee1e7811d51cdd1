"""What the scheduling templates share: a detail generator seeded from the parameters
(names, job ids and ages are decoration; the fault lives in the parameters), a builder
for count parts (word answers use `_common.choice_part`), Slurm hostlist compression
and the fenced block for tool output.
"""

from __future__ import annotations

import hashlib
import random

from hardware_db import catalog
from problems.engine.template import Kind, Params, Part
from problems.engine.tolerance import Exact
from problems.templates._common import choice_part

__all__ = ["choice_part"]  # re-exported: the family's modules import it from here


def detail_rng(p: Params, salt: str = "") -> random.Random:
    """A generator for decoration only, fixed by the parameters (so a statement and a
    test reader see the same names every time)."""
    digest = hashlib.sha256((salt + p.model_dump_json()).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def count_part(name: str, value: int, label: str) -> Part:
    return Part(name, value, "", kind=Kind.INTEGER, tolerance=Exact(), label=label)


def hostlist(prefix: str, numbers: list[int], width: int = 3) -> str:
    """Slurm's compressed host list: gpu[001-003,005], or gpu004 for one host."""
    nums = sorted(numbers)
    if len(nums) == 1:
        return f"{prefix}{nums[0]:0{width}d}"
    runs: list[list[int]] = []
    for n in nums:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    ranges = [
        f"{r[0]:0{width}d}" if len(r) == 1 else f"{r[0]:0{width}d}-{r[-1]:0{width}d}" for r in runs
    ]
    return f"{prefix}[{','.join(ranges)}]"


def fence(lines: list[str]) -> str:
    """Tool output as a fenced text block (the renderer leaves its contents alone)."""
    return "```text\n" + "\n".join(line.rstrip() for line in lines) + "\n```"


def accelerator_name(slug: str) -> str:
    acc = next(a for a in catalog.accelerators() if a.slug == slug)
    return acc.prose_name


# --- Slurm output -----------------------------------------------------------------------------

SQUEUE_FORMAT = "%.8i %.9P %.10j %.8u %.2t %.10M %.10l %.6D %R"


def fmt_hours(h: int) -> str:
    """A Slurm time limit: 12:00:00, 2-00:00:00."""
    return f"{h // 24}-{h % 24:02d}:00:00" if h >= 24 else f"{h}:00:00"


def fmt_elapsed(s: int) -> str:
    """squeue's TIME column: 50:29, 8:47:49, 1-04:39:19."""
    d, rest = divmod(s, 86400)
    hh, rest = divmod(rest, 3600)
    mm, ss = divmod(rest, 60)
    if d:
        return f"{d}-{hh:02d}:{mm:02d}:{ss:02d}"
    return f"{hh}:{mm:02d}:{ss:02d}" if hh else f"{mm}:{ss:02d}"


def squeue_table(rows: list[tuple], partition: str = "gpu") -> list[str]:
    """`squeue -o SQUEUE_FORMAT`; rows are (id, name, user, st, time, limit, nodes, where)."""
    out = [
        f'$ squeue -p {partition} -o "{SQUEUE_FORMAT}"',
        f"{'JOBID':>8} {'PARTITION':>9} {'NAME':>10} {'USER':>8} {'ST':>2} "
        f"{'TIME':>10} {'TIME_LIMIT':>10} {'NODES':>6} NODELIST(REASON)",
    ]
    for jobid, name, user, st, t, lim, nodes, where in rows:
        out.append(
            f"{jobid:>8} {partition:>9} {name:>10} {user:>8} {st:>2} {t:>10} "
            f"{lim:>10} {nodes:>6} {where}"
        )
    return out


def sinfo_table(gres_type: str, gpus: int, states: tuple, used: tuple) -> list[str]:
    """`sinfo -N -O` with Gres and GresUsed, one line per node gpu001, gpu002, ..."""
    out = [
        '$ sinfo -p gpu -N -O "NodeList:10,Gres:20,GresUsed:24,StateLong:10"',
        f"{'NODELIST':<10}{'GRES':<20}{'GRES_USED':<24}{'STATE':<10}",
    ]
    for k, (state, u) in enumerate(zip(states, used, strict=True), start=1):
        idx = "N/A" if u == 0 else ("0" if u == 1 else f"0-{u - 1}")
        out.append(
            f"{f'gpu{k:03d}':<10}{f'gpu:{gres_type}:{gpus}(S:0-1)':<20}"
            f"{f'gpu:{gres_type}:{u}(IDX:{idx})':<24}{state:<10}"
        )
    return out
