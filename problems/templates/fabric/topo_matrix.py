"""topo-matrix: reading `nvidia-smi topo -m`: which NIC sits closest to a GPU, which
path joins a GPU to a named device, and how many GPU pairs cross the CPU interconnect.

The matrix is generated from a small description of the box: each GPU's and NIC's CPU
socket and the PCIe switch it hangs under (or none: a CPU root port). The path between
two devices is then what the driver prints: NV# between two GPUs of an NVLink box (# the
NVLinks bonded between them), the group path (PIX or PXB) under a shared switch, NODE
within one socket, SYS across sockets. Output follows the published format (GPU and NIC
columns, CPU Affinity, NUMA Affinity, GPU NUMA ID, the Legend and the NIC Legend), with
the tabs expanded as a terminal shows them.

Realism, as the generator enforces it:

- HGX boxes (8 GPUs, 2 sockets, GPUs 0-3 on socket 0): H100, H200 and B200 with NV18
  between every pair (18 NVLinks per GPU through the NVSwitches), A100 with NV12; one
  ConnectX NIC per GPU under the GPU's own PCIe switch (PIX; PXB on A100, whose switches
  have two levels), the socket's NICs numbered in a shuffled order as real boxes do, and
  0-2 extra NICs (storage, in-band) on a CPU root port, NODE to their socket's GPUs.
  Host CPUs: 2 x 56-core Xeon (Hopper, Blackwell) or 2 x 64-core EPYC (A100), SMT on.
- PCIe boxes: 4 or 8 NVIDIA L40S split evenly over 2 sockets, per socket either each GPU
  on its own root port (NODE between them), pairs under one switch (PIX), or all under a
  two-level switch tree (PXB); one ConnectX NIC per socket and sometimes a second on
  socket 0, each on a root port or under a GPU switch. GPUs on different sockets are
  always SYS apart. The matrix itself is drawn by `_topo`.
- The asked GPU always has exactly one closest NIC; the asked path is a PCIe word.

Misconceptions named: a NODE NIC picked over the PIX/PXB one (node-nic) or the NIC with
the GPU's own index (same-index-nic); NODE and SYS swapped, or PIX and PXB
(node-sys-confused, pix-pxb-confused); GPU pairs counted in both orders (ordered-pairs),
NODE pairs counted as SYS (node-counted-as-sys), and on NVLink boxes the cross-socket
pairs counted although NVLink carries them (socket-not-path). Each is named only when it
changes the answer and differs from the slips named before it.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field, model_validator

from problems.engine.registry import register
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates.fabric._family import (
    HOST,
    NV_LINKS,
    PATH_RANK,
    PATH_WORDS,
    SMI_NAME,
    keep_apart,
)
from problems.templates.fabric._topo import (
    closest_nic,
    device_index,
    nic_names,
    pair_counts,
    path,
    topo_output,
)

GpuSlug = Literal["a100-sxm-80gb", "h100-sxm", "h200", "b200", "l40s"]
Socket = Literal[0, 1]
Group = int  # a PCIe switch id; -1 = a CPU root port of its own


class TopoParams(Params):
    gpu: GpuSlug
    gpu_socket: tuple[Socket, ...] = Field(min_length=2, max_length=8)
    gpu_group: tuple[Group, ...] = Field(min_length=2, max_length=8)
    nic_socket: tuple[Socket, ...] = Field(min_length=1, max_length=12)
    nic_group: tuple[Group, ...] = Field(min_length=1, max_length=12)
    group_path: Literal["PIX", "PXB"]
    ask_gpu: int = Field(ge=0, le=7)
    path_from: str
    path_to: str

    @model_validator(mode="after")
    def _consistent(self) -> TopoParams:
        if len(self.gpu_group) != len(self.gpu_socket):
            raise ValueError("gpu_group and gpu_socket must have one entry per GPU")
        if len(self.nic_group) != len(self.nic_socket):
            raise ValueError("nic_group and nic_socket must have one entry per NIC")
        groups = list(zip(self.gpu_group, self.gpu_socket, strict=True))
        groups += list(zip(self.nic_group, self.nic_socket, strict=True))
        for g, s in groups:
            if g < -1 or any(g == g2 and s != s2 for g2, s2 in groups if g >= 0):
                raise ValueError("a PCIe switch sits under one socket; group ids are >= -1")
        if self.ask_gpu >= len(self.gpu_socket):
            raise ValueError("ask_gpu names no GPU of this box")
        for name in (self.path_from, self.path_to):
            if device_index(self, name) is None:
                raise ValueError(f"{name!r} names no device of this box")
        if self.path_from == self.path_to or path(self, self.path_from, self.path_to) not in (
            PATH_RANK
        ):
            raise ValueError("the asked path must join two devices over PCIe")
        ranks = sorted(PATH_RANK[path(self, f"GPU{self.ask_gpu}", n)] for n in nic_names(self))
        if len(ranks) > 1 and ranks[0] == ranks[1]:
            raise ValueError("the asked GPU must have exactly one closest NIC")
        return self


@register
class TopoMatrix(Template):
    slug = "topo-matrix"
    title = "Reading nvidia-smi topo -m"
    family = "fabric"
    lessons = ("anatomy-of-a-gpu-server", "bring-up-validation", "ai-networking-infiniband-roce")
    skills = ("server-topology", "fabric-topology", "cluster-acceptance", "pcie-numa-affinity")
    difficulty = 2
    version = 1
    Params = TopoParams

    def generate(self, rng: random.Random) -> TopoParams:
        gpu = rng.choice(("h100-sxm", "h100-sxm", "h200", "b200", "a100-sxm-80gb", "l40s", "l40s"))
        while True:
            p = self._pcie(rng) if gpu == "l40s" else self._hgx(rng, gpu)
            if p is not None:
                return p

    def _hgx(self, rng: random.Random, gpu: str) -> TopoParams | None:
        order = []  # (socket, group) of each NIC in mlx5 order
        for s in rng.sample((0, 1), 2):
            block = [(s, g) for g in range(4 * s, 4 * s + 4)]
            rng.shuffle(block)
            order += block
        for _ in range(rng.choice((0, 0, 1, 2))):
            order.insert(rng.choice((0, len(order) // 2, len(order))), (rng.choice((0, 1)), -1))
        ask = rng.randrange(8)
        p0 = dict(
            gpu=gpu,
            gpu_socket=(0, 0, 0, 0, 1, 1, 1, 1),
            gpu_group=tuple(range(8)),
            nic_socket=tuple(s for s, _ in order),
            nic_group=tuple(g for _, g in order),
            group_path="PXB" if gpu == "a100-sxm-80gb" else "PIX",
            ask_gpu=ask,
        )
        local = next(i for i, (_, g) in enumerate(order) if g == ask)
        others = [i for i in range(len(order)) if i != local]
        frm = f"GPU{rng.randrange(8)}"
        to = f"NIC{rng.choice(others)}"
        try:
            return TopoParams(**p0, path_from=frm, path_to=to)
        except ValueError:
            return None

    def _pcie(self, rng: random.Random) -> TopoParams | None:
        n = rng.choice((4, 8, 8))
        per = n // 2
        sockets, groups, nics_s, nics_g = [], [], [], []
        next_group = 0
        for s in (0, 1):
            style = rng.choice(("direct", "pairs", "tree"))
            for i in range(per):
                sockets.append(s)
                if style == "direct":
                    groups.append(-1)
                elif style == "pairs":
                    groups.append(next_group + i // 2)
                else:
                    groups.append(next_group)
            socket_groups = sorted({g for g, so in zip(groups, sockets, strict=True) if so == s})
            next_group += per
            under = [g for g in socket_groups if g >= 0]
            for k in range(1 if s == 1 or rng.random() < 0.6 else 2):
                nics_s.append(s)
                nics_g.append(rng.choice(under) if under and (k or rng.random() < 0.6) else -1)
        path_word = "PXB" if rng.random() < 0.5 else "PIX"
        a, b = rng.sample(range(n), 2)
        try:
            return TopoParams(
                gpu="l40s",
                gpu_socket=tuple(sockets),
                gpu_group=tuple(groups),
                nic_socket=tuple(nics_s),
                nic_group=tuple(nics_g),
                group_path=path_word,
                ask_gpu=rng.randrange(n),
                path_from=f"GPU{a}",
                path_to=rng.choice((f"GPU{b}", f"GPU{b}", f"NIC{rng.randrange(len(nics_s))}")),
            )
        except ValueError:
            return None

    def solve(self, p: TopoParams) -> dict[str, Part]:
        return {
            "nic": Part(
                "nic",
                closest_nic(p),
                kind=Kind.CHOICE,
                tolerance=Exact(),
                choices=tuple(nic_names(p)),
                label=f"NIC closest to GPU{p.ask_gpu}",
            ),
            "path": Part(
                "path",
                path(p, p.path_from, p.path_to),
                kind=Kind.CHOICE,
                tolerance=Exact(),
                choices=PATH_WORDS,
                label=f"Path {p.path_from} to {p.path_to}",
            ),
            "sys_pairs": Part(
                "sys_pairs",
                pair_counts(p)["SYS"],
                kind=Kind.INTEGER,
                tolerance=Exact(),
                label="GPU pairs across sockets by PCIe",
            ),
        }

    def _box(self, p: TopoParams) -> str:
        n, nics = len(p.gpu_socket), len(p.nic_socket)
        host = HOST[p.gpu][1]
        if NV_LINKS[p.gpu]:
            return (
                f"an HGX server with 8 x {SMI_NAME[p.gpu]} on NVSwitch, {nics} ConnectX NICs "
                f"and {host}"
            )
        return f"a PCIe server with {n} x {SMI_NAME[p.gpu]}, {nics} ConnectX NICs and {host}"

    def statement(self, p: TopoParams) -> str:
        return (
            f"During bring-up of {self._box(p)}, you run `nvidia-smi topo -m`:\n\n"
            f"```text\n$ nvidia-smi topo -m\n{topo_output(p)}\n```\n\n"
            f"1. Which NIC should the NCCL rank on GPU{p.ask_gpu} use, that is, which NIC "
            "has the closest path to it? Answer with the NIC column name (NIC0, NIC1, ...).\n"
            f"2. What path joins {p.path_from} and {p.path_to}? Answer with the legend word "
            "(PIX, PXB, PHB, NODE or SYS).\n"
            "3. How many pairs of GPUs (each pair counted once) communicate across the "
            "SMP interconnect between the CPU sockets, that is, show SYS in the matrix?"
        )

    def solution(self, p: TopoParams) -> str:
        gpu = f"GPU{p.ask_gpu}"
        row = ", ".join(f"{n} {path(p, gpu, n)}" for n in nic_names(p))
        best = closest_nic(p)
        counts = pair_counts(p)
        word = path(p, p.path_from, p.path_to)
        text = (
            f"Read the {gpu} row across the NIC columns: {row}. The legend orders the PCIe "
            "paths from closest to farthest as PIX, PXB, PHB, NODE, SYS, so the closest is "
            f"**{best}** ({path(p, gpu, best)}; it is {best.replace('NIC', 'mlx5_')} in the "
            "NIC Legend). A NODE NIC would send every transfer through the CPU's host "
            "bridges; a SYS one across the sockets as well.\n\n"
            f"The {p.path_from} row, {p.path_to} column reads **{word}**: "
            + {
                "PIX": "both sit under one PCIe switch.",
                "PXB": "both sit under a tree of PCIe switches, without the host bridge.",
                "NODE": "same CPU socket, but different PCIe host bridges.",
                "SYS": "they hang off different CPU sockets, so traffic crosses the "
                "inter-socket link (UPI or Infinity Fabric).",
            }[word]
            + "\n\n"
        )
        if NV_LINKS[p.gpu]:
            text += (
                f"Every GPU pair shows NV{NV_LINKS[p.gpu]}: NVLink through the NVSwitches joins "
                "them, whatever socket their PCIe links hang from. No GPU pair is SYS: "
                f"the answer is **0**, although {counts['cross']} pairs sit on different sockets."
            )
        else:
            n = len(p.gpu_socket)
            text += (
                f"The L40S has no NVLink, so GPU pairs use PCIe. With {n // 2} GPUs on each "
                f"socket, every pair with one GPU on each socket is SYS: "
                f"{n // 2} x {n // 2} = **{counts['SYS']}** pairs (counted once each; the "
                f"matrix shows each twice, above and below the diagonal). The "
                f"{counts['NODE']} NODE pair(s) stay within a socket."
            )
        return text

    def misconceptions(self, p: TopoParams) -> list[Misconception]:
        gpu = f"GPU{p.ask_gpu}"
        counts = pair_counts(p)
        out = []
        same = f"NIC{p.ask_gpu}"
        if same in nic_names(p):
            out.append(
                Misconception(
                    "same-index-nic",
                    "nic",
                    same,
                    f"{same} only shares its number with {gpu}; NIC and GPU numbering are "
                    f"independent. Read the {gpu} row and take the NIC with the closest path.",
                )
            )
        node = [n for n in nic_names(p) if path(p, gpu, n) == "NODE" and n != same]
        if node:
            out.append(
                Misconception(
                    "node-nic",
                    "nic",
                    node[0],
                    f"{node[0]} is on the same socket (NODE) but behind another host bridge; "
                    f"the NIC under {gpu}'s own PCIe switch is closer, and GPUDirect RDMA "
                    "runs best through that switch.",
                )
            )
        word = path(p, p.path_from, p.path_to)
        swap = {"NODE": "SYS", "SYS": "NODE", "PIX": "PXB", "PXB": "PIX"}[word]
        code = "node-sys-confused" if word in ("NODE", "SYS") else "pix-pxb-confused"
        out.append(
            Misconception(
                code,
                "path",
                swap,
                "NODE stays within one CPU socket (between its host bridges); SYS crosses "
                "the link between sockets."
                if word in ("NODE", "SYS")
                else "PIX is at most one PCIe bridge; PXB is several bridges without the "
                "host bridge.",
            )
        )
        out.append(
            Misconception(
                "ordered-pairs",
                "sys_pairs",
                2 * counts["SYS"],
                "That counts each pair twice: the matrix is symmetric, so every SYS pair "
                "appears once above and once below the diagonal.",
            )
        )
        if counts["NODE"]:
            out.append(
                Misconception(
                    "node-counted-as-sys",
                    "sys_pairs",
                    counts["SYS"] + counts["NODE"],
                    "That includes the NODE pairs. NODE stays within one socket; only SYS "
                    "crosses between them.",
                )
            )
        if NV_LINKS[p.gpu]:
            out.append(
                Misconception(
                    "socket-not-path",
                    "sys_pairs",
                    counts["cross"],
                    "Those GPUs are on different sockets, but the matrix shows NV# for them: "
                    "their traffic goes over NVLink, not the SMP interconnect.",
                )
            )
        return keep_apart(self.solve(p), out)
