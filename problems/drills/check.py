"""The drills' part of `problems check`: over N seeds per drill, what a learner is shown
must be real and sufficient.

Per seed and drill:
- every action prints something under its command line, and every GPU UUID is
  8-4-4-4-12 lowercase hex;
- every bus id in a node's Xid lines is a GPU that node's nvidia-smi lists;
- nccl-tests' rank lines name GPUs of the nodes' nvidia-smi and nodes Slurm shows;
  perfquery's HCAs are the node's ibstat's; the binding view's PIDs and bus ids are the
  processes and GPUs of the node's nvidia-smi;
- the evidence reader (evidence.py, text only) names the planted fault kind and its
  location from the expert path's outputs alone.
Over all of them: no two fault kinds are read alike, so no evidence path leaves two
diagnoses open.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from problems.drills import registry
from problems.drills.evidence import APP, SMI_PROC, TASKSET, XID, read
from problems.drills.export import export

# Found without a leading \b, whose check at every position made the scan 60 times
# slower on nvidia-smi -q's pages; _uuids applies the word boundary itself.
UUID = re.compile(r"GPU-[0-9a-fA-F-]+")
GOOD_UUID = re.compile(r"^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
RANK = re.compile(
    r"^#  Rank +\d+ Group  0 Pid +\d+ on (\S+) device +\d+ \[0000:([0-9a-f]{2}):00\]", re.M
)


def _uuids(text: str) -> list[str]:
    """Every `GPU-...` run that starts a word (as r"\bGPU-[0-9a-fA-F-]+" finds them)."""
    return [
        m.group()
        for m in UUID.finditer(text)
        if m.start() == 0 or not (text[m.start() - 1].isalnum() or text[m.start() - 1] == "_")
    ]


def _outputs_named(data: dict) -> list[str]:
    problems = []
    for a in data["actions"]:
        body = a["output"].split("\n", 1)
        if len(body) != 2 or not body[1].strip():
            problems.append(f"{a['id']} prints nothing")
        problems += [
            f"{a['id']} shows a malformed UUID {u}"
            for u in _uuids(a["output"])
            if not GOOD_UUID.match(u)
        ]
    return problems


def _ids_agree(outputs: dict[str, str]) -> list[str]:
    problems = []
    for action_id, out in outputs.items():
        host = action_id.split("@", 1)[-1]
        if action_id.startswith("dmesg@"):
            smi = outputs.get(f"nvidia-smi@{host}", "").upper()
            problems += [
                f"{action_id}: Xid on bus {bus} missing from nvidia-smi@{host}"
                for bus, _ in XID.findall(out)
                if f"0000:{bus.upper()}:00.0" not in smi
            ]
        if action_id.startswith("perfquery@"):
            ibstat = outputs.get(f"ibstat@{host}", "")
            problems += [
                f"{action_id}: {ca} is not in ibstat@{host}"
                for ca in re.findall(r"perfquery -C (mlx5_\d+)", out)
                if f"CA '{ca}'" not in ibstat
            ]
        smi = outputs.get(f"nvidia-smi@{host}", "")
        if action_id.startswith("binding@") and "Processes:" in smi:
            pids = {pid for _, pid in SMI_PROC.findall(smi)}
            problems += [
                f"{action_id}: PID {pid} is not a process nvidia-smi@{host} lists"
                for pid in [p for p, _ in APP.findall(out)] + [p for p, _ in TASKSET.findall(out)]
                if pid not in pids
            ]
            problems += [
                f"{action_id}: bus {bus} is not a GPU of nvidia-smi@{host}"
                for _, bus in APP.findall(out)
                if f"00000000:{bus}:00.0" not in smi
            ]
        for rank_host, bus in RANK.findall(out):
            if f"00000000:{bus.upper()}:00.0" not in outputs.get(f"nvidia-smi@{rank_host}", ""):
                problems.append(f"{action_id}: rank on {rank_host} bus {bus} is not a GPU there")
            if f"scontrol@{rank_host}" not in outputs:
                problems.append(f"{action_id}: {rank_host} is not a node Slurm shows")
    return problems


def check_drills(seeds: int, slugs: Iterable[str] | None = None) -> tuple[int, list[str]]:
    """(drills checked, failures), each failure naming slug, seed and what is wrong."""
    wanted = [s for s in registry.slugs() if slugs is None or s in set(slugs)]
    failures: list[str] = []
    read_as: dict[str, set[str]] = {}
    checked = 0
    for slug in wanted:
        for seed in range(seeds):
            checked += 1
            try:
                drill = registry.generate(slug, seed)
                data = export(drill)
            except Exception as err:  # a check reports, it does not stop at the first
                failures.append(f"{slug} seed {seed}: generate raised {err!r}")
                continue
            outputs = {a["id"]: a["output"] for a in data["actions"]}
            found = _outputs_named(data) + _ids_agree(outputs)
            path = [out for _, out in drill.replay(drill.expert_path)]
            fault, location = read(drill.alert, path, dict(drill.locations))
            if (fault, location) != (drill.answer.fault, drill.answer.location):
                found.append(
                    f"the expert path reads as {fault} at {location or '-'}, "
                    f"not {drill.answer.fault} at {drill.answer.location}"
                )
            read_as.setdefault(fault, set()).add(drill.answer.fault)
            failures += [f"{slug} seed {seed}: {p}" for p in found]
    for fault, kinds in sorted(read_as.items()):
        if len(kinds) > 1:
            failures.append(f"drills of kinds {sorted(kinds)} all read as {fault}")
    return checked, failures
