"""Drills are deterministic per seed, every action prints something, the ids agree across
tools, and the expert path's outputs alone name the planted fault (issue 39)."""

import re

import pytest

from problems.drills import registry
from problems.drills.catalogue import catalogue
from problems.drills.check import GOOD_UUID, RANK, UUID
from problems.drills.cluster import draw
from problems.drills.evidence import XID, read
from problems.drills.export import export
from problems.drills.faults.base import locations

SEEDS = range(50)


@pytest.fixture(scope="module")
def exports():
    return {
        (slug, seed): export(registry.generate(slug, seed))
        for slug in registry.slugs()
        for seed in SEEDS
    }


def test_five_drills_one_per_fault_kind():
    drills = [registry.generate(slug, 0) for slug in registry.slugs()]
    assert len({d.answer.fault for d in drills}) == len(drills) >= 5


@pytest.mark.parametrize("slug", registry.slugs())
def test_same_seed_same_drill_other_seed_other_drill(slug, exports):
    assert export(registry.generate(slug, 7)) == exports[(slug, 7)]
    assert exports[(slug, 7)] != exports[(slug, 8)]


def test_unknown_slug_is_an_error():
    with pytest.raises(ValueError, match="no drill"):
        registry.generate("drill-nope", 1)


def test_every_output_non_empty_and_uuids_well_formed(exports):
    for (slug, seed), data in exports.items():
        assert data["alert"].startswith("[FIRING:1] ")
        for a in data["actions"]:
            body = a["output"].split("\n", 1)
            assert len(body) == 2 and body[1].strip(), (slug, seed, a["id"])
            for uuid in UUID.findall(a["output"]):
                assert GOOD_UUID.match(uuid), (slug, seed, a["id"], uuid)


def test_xid_bus_ids_are_gpus_of_that_nodes_nvidia_smi(exports):
    checked = 0
    for (slug, seed), data in exports.items():
        outputs = {a["id"]: a["output"] for a in data["actions"]}
        for action_id, out in outputs.items():
            if not action_id.startswith("dmesg@"):
                continue
            smi = outputs["nvidia-smi@" + action_id.split("@")[1]].upper()
            for bus, _ in XID.findall(out):
                checked += 1
                assert f"0000:{bus.upper()}:00.0" in smi, (slug, seed, action_id, bus)
    assert checked >= 100  # the off-bus and ECC drills print Xids in every seed


def test_uuid_in_kernel_log_is_the_one_nvidia_smi_q_shows(exports):
    for slug in ("drill-uncorrectable-ecc",):
        for seed in SEEDS:
            data = exports[(slug, seed)]
            outputs = {a["id"]: a["output"] for a in data["actions"]}
            host, gpu = data["answer"]["location"].split(":gpu")
            uuid = UUID.search(outputs[f"dmesg@{host}"]).group(0)
            assert uuid in outputs[f"smi-q@{host}:{gpu}"]


def test_expert_path_outputs_name_the_fault_and_location(exports):
    for (slug, seed), data in exports.items():
        drill = registry.generate(slug, seed)
        outputs = [out for _, out in drill.replay(drill.expert_path)]
        got = read(data["alert"], outputs, dict(drill.locations))
        want = (data["answer"]["fault"], data["answer"]["location"])
        assert got == want, (slug, seed)


def test_healthy_noise_is_present_and_not_the_answer(exports):
    for (slug, seed), data in exports.items():
        outputs = {a["id"]: a["output"] for a in data["actions"]}
        if "sinfo-R" in outputs:
            assert len(outputs["sinfo-R"].splitlines()) >= 3  # header plus the old drain
        else:  # Kubernetes: a node cordoned for its own maintenance, not the answer
            (cordoned,) = re.findall(
                r"^(\S+) +Ready,SchedulingDisabled", outputs["kubectl-get-nodes"], re.M
            )
            assert cordoned != data["answer"]["location"]
        drill = registry.generate(slug, seed)
        corrected = [(n.hostname, g.index) for n in drill.state.nodes for g in n.gpus if g.ecc_corr]
        assert corrected and all(f"{h}:gpu{i}" != data["answer"]["location"] for h, i in corrected)


@pytest.mark.parametrize("seed", range(0, 40, 4))
def test_a_healthy_cluster_reads_as_no_fault_noise_included(seed):
    """Every look on a cluster with only its noise (an old drain, a few correctable ECC
    errors): the reader finds nothing, so the noise is not evidence of a fault."""
    state = draw(seed, 8)
    looks = [a for a in catalogue(state) if not a.disruptive]
    outputs = [a.run(state)[0] for a in looks]
    assert read("", outputs, locations(state)) == ("unknown", "")
    assert any("DRAM Correctable" in o and re.search(r"Correctable\s+: [1-9]", o) for o in outputs)


def test_ids_one_output_names_exist_in_the_others(exports):
    """nccl-tests' rank lines name GPUs that node's nvidia-smi lists; perfquery's HCAs are
    ibstat's; the job's nodes in the pair sweep are nodes Slurm knows."""
    for slug in ("drill-ib-link-degraded", "drill-thermal-throttle"):
        for seed in range(0, 50, 5):
            outputs = {a["id"]: a["output"] for a in exports[(slug, seed)]["actions"]}
            ranks = RANK.findall(outputs["nccl-pairs"])
            assert ranks
            for host, bus in ranks:
                assert f"00000000:{bus.upper()}:00.0" in outputs[f"nvidia-smi@{host}"]
                assert f"scontrol@{host}" in outputs
            for action_id, out in outputs.items():
                if action_id.startswith("perfquery@"):
                    ibstat = outputs["ibstat@" + action_id.split("@")[1]]
                    for ca in re.findall(r"perfquery -C (mlx5_\d+)", out):
                        assert f"CA '{ca}'" in ibstat


def test_healthy_vllm_replicas_read_as_no_fault():
    drill = registry.generate("drill-kv-cache-exhaustion", 5)
    hot = drill.answer.location.removeprefix("pod:")
    looks = [a.id for a in drill.actions if a.id.startswith("vllm-metrics@")]
    assert f"vllm-metrics@{hot}" in looks and len(looks) >= 8
    calm = [out for a, out in drill.replay([x for x in looks if not x.endswith(hot)])]
    assert read(drill.alert, calm, dict(drill.locations)) == ("unknown", "")
    assert all(re.search(r"num_requests_waiting\{.*\} 0\.0$", o, re.M) for o in calm)


def test_dcgmi_diag_on_a_node_with_a_lost_gpu_says_dcgm_cannot_run(exports):
    """DCGM's own refusal (the default group, DCGM_ST_GPU_IS_LOST), on the off-bus node
    only; it names no GPU, so nvidia-smi and the kernel log still have to."""
    for seed in SEEDS:
        d = exports[("drill-gpu-off-bus", seed)]
        host = d["answer"]["location"].split(":")[0]
        diags = {a["id"]: a["output"] for a in d["actions"] if a["id"].startswith("dcgmi-diag@")}
        lost = diags.pop(f"dcgmi-diag@{host}")
        assert lost.splitlines()[1] == (
            "Error: Unable to complete diagnostic for group 2147483647. Return: (-18) GPU is lost."
        )
        assert not [o for o in diags.values() if "GPU is lost" in o]
