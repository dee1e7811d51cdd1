"""Hand-checked answers, slips and refused parameters for the scheduling family, and, for
the scenario templates, small readers written here (regexes and columns, none of the
templates' code) that find the planted fault in the generated output of 200 seeds and
check it is the graded answer."""

from __future__ import annotations

import math
import re

import pydantic
import pytest

from problems.engine import registry
from problems.engine.variants import Variant
from tests.problems.template_harness import slips, solve

SEEDS = range(200)

# ------------------------------------------------------------------------ slurm-pending-job

SLURM = {
    "gres_type": "h200",
    "states": [
        "idle",
        "mixed",
        "allocated",
        "idle",
        "mixed",
        "drained",
        "mixed",
        "allocated",
        "drained",
    ],
    "used": [0, 1, 8, 0, 3, 0, 5, 8, 0],
    "mine": [False, True, False, False, False, False, True, True, False],
    "reason": "QOSMaxGRESPerUser",
    "job_nodes": 2,
    "job_gpus": 8,
    "time_limit_h": 4,
    "user_gpu_limit": 16,
    "job_id": 8588423,
}


def test_slurm_hand_checked():
    # Free: idle 8 + 8, mixed 8-1 + 8-3 + 8-5 = 7 + 5 + 3; allocated and drained 0 -> 31.
    # The user runs 1 + 5 + 8 = 14 GPUs; 14 + 2 x 8 = 30 > 16: a QOS cap -> "limit".
    parts = solve("slurm-pending-job", SLURM)
    assert parts["reason"].value == "limit"
    assert parts["free_gpus"].value == 31
    named = slips("slurm-pending-job", SLURM)
    assert named[("limit-read-as-shortage", "reason")] == "resources"
    assert named[("drained-counted-idle", "free_gpus")] == 31 + 2 * 8  # two drained nodes
    assert named[("mixed-ignored", "free_gpus")] == 16  # the two idle nodes only
    assert named[("used-read-as-free", "free_gpus")] == 16 + 1 + 3 + 5


@pytest.mark.parametrize(
    "change",
    [
        {"used": [0, 0, 8, 0, 3, 0, 5, 8, 0]},  # a mixed node with nothing in use
        {"used": [1, 1, 8, 0, 3, 0, 5, 8, 0]},  # an idle node with a GPU in use
        {"used": [0, 1, 7, 0, 3, 0, 5, 8, 0]},  # an allocated node with a GPU free
        {"mine": [True] + [False] * 8},  # the user's job on an idle node
        {"states": ["idle"] * 8},  # one node short of the used and mine lists
        {"job_gpus": 16},
    ],
)
def test_slurm_refuses_inconsistent_nodes(change):
    with pytest.raises(pydantic.ValidationError):
        registry.get("slurm-pending-job").parse_params({**SLURM, **change})


REASON_CLASS = {  # Slurm's reason codes, as the squeue man page groups them
    "Resources": "resources",
    "Priority": "priority",
    "QOSMaxGRESPerUser": "limit",
    "AssocGrpGRES": "limit",
    "ReqNodeNotAvail": "unavailable",
    "PartitionTimeLimit": "invalid",
}


def _hours(limit: str) -> float:
    """A Slurm time limit such as 12:00:00 or 2-00:00:00, in hours."""
    days, _, clock = limit.rpartition("-")
    h, m, s = (int(x) for x in clock.split(":"))
    return int(days or 0) * 24 + h + m / 60 + s / 3600


def _expand(hosts: str) -> list[str]:
    m = re.fullmatch(r"(\w+?)\[([\d,-]+)\]", hosts)
    if not m:
        return [hosts]
    out = []
    for part in m.group(2).split(","):
        lo, _, hi = part.partition("-")
        out += [f"{m.group(1)}{i:0{len(lo)}d}" for i in range(int(lo), int(hi or lo) + 1)]
    return out


def read_slurm(text: str) -> tuple[str, str, int]:
    """(reason code shown, reason class found from the scene, free GPUs) from a statement."""
    job = re.search(r"submitted job (\d+) with `sbatch ([^`]*)`", text)
    jobid, sbatch = job.group(1), job.group(2)
    user = re.search(r"User `(\w+)`", text).group(1)
    max_time = _hours(re.search(r"MaxTime is `([^`]+)`", text).group(1))
    cap = int(re.search(r"gres/gpu=(\d+)", text).group(1))
    nodes = int(re.search(r"-N (\d+)", sbatch).group(1))
    gpus = int(re.search(r"--gres=gpu:\w+:(\d+)", sbatch).group(1))
    wanted = re.search(r"-w (\S+)", sbatch)
    blocks = re.findall(r"```text\n(.*?)```", text, re.S)
    squeue = [ln.split(None, 8) for ln in blocks[0].splitlines()[2:]]
    sinfo = {}
    for ln in blocks[1].splitlines()[2:]:
        name, gres, used, state = ln.split()
        total = int(re.match(r"gpu:\w+:(\d+)", gres).group(1))
        sinfo[name] = (total, int(re.match(r"gpu:\w+:(\d+)", used).group(1)), state)
    free = {n: t - u if s in ("idle", "mixed") else 0 for n, (t, u, s) in sinfo.items()}
    row = next(r for r in squeue if r[0] == jobid)
    shown = re.match(r"\((\w+)", row[8]).group(1)
    mine = sum(sinfo[h][1] for r in squeue if r[4] == "R" and r[3] == user for h in _expand(r[8]))
    ahead = squeue[: squeue.index(row)]
    if _hours(row[6]) > max_time:
        found = "invalid"
    elif wanted and all(sinfo[h][2] in ("drained", "down") for h in _expand(wanted.group(1))):
        found = "unavailable"
    elif mine + nodes * gpus > cap:
        found = "limit"
    elif any(r[4] == "PD" and r[8] == "(Resources)" for r in ahead):
        found = "priority"
    elif sum(f >= gpus for f in free.values()) < nodes:
        found = "resources"
    else:
        found = "none"
    return shown, found, sum(free.values())


def test_slurm_reader_finds_the_graded_fault():
    seen = set()
    for seed in SEEDS:
        v = Variant.from_seed("slurm-pending-job", seed)
        shown, found, free = read_slurm(v.statement_markdown())
        assert found == REASON_CLASS[shown] == v.parts["reason"].value, seed
        assert free == v.parts["free_gpus"].value, seed
        seen.add(found)
    assert seen == {"resources", "priority", "limit", "unavailable", "invalid"}


# -------------------------------------------------------------------------- k8s-pending-pod

POD = {
    "product": "NVIDIA-H100-80GB-HBM3",
    "gpu_nodes": 4,
    "cpu_nodes": 2,
    "cause": "taint",
    "gpus_per_pod": 8,
    "pods": 1,
    "selector": "none",
    "tolerates": False,
    "quota_limit": 0,
    "quota_used": 0,
}


def test_k8s_pending_pod_taint_message():
    # 7 nodes: the control plane fails on its taint, the 4 GPU nodes on the GPU taint, the 2
    # CPU nodes on resources (they have no nvidia.com/gpu). Counts sorted as strings.
    v = Variant.from_params("k8s-pending-pod", POD)
    expected = (
        "0/7 nodes are available: 1 node(s) had untolerated taint "
        "{node-role.kubernetes.io/control-plane: }, 2 Insufficient nvidia.com/gpu, 4 node(s) "
        "had untolerated taint {nvidia.com/gpu: present}. preemption: 0/7 nodes are "
        "available: 2 No preemption victims found for incoming pod, 5 Preemption is not "
        "helpful for scheduling."
    )
    assert expected in v.statement_markdown()
    assert v.parts["cause"].value == "taint"
    assert v.parts["fix"].value == "add-toleration"
    named = slips("k8s-pending-pod", POD)
    assert named[("taint-read-as-shortage", "cause")] == "insufficient"
    assert named[("more-nodes-for-taint", "fix")] == "add-nodes"


def test_k8s_pending_pod_quota_event():
    params = {
        **POD,
        "cause": "quota",
        "tolerates": True,
        "selector": "match",
        "quota_limit": 32,
        "quota_used": 32,
    }
    v = Variant.from_params("k8s-pending-pod", params)
    text = v.statement_markdown()
    assert "No resources found in" in text
    assert (
        "exceeded quota: gpu-quota, requested: requests.nvidia.com/gpu=8, used: "
        "requests.nvidia.com/gpu=32, limited: requests.nvidia.com/gpu=32"
    ) in text
    assert (v.parts["cause"].value, v.parts["fix"].value) == ("quota", "raise-quota")
    assert slips("k8s-pending-pod", params)[("capacity-for-quota", "fix")] == "add-nodes"


@pytest.mark.parametrize(
    "change",
    [
        {"tolerates": True},  # a taint variant whose pod tolerates the taint
        {"cause": "insufficient", "selector": "other", "tolerates": True},
        {"cause": "quota", "tolerates": True},  # a quota variant without a quota
        {"cause": "quota", "tolerates": True, "quota_limit": 32, "quota_used": 16},  # fits
        {"quota_limit": 16},  # a quota on a taint variant
    ],
)
def test_k8s_pending_pod_refuses_two_causes(change):
    with pytest.raises(pydantic.ValidationError):
        registry.get("k8s-pending-pod").parse_params({**POD, **change})


FIX = {
    "insufficient": "add-nodes",
    "selector": "fix-selector",
    "taint": "add-toleration",
    "quota": "raise-quota",
    "queue": "raise-quota",
}


def read_k8s(text: str) -> tuple[str, dict[str, int]]:
    """(cause, the scheduler's counts) from a statement's kubectl output."""
    blocks = re.findall(r"```text\n(.*?)```", text, re.S)
    nodes = [ln.split() for ln in blocks[0].splitlines()[2:]]
    products = {n[5] for n in nodes if len(n) == 6}
    n_gpu = sum(len(n) == 6 for n in nodes)
    body = "\n".join(blocks[1:])
    if "exceeded quota" in body:
        used, limit = re.search(
            r"used: requests.nvidia.com/gpu=(\d+), limited: "
            r"requests.nvidia.com/gpu=(\d+)",
            body,
        ).groups()
        asked = int(re.search(r"requested: requests.nvidia.com/gpu=(\d+)", body).group(1))
        assert int(used) + asked > int(limit)
        return "quota", {}
    if "couldn't assign flavors" in body:
        assert "No resources found" in body and re.search(r"\s+False\s+\d+m", body)
        return "queue", {}
    message = re.search(r"nodes are available: (.*?)\. preemption", body).group(1)
    counts = {reason: int(n) for n, reason in (c.split(" ", 1) for c in message.split(", "))}
    assert sum(counts.values()) == len(nodes)
    selector = re.search(r"Node-Selectors:\s+(\S+)", body).group(1)
    tolerations = re.search(r"Tolerations:(.*?)Events:", body, re.S).group(1)
    if "nvidia.com/gpu:NoSchedule" not in tolerations:
        assert counts["node(s) had untolerated taint {nvidia.com/gpu: present}"] == n_gpu
        return "taint", counts
    if selector != "<none>" and selector.split("=")[1] not in products:
        assert counts["node(s) didn't match Pod's node affinity/selector"] >= n_gpu
        return "selector", counts
    assert counts["Insufficient nvidia.com/gpu"] >= n_gpu
    return "insufficient", counts


def test_k8s_reader_finds_the_graded_cause():
    seen = set()
    for seed in SEEDS:
        v = Variant.from_seed("k8s-pending-pod", seed)
        cause, _ = read_k8s(v.statement_markdown())
        assert cause == v.parts["cause"].value, seed
        assert FIX[cause] == v.parts["fix"].value, seed
        seen.add(cause)
    assert seen == set(FIX)


# -------------------------------------------------------------------------- k8s-gpu-request


@pytest.mark.parametrize(
    ("scenario", "gpu", "n", "answer", "codes"),
    [
        ("count", "h100", 4, "gpu-limit", {"mig-for-whole-gpus", "quota-requests-gpus"}),
        ("model", "h200", 1, "node-selector", {"count-picks-model", "toleration-attracts"}),
        (
            "taint",
            "a100",
            1,
            "toleration",
            {"selector-overrides-taint", "request-implies-toleration"},
        ),
        ("slice", "h200", 1, "mig-resource", {"fractional-gpu-limit", "time-slicing-isolates"}),
        ("share", "l40s", 1, "time-slicing", {"mig-on-l40s", "fractional-gpu-limit"}),
        ("cap", "b200", 32, "resource-quota", {"limit-caps-namespace", "kueue-for-hard-cap"}),
        ("queue", "h100", 64, "kueue", {"quota-queues", "jobset-is-gang"}),
        ("gang", "h100", 32, "kueue", {"jobset-is-gang", "quota-as-gang"}),
        ("group", "a100", 32, "jobset", {"lws-for-training", "kueue-defines-group"}),
        ("replica", "h100", 16, "leaderworkerset", {"one-pod-spans-nodes", "jobset-is-gang"}),
    ],
)
def test_k8s_gpu_request_answers(scenario, gpu, n, answer, codes):
    params = {"scenario": scenario, "gpu": gpu, "n_gpus": n}
    v = Variant.from_params("k8s-gpu-request", params)
    assert v.parts["mechanism"].value == answer
    assert {code for code, _ in slips("k8s-gpu-request", params)} == codes
    if scenario == "slice":
        assert "1g.18gb" in v.statement_markdown()  # H200's smallest MIG profile


@pytest.mark.parametrize(
    "params",
    [
        {"scenario": "slice", "gpu": "l40s", "n_gpus": 1},  # the L40S has no MIG
        {"scenario": "share", "gpu": "h100", "n_gpus": 1},
        {"scenario": "count", "gpu": "h100", "n_gpus": 16},  # more than one node holds
    ],
)
def test_k8s_gpu_request_refuses_unreal_scenarios(params):
    with pytest.raises(pydantic.ValidationError):
        registry.get("k8s-gpu-request").parse_params(params)


# -------------------------------------------------------------------------- ray-gpu-packing


def test_ray_gpu_bound_with_wasted_fraction():
    # 0.3 GPU: floor(1/0.3) = 3 per GPU (0.1 left over), 8 x 3 = 24 per node; CPUs 64 / 2 =
    # 32, so the GPUs bind: 24; ceil(100 / 24) = 5 nodes. Pooled: floor(8 / 0.3) = 26.
    params = {
        "gpu": "h100-sxm",
        "gpus_per_node": 8,
        "cpus_per_node": 64,
        "gpu_per_actor": 0.3,
        "cpus_per_actor": 2,
        "n_actors": 100,
    }
    parts = solve("ray-gpu-packing", params)
    assert (parts["per_node"].value, parts["nodes"].value) == (24, 5)
    named = slips("ray-gpu-packing", params)
    assert named[("gpu-limit-ignored", "per_node")] == 32
    assert named[("fractions-pooled", "per_node")] == 26
    assert named[("nodes-rounded-down", "nodes")] == 4  # 100 // 24
    # rounding 3.33 up gives 32 per node, the same as the CPU count: named once
    assert ("fraction-rounded-up", "per_node") not in named


def test_ray_cpu_bound():
    # 0.25 GPU: 8 x 4 = 32 by GPUs, but 48 CPUs / 8 = 6: the CPUs bind; ceil(30 / 6) = 5.
    params = {
        "gpu": "l40s",
        "gpus_per_node": 8,
        "cpus_per_node": 48,
        "gpu_per_actor": 0.25,
        "cpus_per_actor": 8,
        "n_actors": 30,
    }
    parts = solve("ray-gpu-packing", params)
    assert (parts["per_node"].value, parts["nodes"].value) == (6, 5)
    named = slips("ray-gpu-packing", params)
    assert named == {("cpu-limit-ignored", "per_node"): 32, ("nodes-gpu-only", "nodes"): 1}


def test_ray_refuses_fractions_ray_refuses():
    base = {
        "gpu": "l40s",
        "gpus_per_node": 8,
        "cpus_per_node": 48,
        "gpu_per_actor": 0.25,
        "cpus_per_actor": 8,
        "n_actors": 30,
    }
    for change in ({"gpu_per_actor": 1.5}, {"gpu_per_actor": 0.33}, {"cpus_per_actor": 0}):
        with pytest.raises(pydantic.ValidationError):
            registry.get("ray-gpu-packing").parse_params({**base, **change})


def test_ray_reader_recomputes_the_answers():
    for seed in SEEDS:
        v = Variant.from_seed("ray-gpu-packing", seed)
        text = v.statement_markdown()
        g, c = re.search(r"num_gpus=([\d.]+), num_cpus=(\d+)", text).groups()
        n_gpu, n_cpu = map(int, re.search(r'num-gpus: "(\d+)", num-cpus: "(\d+)"', text).groups())
        n = int(re.search(r"range\((\d+)\)", text).group(1))
        per_gpu = int(1 / float(g) + 1e-9)  # whole actors per GPU
        per = min(n_gpu * per_gpu, n_cpu // int(c))
        assert v.parts["per_node"].value == per, seed
        assert v.parts["nodes"].value == math.ceil(n / per), seed
