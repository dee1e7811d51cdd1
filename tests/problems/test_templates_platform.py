"""Hand-checked answers, named slips and read-back tests for the platform templates
(own-vs-rent, gpu-chargeback, mig-sharing).

The read-back tests parse each generated statement with small readers written here
(regular expressions and column splits, not the templates' code) and recompute the
graded answers from what a learner sees, over 200 seeds.
"""

from __future__ import annotations

import re

import pydantic
import pytest

from problems.engine import registry
from problems.engine.variants import Variant
from tests.problems.template_harness import slips, solve

SEEDS = range(200)

# --------------------------------------------------------------------------- own-vs-rent

DGX_H100 = {
    "server_kw": 10.2,
    "gpus_per_server": 8,
    "capex_usd": 300_000,
    "years": 4,
    "avg_load": 0.7,
    "pue": 1.3,
    "kwh_usd": 0.1,
    "hosting_usd_month": 2_500,
    "rent_usd_gpu_h": 2.5,
    "utilisation": 0.5,
}


def test_own_vs_rent_dgx_h100_half_busy():
    # Month: 300,000 / 48 = 6,250; power 10.2 x 0.7 = 7.14 kW x 1.3 x 730 h x 0.10 =
    # 677.586; hosting 2,500 -> M = 9,427.586 USD. Per GPU-hour: / (8 x 730 = 5,840) =
    # 1.614313; per useful hour at 50%: 3.228626. Break-even 1.614313 / 2.5 = 64.5725%.
    # 50% < 64.57% -> rent.
    parts = solve("own-vs-rent", DGX_H100)
    assert parts["owned_cost"].value == pytest.approx(3.228626, rel=1e-6)
    assert parts["owned_cost"].unit == "USD/GPU-h"
    assert parts["breakeven"].value == pytest.approx(64.5725, rel=1e-5)
    assert parts["cheaper"].value == "rent"
    named = slips("own-vs-rent", DGX_H100)
    assert named[("utilisation-ignored", "owned_cost")] == pytest.approx(1.614313, rel=1e-6)
    # (6,250 + 2,500) / 5,840 / 0.5
    assert named[("power-forgotten", "owned_cost")] == pytest.approx(2.996575, rel=1e-6)
    assert named[("per-server-not-per-gpu", "owned_cost")] == pytest.approx(25.82901, rel=1e-6)
    assert named[("per-month-not-per-hour", "owned_cost")] == pytest.approx(2356.897, rel=1e-6)
    # Without PUE: 9,271.22 / 5,840 / 0.5 = 3.175077, only 1.7% off: not named.
    assert ("pue-forgotten", "owned_cost") not in named
    assert named[("per-server-not-per-gpu", "breakeven")] == pytest.approx(516.58, rel=1e-4)
    assert named[("power-forgotten", "breakeven")] == pytest.approx(59.9315, rel=1e-5)
    assert named[("ratio-inverted", "breakeven")] == pytest.approx(154.866, rel=1e-5)
    assert named[("utilisation-ignored", "cheaper")] == "own"


def test_own_vs_rent_high_pue_busy_team_owns():
    # PUE 1.6 at 0.20 USD/kWh: power 7.14 x 1.6 x 730 x 0.2 = 1,667.904; M = 10,417.904;
    # c = 1.783888; at 80%: 2.229860; U* = 71.3555% -> own. Without PUE: power 1,042.44,
    # c = 1.676788, / 0.8 = 2.095985 (6% off: named).
    params = {**DGX_H100, "pue": 1.6, "kwh_usd": 0.2, "utilisation": 0.8}
    parts = solve("own-vs-rent", params)
    assert parts["owned_cost"].value == pytest.approx(2.229860, rel=1e-6)
    assert parts["breakeven"].value == pytest.approx(71.3555, rel=1e-5)
    assert parts["cheaper"].value == "own"
    named = slips("own-vs-rent", params)
    assert named[("pue-forgotten", "owned_cost")] == pytest.approx(2.095985, rel=1e-6)
    assert named[("per-server-not-per-gpu", "cheaper")] == "rent"


_NUM = r"([\d{},.]+)"


def _num(text: str) -> float:
    return float(text.replace("{,}", "").replace(",", ""))


def test_own_vs_rent_reads_back_from_the_statement():
    """Recompute all three answers from the statement's numbers alone."""
    for seed in SEEDS:
        v = Variant.from_seed("own-vs-rent", seed)
        text = v.statement_markdown()
        gpus = int(re.search(r"\((\d+) [^)]*GPUs, rated", text).group(1))
        capex = _num(re.search(r"\$K = " + _NUM + r"\$ USD", text).group(1))
        years = int(re.search(r"\$Y = (\d+)\$ years", text).group(1))
        kw = _num(re.search(r"P_\{\\mathrm\{avg\}\} = " + _NUM + r"\$ kW", text).group(1))
        pue = _num(re.search(r"PUE is \$" + _NUM + r"\$", text).group(1))
        kwh = _num(re.search(r"costs \$" + _NUM + r"\$ USD per kWh", text).group(1))
        hosting = _num(re.search(r"\$H = " + _NUM + r"\$ USD per month", text).group(1))
        hours = int(re.search(r"\$h = (\d+)\$ h", text).group(1))
        rent = _num(re.search(r"\$r = " + _NUM + r"\$ USD per GPU-hour", text).group(1))
        util = _num(re.search(r"\$U = " + _NUM + r"\\%\$", text).group(1)) / 100
        month = capex / years / 12 + kw * pue * hours * kwh + hosting
        per_hour = month / gpus / hours
        parts = v.parts
        assert parts["owned_cost"].value == pytest.approx(per_hour / util, rel=1e-9), seed
        assert parts["breakeven"].value == pytest.approx(per_hour / rent * 100, rel=1e-9), seed
        assert parts["cheaper"].value == ("own" if per_hour / util < rent else "rent"), seed
        assert abs(util - per_hour / rent) >= 0.05, seed  # never a rounding call


# ------------------------------------------------------------------------ gpu-chargeback

POOL = {
    "n_gpus": 64,
    "monthly_cost_usd": 140_160,  # 3.00 USD per GPU-hour over 64 x 730 = 46,720 GPU-h
    "allocated": (20_000, 12_000, 8_000),
    "used": (15_000, 9_000, 4_000),
    "team": 1,
    "policy": "platform",
    "quota_gpus": 16,
    "running_gpus": 8,
    "job_gpus": 16,
    "borrow_limit": 16,
    "idle_gpus": 8,
}


def test_chargeback_platform_policy():
    # Rate 140,160 / 46,720 = 3.00; recsys used 9,000 h -> 27,000 USD. Utilisation
    # 28,000 / 46,720 = 59.9315%. Job: 8 + 16 = 24, 8 past the quota of 16; borrowable
    # min(16, 8) = 8 -> borrowed.
    parts = solve("gpu-chargeback", POOL)
    assert parts["charge"].value == pytest.approx(27_000)
    assert parts["utilisation"].value == pytest.approx(59.9315, rel=1e-5)
    assert parts["admission"].value == "borrowed"
    named = slips("gpu-chargeback", POOL)
    assert named[("allocated-not-used", "charge")] == pytest.approx(36_000)
    assert named[("idle-policy-swapped", "charge")] == pytest.approx(45_051.43, rel=1e-6)
    assert named[("month-as-30-days", "charge")] == pytest.approx(27_375)  # 140,160/46,080
    assert named[("allocated-not-used", "utilisation")] == pytest.approx(85.6164, rel=1e-5)
    assert named[("month-as-30-days", "utilisation")] == pytest.approx(60.7639, rel=1e-5)
    assert named[("running-usage-ignored", "admission")] == "guaranteed"
    assert named[("quota-as-hard-cap", "admission")] == "queued"


def test_chargeback_spread_policy():
    # 140,160 x 9,000 / 28,000 = 45,051.43. By allocated: 140,160 x 12,000 / 40,000 =
    # 42,048. Idle split equally: 27,000 + (140,160 - 84,000) / 3 = 45,720.
    params = {**POOL, "policy": "spread"}
    parts = solve("gpu-chargeback", params)
    assert parts["charge"].value == pytest.approx(45_051.43, rel=1e-6)
    named = slips("gpu-chargeback", params)
    assert named[("allocated-not-used", "charge")] == pytest.approx(42_048)
    assert named[("idle-split-equally", "charge")] == pytest.approx(45_720)
    assert named[("idle-policy-swapped", "charge")] == pytest.approx(27_000)


@pytest.mark.parametrize(
    ("quota", "answer", "code", "wrong"),
    [
        # 8 + 16 <= 32 with a full pool: the team's lent quota is reclaimed.
        ((32, 8, 16, 16, 0), "guaranteed", "quota-not-reclaimed", "queued"),
        # 16 + 24 - 16 = 24 past the quota, more than the limit of 16.
        ((16, 16, 24, 16, 32), "queued", "borrowing-limit-ignored", "borrowed"),
        # 16 + 16 - 16 = 16 to borrow, only 8 idle.
        ((16, 16, 16, 32, 8), "queued", "borrowing-beyond-idle", "borrowed"),
        ((16, 16, 16, 32, 8), "queued", "running-usage-ignored", "guaranteed"),
    ],
)
def test_chargeback_admission(quota, answer, code, wrong):
    keys = ("quota_gpus", "running_gpus", "job_gpus", "borrow_limit", "idle_gpus")
    params = {**POOL, **dict(zip(keys, quota, strict=True))}
    assert solve("gpu-chargeback", params)["admission"].value == answer
    assert slips("gpu-chargeback", params)[(code, "admission")] == wrong


def test_chargeback_refuses_inconsistent_usage():
    t = registry.get("gpu-chargeback")
    for bad in (
        {"used": (15_000, 13_000, 4_000)},  # used past allocated
        {"allocated": (30_000, 12_000, 8_000)},  # 50,000 > 46,720 GPU-h in the month
        {"used": (15_000, 9_000)},  # one figure short
        {"idle_gpus": 60},  # more idle than the pool minus the team's running GPUs
    ):
        with pytest.raises(pydantic.ValidationError):
            t.parse_params({**POOL, **bad})


def _read_report(text: str) -> tuple[list[str], list[int], list[int]]:
    block = re.search(r"```text\n(.*?)\n```", text, re.S).group(1).splitlines()
    assert block[0].split() == ["TEAM", "ALLOCATED_GPU_H", "USED_GPU_H"]
    names, alloc, used = [], [], []
    for row in block[1:]:
        name, a, u = row.split()
        names.append(name)
        alloc.append(int(a.replace(",", "")))
        used.append(int(u.replace(",", "")))
    return names, alloc, used


def test_chargeback_reads_back_from_the_report():
    """Recompute the charge, utilisation and admission from the statement and its table."""
    seen = set()
    for seed in SEEDS:
        v = Variant.from_seed("gpu-chargeback", seed)
        text = v.statement_markdown()
        names, alloc, used = _read_report(text)
        assert all(u <= a for a, u in zip(alloc, used, strict=True)), seed
        g = int(re.search(r"\$G = (\d+)\$ GPUs", text).group(1))
        cost = _num(re.search(r"\$C = " + _NUM + r"\$ USD per month", text).group(1))
        hours = int(re.search(r"\$h = (\d+)\$ h", text).group(1))
        team = re.search(r"What is team ([\w-]+)'s charge", text).group(1)
        mine = used[names.index(team)]
        if "in proportion to its **used** GPU-hours" in text:
            charge = cost * mine / sum(used)
        else:
            assert "flat rate for each **used** GPU-hour" in text, seed
            charge = cost / (g * hours) * mine
        assert v.parts["charge"].value == pytest.approx(charge, rel=1e-9), seed
        util = sum(used) / (g * hours) * 100
        assert v.parts["utilisation"].value == pytest.approx(util, rel=1e-9), seed
        m = re.search(
            r"quota of (\d+) GPUs and a borrowing limit of (\d+); it runs (\d+) GPUs now and "
            r"submits a job that needs (\d+) more",
            text,
        )
        quota, limit, running, job = (int(x) for x in m.groups())
        idle_m = re.search(r"leave (\d+) GPUs of the pool idle", text)
        idle = int(idle_m.group(1)) if idle_m else 0
        over = running + job - quota
        expect = "guaranteed" if over <= 0 else "borrowed" if over <= min(limit, idle) else "queued"
        assert v.parts["admission"].value == expect, seed
        seen.add(expect)
    assert seen == {"guaranteed", "borrowed", "queued"}


# --------------------------------------------------------------------------- mig-sharing

# Instances per GPU of each profile, copied by hand from NVIDIA's MIG user guide
# ("Supported MIG Profiles") and mig-parted's config-default.yaml.
NVIDIA_TABLE = {
    **{p: n for p, n in zip(
        ("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"),
        (7, 4, 3, 2, 1, 1), strict=True)},
    **{p: n for p, n in zip(
        ("1g.12gb", "1g.24gb", "2g.24gb", "3g.47gb", "4g.47gb", "7g.94gb"),
        (7, 4, 3, 2, 1, 1), strict=True)},
    **{p: n for p, n in zip(
        ("1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"),
        (7, 4, 3, 2, 1, 1), strict=True)},
    **{p: n for p, n in zip(
        ("1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"),
        (7, 4, 3, 2, 1, 1), strict=True)},
}  # fmt: skip


def test_mig_tables_match_nvidia_and_the_slice_rule():
    from problems.templates.platform._family import MIG_PROFILES, slice_limit

    for accel, profiles in MIG_PROFILES.items():
        for prof in profiles:
            assert prof.per_gpu == NVIDIA_TABLE[prof.name], (accel, prof)
            assert slice_limit(prof) == prof.per_gpu, (accel, prof)


def test_mig_h100_six_of_eight_partitioned():
    # 1g.10gb: 7 per H100 80GB (7 compute slices; memory would allow 8). 6 GPUs -> 42.
    params = {
        "accelerator": "h100-sxm",
        "n_gpus": 8,
        "mig_gpus": 6,
        "profile": "1g.10gb",
        "scenario": "tenants",
    }
    parts = solve("mig-sharing", params)
    assert parts["pods"].value == 42
    assert parts["mode"].value == "MIG"
    named = slips("mig-sharing", params)
    assert named[("memory-divided", "pods")] == 48  # 6 x 80 / 10
    assert named[("per-gpu-count", "pods")] == 7
    assert named[("whole-node-counted", "pods")] == 56
    assert ("compute-only", "pods") not in named  # 6 x 7 = 42: the answer itself
    assert named[("time-slicing-isolates", "mode")] == "time-slicing"
    assert named[("mps-isolates", "mode")] == "MPS"


def test_mig_a100_1g20gb_is_memory_bound():
    # 1g.20gb takes 2 of 8 memory slices: 4 per GPU, not 7. 8 GPUs -> 32.
    params = {
        "accelerator": "a100-sxm-80gb",
        "n_gpus": 8,
        "mig_gpus": 8,
        "profile": "1g.20gb",
        "scenario": "mpi-ranks",
    }
    assert solve("mig-sharing", params)["pods"].value == 32
    named = slips("mig-sharing", params)
    assert named[("compute-only", "pods")] == 56
    assert ("memory-divided", "pods") not in named  # 80 / 20 = 4 as well
    assert named[("time-slicing-concurrent", "mode")] == "time-slicing"
    assert named[("mig-for-many-small", "mode")] == "MIG"


def test_mig_h200_3g71gb_naive_memory_rounds_down():
    # 3g.71gb: 2 per H200; 141 // 71 = 1 per GPU is the naive memory slip. 4 GPUs -> 8.
    params = {
        "accelerator": "h200",
        "n_gpus": 4,
        "mig_gpus": 4,
        "profile": "3g.71gb",
        "scenario": "notebooks",
    }
    assert solve("mig-sharing", params)["pods"].value == 8
    named = slips("mig-sharing", params)
    assert named[("memory-divided", "pods")] == 4
    assert named[("mig-oversubscribes", "mode")] == "MIG"


def test_mig_refuses_a_profile_of_another_gpu():
    t = registry.get("mig-sharing")
    good = {
        "accelerator": "h100-sxm",
        "n_gpus": 8,
        "mig_gpus": 8,
        "profile": "1g.10gb",
        "scenario": "tenants",
    }
    t.parse_params(good)
    for bad in ({"profile": "1g.18gb"}, {"mig_gpus": 9}, {"accelerator": "mi300x"}):
        with pytest.raises(pydantic.ValidationError):
            t.parse_params({**good, **bad})


_GPU_MEMORY = {"80GB": 80, "94GB": 94, "141GB": 141, "180GB": 180, "B200": 180}
_MODE_WORDS = (
    ("MIG", ("must never reach", "p99 latency must not move")),
    ("time-slicing", ("as many notebooks per GPU", "simply rerun")),
    ("MPS", ("at the same time rather than take turns", "kernels to overlap")),
)


def test_mig_reads_back_from_the_pod_spec():
    """The count from the node line, the partition sentence and the pod spec's resource
    name, with the per-GPU counts from NVIDIA's table above; the mode from the scenario."""
    for seed in SEEDS:
        v = Variant.from_seed("mig-sharing", seed)
        text = v.statement_markdown()
        n = int(re.search(r"A Kubernetes node has (\d+) NVIDIA", text).group(1))
        spec = re.search(r"```yaml\n(.*?)\n```", text, re.S).group(1)
        limits = re.search(r"limits:\n\s+nvidia\.com/mig-(\d+g\.\d+gb): (\d+)", spec)
        profile, per_pod = limits.group(1), int(limits.group(2))
        part = re.search(r"GPUs 0-(\d+) are partitioned|GPU 0 is partitioned", text)
        mig = n if part is None else int(part.group(1) or 0) + 1
        if part is None:
            assert f"all {n} GPUs are partitioned" in text, seed
        assert v.parts["pods"].value == mig * NVIDIA_TABLE[profile] // per_pod, seed
        modes = [m for m, cues in _MODE_WORDS if any(c in text for c in cues)]
        assert modes == [v.parts["mode"].value], seed
