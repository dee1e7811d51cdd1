"""The numa-misbinding drill: one rank bound to the other socket's CPUs. Its outputs read
like the real tools', they agree with each other, the expert path names the rank's GPU
in every seed, nothing else about the GPU is wrong (so no other kind is read), and no
drain, reboot, reset or plain requeue fixes it: the binding is the job's."""

import re

import pytest

from problems.drills import registry
from problems.drills.drill import grade
from problems.drills.evidence import cpu_set, read
from problems.drills.faults import FAULTS
from problems.drills.faults.base import FAULT_KINDS, REMEDIES
from problems.drills.render import affinity
from tests.problems.test_tool_output_tables import read_topo
from tests.problems.tool_output import capture

SLUG = "drill-numa-misbinding"
SOCKET_CPUS = {"0-55,112-167": "0", "56-111,168-223": "1"}  # DGX H100's, vllm issue 13855
APP_ROW = re.compile(r"^(\d+), (00000000:[0-9A-F]{2}:00\.0)$")
TASKSET = re.compile(r"^pid (\d+)'s current affinity list: ([\d,-]+)$")


def _gpu(drill):
    host, index = drill.answer.location.split(":gpu")
    return host, int(index)


def _look(drill, action_id, state=None):
    return drill.action(action_id).run(state or drill.state)[0]


def _topo_gpus(topo: str) -> dict[int, tuple[str, str]]:
    """GPU index -> (CPU Affinity, NUMA Affinity) of `nvidia-smi topo -m`."""
    rows = [line.split() for line in topo.splitlines() if re.match(r"GPU\d+ ", line)]
    assert all(r[-1] == "N/A" for r in rows)
    return {int(r[0][3:]): (r[-3], r[-2]) for r in rows}


def _smi(text: str) -> tuple[dict[int, int], dict[str, int]]:
    """nvidia-smi's GPU rows (bus id -> utilisation %) and Processes (PID -> GPU index)."""
    util = {
        bus: int(u) for bus, u in re.findall(r"(00000000:[0-9A-F]{2}:00\.0) .*\n.*?(\d+)%", text)
    }
    procs = {pid: int(i) for i, pid in re.findall(r"^\|\s+(\d+)\s+N/A\s+N/A\s+(\d+)\s", text, re.M)}
    return util, procs


def _binding(text: str) -> tuple[dict[str, str], dict[str, str]]:
    """(PID -> bus id, PID -> CPU list) of the binding view, every line accounted for."""
    lines = text.splitlines()
    assert lines[0].endswith("nvidia-smi --query-compute-apps=pid,gpu_bus_id --format=csv")
    assert lines[1] == "pid, gpu_bus_id"
    loop = next(k for k, line in enumerate(lines) if "taskset -cp" in line)
    assert lines[loop].endswith("# for p in $(pgrep -x python3); do taskset -cp $p; done")
    apps = [APP_ROW.match(line).groups() for line in lines[2:loop]]
    bound = [TASKSET.match(line).groups() for line in lines[loop + 1 :]]
    return dict(apps), dict(bound)


def _far(smi: str, topo: str, binding: str) -> list[int]:
    """GPU indices whose process runs on none of the CPUs topo names for that GPU."""
    _, procs = _smi(smi)
    _, bound = _binding(binding)
    local = _topo_gpus(topo)
    return sorted(
        procs[pid]
        for pid, cpus in bound.items()
        if not cpu_set(cpus) & cpu_set(local[procs[pid]][0])
    )


def test_topo_reads_like_the_captures_on_every_platform():
    tabs, spaces = read_topo(capture("topo", 1)), read_topo(capture("topo", 2))
    for slug, seed in [(SLUG, s) for s in range(6)] + [
        ("drill-thermal-throttle", s) for s in range(6)
    ]:
        drill = registry.generate(slug, seed)
        for host in drill.state.main_job.nodes:
            text = _look(drill, f"topo@{host}")
            assert text.splitlines()[0] == f"root@{host}:~# nvidia-smi topo -m"
            gen = read_topo(text.split("\n", 1)[1])
            assert (
                gen["names"][-3:]
                == tabs["names"][-3:]
                == ["CPU Affinity", "NUMA Affinity", "GPU NUMA ID"]
            )
            for k, name in enumerate(gen["names"][:-3]):
                assert name == (f"GPU{k}" if k < 8 else f"NIC{k - 8}")
                assert gen["starts"][name] == 8 * (k + 1)
            assert gen["legend"] == spaces["legend"]
            assert gen["cells"] <= {
                "X",
                "SYS",
                "NODE",
                "PXB",
                "NV12",
                "NV18",
                "N/A",
                "0",
                "1",
                *SOCKET_CPUS,
            }
            gpus = _topo_gpus(text)
            assert [gpus[i] for i in range(8)] == [("0-55,112-167", "0")] * 4 + [
                ("56-111,168-223", "1")
            ] * 4
            ibstat = _look(drill, f"ibstat@{host}")
            for k, ca in re.findall(r"^  NIC(\d+): (mlx5_\d+)$", text, re.M):
                assert ca == f"mlx5_{k}" and f"CA '{ca}'" in ibstat
            # the host scontrol shows: 224 CPUs, two sockets of 56 cores
            assert "CPUTot=224" in _look(drill, f"scontrol@{host}")


def test_the_binding_view_follows_nvidia_smi_pids_and_bus_ids():
    for seed in range(10):
        drill = registry.generate(SLUG, seed)
        for host in drill.state.main_job.nodes:
            util, procs = _smi(_look(drill, f"nvidia-smi@{host}"))
            apps, bound = _binding(_look(drill, f"binding@{host}"))
            assert set(apps) == set(bound) == set(procs) and len(procs) == 8
            assert set(apps.values()) == set(util)
            assert all(cpus in SOCKET_CPUS for cpus in bound.values())


@pytest.mark.parametrize("start", range(0, 200, 50))
def test_the_expert_path_names_the_misbound_rank_in_every_seed(start):
    for seed in range(start, start + 50):
        drill = registry.generate(SLUG, seed)
        host, index = _gpu(drill)
        outputs = [out for _, out in drill.replay(drill.expert_path)]
        assert read(drill.alert, outputs, dict(drill.locations)) == (
            drill.answer.fault,
            drill.answer.location,
        )
        assert _far(*outputs) == [index], seed
        for other in drill.state.main_job.nodes:  # one rank, on one node, is misbound
            if other != host:
                looks = [_look(drill, f"{k}@{other}") for k in ("nvidia-smi", "topo", "binding")]
                assert _far(*looks) == [], seed


def test_the_straggler_is_half_busy_and_nothing_else_is_wrong():
    """What sets it apart from thermal, NVLink, InfiniBand and power-cap stragglers: the
    GPU is cool, unthrottled, its links and HCAs healthy; only its utilisation is low."""
    for seed in range(12):
        drill = registry.generate(SLUG, seed)
        host, index = _gpu(drill)
        gpu = drill.state.node(host).gpus[index]
        util, _ = _smi(_look(drill, f"nvidia-smi@{host}"))
        peers = [u for bus, u in util.items() if bus != gpu.bus_id]
        assert util[gpu.bus_id] <= 60 < 88 <= min(peers)
        q = _look(drill, f"smi-q@{host}:{index}")
        assert not re.search(r"(Slowdown|Power Cap)\s+: Active", q)
        assert re.search(r"Clocks\n.*\n\s+SM\s+: (\d+) MHz", q).group(1) != "345"
        assert int(re.search(r"GPU Current Temp\s+: (\d+) C", q).group(1)) < 60
        assert "Xid" not in _look(drill, f"dmesg@{host}")
        assert "<inactive>" not in _look(drill, f"nvlink@{host}")
        assert len(set(re.findall(r"Rate: (\d+)", _look(drill, f"ibstat@{host}")))) == 1
        steps = re.findall(
            r"\| ([\d.]+) s/step$", _look(drill, f"job-log@{drill.state.main_job.job_id}"), re.M
        )
        assert float(steps[-1]) > 1.25 * float(steps[0])
        # every look but the binding view: no fault can be read, numa-misbinding included
        looks = [
            a.id for a in drill.actions if not a.disruptive and not a.id.startswith("binding@")
        ]
        outputs = [out for _, out in drill.replay(looks)]
        assert read(drill.alert, outputs, dict(drill.locations)) == ("unknown", "")


@pytest.mark.parametrize("slug", [s for s in registry.slugs() if s != SLUG])
def test_no_other_kind_reads_as_a_misbinding_even_beside_every_binding_view(slug):
    for seed in range(15):
        drill = registry.generate(slug, seed)
        extra = [a.id for a in drill.actions if a.id.split("@")[0] in ("topo", "binding")]
        extra += [f"nvidia-smi@{h}" for h in drill.state.main_job.nodes if extra]
        outputs = [out for _, out in drill.replay(drill.expert_path)]
        outputs += [_look(drill, a) for a in extra]  # each on the initial state
        got = read(drill.alert, outputs, dict(drill.locations))
        assert got == (drill.answer.fault, drill.answer.location), (slug, seed)


def _misbound_now(state) -> list[tuple[str, int]]:
    """Every (node, GPU) of the running job whose rank the binding view shows far."""
    job = state.main_job
    if job.state != "R":
        return []
    far = []
    for host in job.nodes:
        node = state.node(host)
        apps, bound = _binding(affinity.binding(state, node))
        topo = _topo_gpus(affinity.topo(state, node))
        index_of = {g.bus_id: k for k, g in enumerate(g for g in node.gpus if g.on_bus)}
        far += [
            (host, index_of[apps[pid]])
            for pid, cpus in bound.items()
            if not cpu_set(cpus) & cpu_set(topo[index_of[apps[pid]]][0])
        ]
    return far


def test_no_drain_reboot_reset_or_plain_requeue_fixes_it():
    moved = 0
    for seed in range(20):
        drill = registry.generate(SLUG, seed)
        host, index = _gpu(drill)
        job = drill.state.main_job
        position = job.nodes.index(host)
        assert _misbound_now(drill.state) == [(host, index)]
        for taken in (
            [f"requeue@{job.job_id}"],
            [f"drain@{host}", f"reset-gpu@{host}:{index}"],
            [f"reboot@{host}"],
            [f"drain@{host}", f"reboot@{host}", f"resume@{host}", f"requeue@{job.job_id}"],
        ):
            state = drill.state
            for action_id in taken:
                _, state = drill.action(action_id).run(state)
            after = state.main_job
            if after.state != "R":  # no spare: the job waits, nothing runs to be slow
                assert after.state == "PD" and taken[0] != f"requeue@{job.job_id}"
                continue
            now = after.nodes[position]
            assert _misbound_now(state) == [(now, index)], (seed, taken)
            moved += now != host
            gpu = state.node(now).gpus[index]
            peers = [g.util for g in state.node(now).gpus if g.index != index]
            assert gpu.util <= 60 < 88 <= min(peers), (seed, taken)
    assert moved  # some seeds had a spare, and the misbound rank went with the job


def test_the_remedy_is_a_corrected_binding_and_the_expert_path_scores_ten():
    assert "cpu-bind" in REMEDIES["fix-binding"] and "numactl" in REMEDIES["fix-binding"]
    drill = registry.generate(SLUG, 4)
    assert drill.answer.remedy == "fix-binding" and drill.handling == frozenset()
    g = grade(drill, drill.expert_path, (drill.answer.fault, drill.answer.location), "fix-binding")
    assert g.score == 10 and drill.expert_minutes == 3
    host, _ = _gpu(drill)
    g = grade(
        drill,
        [*drill.expert_path, f"reboot@{host}"],
        (drill.answer.fault, drill.answer.location),
        "reboot-node",
    )
    assert g.unneeded == (f"reboot@{host}",) and g.points["remedy"] == 0


def test_every_fault_kind_issue_39_names_has_a_drill():
    assert set(FAULTS) == set(FAULT_KINDS) and len(registry.slugs()) == 11
