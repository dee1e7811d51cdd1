"""Hand-checked answers, named slips and refused parameters for the incidents templates
(xid-triage, vllm-metrics-diagnosis, deployment-failure-class), and for each scenario a
small reader, written here and independent of the templates' code, that parses the tool
output back out of the statement and checks over 200 seeds that what it finds is the
graded answer."""

from __future__ import annotations

import re

import pytest

from hardware_db import catalog
from problems.engine import registry
from problems.engine.variants import Variant
from problems.templates.incidents._vllm import DEPLOYMENTS
from tests.problems.template_harness import slips, solve

SEEDS = range(200)
FENCE = re.compile(r"```text\n(.*?)\n```", re.S)


def blocks(slug: str, seed: int) -> tuple[Variant, list[str]]:
    v = Variant.from_seed(slug, seed)
    return v, FENCE.findall(v.statement_markdown())


def refused(slug: str, params: dict) -> bool:
    try:
        registry.get(slug).parse_params(params)
    except ValueError:
        return True
    return False


# --------------------------------------------------------------------------- xid-triage

# What NVIDIA's Xid catalog and debug guidelines say, written out again here.
XID_TRUTH = {
    13: ("graphics-exception", "restart-app"),
    31: ("mmu-fault", "restart-app"),
    48: ("double-bit-ecc", "reset-gpu"),
    63: ("row-remap-pending", "reset-at-window"),
    64: ("row-remap-failed", "rma-gpu"),
    74: ("nvlink-error", "check-nvlink"),
    145: ("nvlink-error", "check-nvlink"),  # Blackwell (B200): NVLINK_RLW_ERROR
    79: ("off-the-bus", "reboot-node"),
    94: ("contained-ecc", "restart-app"),
    95: ("uncontained-ecc", "reset-gpu"),
}
XID_LINE = re.compile(r"NVRM: Xid \(PCI:0000:([0-9a-f]{2}):00\): (\d+), ")
CSV_ROW = re.compile(r"^(\d+), [^,]+, 00000000:([0-9A-F]{2}):00\.0$", re.M)


def test_xid_triage_dgx_a100_row_remap():
    # DGX A100 buses in index order 07 0F 47 4E 87 90 B7 BD: GPU 3 is bus 4e. Xid 63 is a
    # recorded row remap ("reset gpu to activate"); containment keeps the bad row from new
    # work meanwhile, so the reset waits until the GPU's current work ends.
    params = {"platform": "dgx-a100", "xid": 63, "gpu": 3, "log_seed": 7}
    parts = solve("xid-triage", params)
    assert parts["gpu"].value == 3
    assert parts["event"].value == "row-remap-pending"
    assert parts["action"].value == "reset-at-window"
    text = Variant.from_params("xid-triage", params).statement_markdown()
    assert "NVRM: Xid (PCI:0000:4e:00): 63, " in text and "3, NVIDIA A100-SXM4-80GB" in text
    named = slips("xid-triage", params)
    assert named[("counted-from-one", "gpu")] == 4
    assert named[("remap-recorded-vs-failed", "event")] == "row-remap-failed"
    assert named[("pending-remap-is-not-urgent", "action")] == "reset-gpu"
    assert named[("remap-is-not-failure", "action")] == "rma-gpu"


def test_xid_triage_contained_and_off_the_bus():
    # 94 contained: only the killed job restarts; 95 would be the reverse slip.
    p94 = {"platform": "hgx-h100-a", "xid": 94, "gpu": 7, "log_seed": 1}
    assert solve("xid-triage", p94)["action"].value == "restart-app"
    named = slips("xid-triage", p94)
    assert named[("contained-vs-uncontained", "event")] == "uncontained-ecc"
    assert named[("contained-treated-as-uncontained", "action")] == "reset-gpu"
    assert ("counted-from-one", "gpu") not in named  # there is no GPU 8
    # 79: nvidia-smi -r cannot reach a GPU that is off the bus.
    p79 = {"platform": "hgx-h100-b", "xid": 79, "gpu": 0, "log_seed": 2}
    assert solve("xid-triage", p79)["action"].value == "reboot-node"
    assert slips("xid-triage", p79)[("reset-unreachable-gpu", "action")] == "reset-gpu"


@pytest.mark.parametrize("xid", [13, 31])
def test_xid_13_and_31_restart_the_application_first_then_debug_it(xid):
    """NVIDIA's Xid catalog gives RESTART_APP as the immediate action for both (the GPU
    needs nothing); debugging the application is the investigatory follow-up, so it is
    the second step, and answering it first is a named slip."""
    params = {"platform": "hgx-h100-a", "xid": xid, "gpu": 2, "log_seed": 5}
    assert solve("xid-triage", params)["action"].value == "restart-app"
    named = slips("xid-triage", params)
    assert named[("debug-before-restart", "action")] == "debug-app"
    assert named[("app-fault-blamed-on-gpu", "action")] in {"reset-gpu", "rma-gpu"}
    assert ("restart-without-fix", "action") not in named
    solution = Variant.from_params("xid-triage", params).solution_markdown()
    assert "compute-sanitizer" in solution and "second" in solution


def test_xid_triage_refuses_bad_params():
    good = {"platform": "dgx-a100", "xid": 63, "gpu": 3, "log_seed": 7}
    for bad in ({"xid": 43}, {"xid": 92}, {"gpu": 8}, {"gpu": -1}, {"platform": "dgx-h100"}):
        assert refused("xid-triage", {**good, **bad}), bad


def read_xids(log: str) -> tuple[str, list[int], dict[str, int]]:
    """(the faulty GPU's bus, its Xid codes in order, {peer bus: its Xid 45 count})."""
    hits = XID_LINE.findall(log)
    faults = [(bus, int(code)) for bus, code in hits if code != "45"]
    buses = {bus for bus, _ in faults}
    assert len(buses) == 1, faults  # exactly one GPU raised the fault
    (bus,) = buses
    peers: dict[str, int] = {}
    for b, code in hits:
        if code == "45":
            peers[b] = peers.get(b, 0) + 1
    return bus, [code for _, code in faults], peers


@pytest.mark.parametrize("seed", SEEDS)
def test_xid_triage_reader_finds_the_graded_fault(seed):
    v, (log, inventory) = blocks("xid-triage", seed)
    bus, codes, _ = read_xids(log)
    index = {b.lower(): int(i) for i, b in CSV_ROW.findall(inventory)}
    assert len(index) == 8
    assert re.search(rf"NVRM: GPU at PCI:0000:{bus}:00: GPU-[0-9a-f-]{{36}}$", log, re.M)
    assert v.parts["gpu"].value == index[bus]
    assert (v.parts["event"].value, v.parts["action"].value) == XID_TRUTH[codes[0]]


def test_xid_48_arrives_as_the_containment_sequence_never_bare():
    # under error containment (A100, H100) an HBM DBE is followed by the row remap
    # recorded for it (63) and the containment verdict (94 or 95)
    seen = 0
    for seed in range(400):
        v, (log, _) = blocks("xid-triage", seed)
        _, codes, _ = read_xids(log)
        if 48 in codes:
            seen += 1
            assert codes[:2] == [48, 63] and codes[2] in (94, 95), (seed, codes)
            if v.params.xid == 48:  # the DBE drawn here is uncontained: reset, as keyed
                assert codes[2] == 95 and v.parts["action"].value == "reset-gpu"
    assert seen > 20


def test_xid_45_on_every_peer_when_the_job_dies():
    for seed in range(200):
        v, (log, inventory) = blocks("xid-triage", seed)
        bus, _, peers = read_xids(log)
        buses = {b.lower() for _, b in CSV_ROW.findall(inventory)}
        if v.params.xid == 63:  # a health sweep found it: nothing died
            assert peers == {}, seed
            continue
        assert peers == {b: 1 for b in buses - {bus}}, seed
        lines = log.splitlines()
        for k, line in enumerate(lines):  # each GPU's first Xid follows its GPU-at-PCI pair
            if "): 45, " in line:
                b = XID_LINE.search(line).group(1)
                assert f"NVRM: GPU at PCI:0000:{b}:00: GPU-" in lines[k - 2], seed
                assert "NVRM: GPU Board Serial Number: " in lines[k - 1], seed


def test_xid_peer_cleanup_is_a_named_slip():
    params = {"platform": "hgx-h100-a", "xid": 94, "gpu": 2, "log_seed": 5}
    named = slips("xid-triage", params)
    assert named[("counted-from-one", "gpu")] == 3
    v = Variant.from_params("xid-triage", params)
    assert v.grade("gpu", "5").misconception == "peer-cleanup-blamed"
    assert ("peer-cleanup-blamed", "gpu") in named


# ---------------------------------------------------------------- vllm-metrics-diagnosis

SAMPLE = re.compile(r"^vllm:(\w+)\{([^}]*)\} (\S+)$", re.M)
BATCH_CAP = {
    "deployment": "llama-3.1-8b-h100",
    "max_num_seqs": 256,
    "interval_s": 30,
    "running": [256, 256],
    "waiting": [12, 40],
    "blocks_used": [15000, 15500],
    "preemptions": [37, 37],
    "prompt_tokens": [1_000_000, 1_450_000],
    "generation_tokens": [500_000, 689_000],
}


def test_vllm_blocks_for_llama_8b_on_h100():
    # 79.6474609375 GiB usable x 0.9 = 76,968,728,985.6 B; minus BF16 weights
    # 2 x 8,030,261,248 and 2 GiB of activations = 58,760,722,841.6 B; one 16-token block
    # of K and V is 16 x 131,072 B = 2,097,152 B: 28,019.3 -> 28,019 blocks.
    text = Variant.from_params("vllm-metrics-diagnosis", BATCH_CAP).statement_markdown()
    assert 'num_gpu_blocks="28019"' in text
    assert 'vllm:prompt_tokens_total{model_name="meta-llama/Llama-3.1-8B-Instruct"} 1e+06' in text


def test_vllm_batch_cap_reached():
    # 256 running = --max-num-seqs, queue 12 -> 40, cache 15,500 / 28,019 = 55% and no new
    # preemptions: the sequence cap. Rate (689,000 - 500,000) / 30 = 6,300 tok/s.
    parts = solve("vllm-metrics-diagnosis", BATCH_CAP)
    assert parts["diagnosis"].value == "batch-cap-reached"
    assert parts["gen_rate"].value == pytest.approx(6300.0)
    assert parts["gen_rate"].unit == "tok/s"
    assert parts["kv_blocks"].value == 15500
    named = slips("vllm-metrics-diagnosis", BATCH_CAP)
    assert named[("waiting-means-kv-full", "diagnosis")] == "kv-cache-full"
    assert named[("counter-read-as-rate", "gen_rate")] == pytest.approx(689_000)
    assert named[("total-not-delta", "gen_rate")] == pytest.approx(689_000 / 30)
    assert named[("delta-not-divided", "gen_rate")] == pytest.approx(189_000)
    assert named[("prompt-tokens-counted", "gen_rate")] == pytest.approx(639_000 / 30)
    assert named[("usage-read-as-percent", "kv_blocks")] == 155
    assert named[("blocks-vs-tokens", "kv_blocks")] == 248_000


def test_vllm_kv_cache_full():
    # 27,900 of 28,019 blocks (99.6%), 120 -> 185 preemptions, queue 9 -> 30, 40 of 256
    # running: memory runs out first. Rate 36,000 / 15 = 2,400 tok/s.
    params = {
        **BATCH_CAP,
        "interval_s": 15,
        "running": [41, 40],
        "waiting": [9, 30],
        "blocks_used": [27_800, 27_900],
        "preemptions": [120, 185],
        "generation_tokens": [2_000_000, 2_036_000],
    }
    parts = solve("vllm-metrics-diagnosis", params)
    assert parts["diagnosis"].value == "kv-cache-full"
    assert parts["gen_rate"].value == pytest.approx(2400.0)
    named = slips("vllm-metrics-diagnosis", params)
    assert named[("usage-read-as-percent", "diagnosis")] == "batch-cap-reached"


def test_vllm_healthy_with_old_preemptions():
    params = {**BATCH_CAP, "running": [80, 82], "waiting": [0, 0], "blocks_used": [9000, 9100]}
    assert solve("vllm-metrics-diagnosis", params)["diagnosis"].value == "healthy"
    named = slips("vllm-metrics-diagnosis", params)
    assert named[("counter-not-rate", "diagnosis")] == "kv-cache-full"


def test_vllm_refuses_inconsistent_scrapes():
    bad = [
        {"generation_tokens": [689_000, 500_000]},  # a counter went down
        {"preemptions": [40, 37]},
        {"running": [300, 300]},  # above max_num_seqs
        {"blocks_used": [15_000, 30_000]},  # more blocks than exist
        {"running": [200, 200]},  # queue grows below the cap with free blocks: no diagnosis
        {"generation_tokens": [500_000, 500_000]},
    ]
    for change in bad:
        assert refused("vllm-metrics-diagnosis", {**BATCH_CAP, **change}), change


@pytest.mark.parametrize("seed", SEEDS)
def test_vllm_reader_finds_the_graded_state(seed):
    v, scrapes = blocks("vllm-metrics-diagnosis", seed)
    assert len(scrapes) == 2
    text = v.statement_markdown()
    cap = int(re.search(r"--max-num-seqs (\d+)", text).group(1))
    interval = int(re.search(r"taken (\d+) s apart", text).group(1))
    a, b = (
        {name: (labels, float(value)) for name, labels, value in SAMPLE.findall(s)} for s in scrapes
    )
    n = int(re.search(r'num_gpu_blocks="(\d+)"', a["cache_config_info"][0]).group(1))

    def val(s, name):
        return s[name][1]

    preempted = val(b, "num_preemptions_total") > val(a, "num_preemptions_total")
    usage = val(b, "gpu_cache_usage_perc")
    if val(a, "num_requests_waiting") == val(b, "num_requests_waiting") == 0:
        state = "healthy"
    elif preempted and usage >= 0.95:
        state = "kv-cache-full"
    elif not preempted and val(b, "num_requests_running") == cap and usage < 0.9:
        state = "batch-cap-reached"
    else:
        state = None
    assert v.parts["diagnosis"].value == state
    rate = (val(b, "generation_tokens_total") - val(a, "generation_tokens_total")) / interval
    assert v.parts["gen_rate"].value == pytest.approx(rate, rel=1e-9)
    assert v.parts["kv_blocks"].value == round(usage * n)


# -------------------------------------------------------------- deployment-failure-class

DEPLOY = {"model": "llama-3.1-70b", "accelerator": "h100-sxm", "gpus": 4, "detail_seed": 3}
EXPECTED = {
    "insufficient-gpu": ("allocation", "scheduler-check", "pending-as-startup"),
    "quota-exceeded": ("allocation", "scheduler-check", "pending-as-startup"),
    "no-kernel-image": ("compatibility", "compat-check", "cuda-error-as-device-fault"),
    "driver-too-old": ("compatibility", "compat-check", "cuda-error-as-device-fault"),
    "liveness-kills-load": ("startup", "startup-probe", "probe-kill-as-crash"),
    "ecc-uncorrectable": ("device-health", "health-watch", "device-error-as-software"),
    "fell-off-bus": ("device-health", "health-watch", "device-error-as-software"),
}


@pytest.mark.parametrize("symptom", sorted(EXPECTED))
def test_deployment_classes_for_a_70b_on_four_h100(symptom):
    # Llama 3.1 70B in BF16 is 141 GB: 35.3 GB per GPU on 4 x H100 (80 GB) fits, and on 2
    # (70.6 GB, over 80% of 79.6 GiB) it would not, so four is the sensible size.
    params = {**DEPLOY, "symptom": symptom}
    parts = solve("deployment-failure-class", params)
    cls, signal, code = EXPECTED[symptom]
    assert (parts["failure_class"].value, parts["signal"].value) == (cls, signal)
    named = slips("deployment-failure-class", params)
    assert code in {c for c, part in named if part == "failure_class"}
    assert len({c for c, _ in named}) == 2


def test_deployment_oom_needs_weights_that_do_not_fit():
    # 70B on one H100: 141 GB of weights against 85.5 GB: an OOM at load, class startup.
    oom = {**DEPLOY, "gpus": 1, "symptom": "oom-weight-load"}
    parts = solve("deployment-failure-class", oom)
    assert parts["failure_class"].value == "startup"
    assert slips("deployment-failure-class", oom)[("oom-as-allocation", "failure_class")] == (
        "allocation"
    )
    assert refused("deployment-failure-class", {**DEPLOY, "symptom": "oom-weight-load"})
    assert refused("deployment-failure-class", {**DEPLOY, "gpus": 1, "symptom": "fell-off-bus"})
    assert refused("deployment-failure-class", {**DEPLOY, "gpus": 8, "symptom": "fell-off-bus"})
    assert refused("deployment-failure-class", {**DEPLOY, "symptom": "disk-full"})


def test_deployment_oom_at_load_is_caught_by_a_sizing_check_not_a_probe():
    """Issue 34: an OOM while loading weights fails however long a startup probe waits;
    what catches it before users do is checking the weights against the GPUs requested."""
    oom = {**DEPLOY, "gpus": 1, "symptom": "oom-weight-load"}
    assert solve("deployment-failure-class", oom)["signal"].value == "sizing-check"
    named = slips("deployment-failure-class", oom)
    assert named[("probe-for-oom", "signal")] == "startup-probe"
    assert named[("scheduler-check-for-oom", "signal")] == "scheduler-check"
    probe = {**DEPLOY, "symptom": "liveness-kills-load"}
    assert solve("deployment-failure-class", probe)["signal"].value == "startup-probe"
    statement = Variant.from_params("deployment-failure-class", oom).statement_markdown()
    assert "`sizing-check`" in statement


READ = (
    (re.compile(r"Insufficient nvidia\.com/gpu|exceeded quota"), "allocation", "scheduler-check"),
    (
        re.compile(r"no kernel image|driver on your system is too old"),
        "compatibility",
        "compat-check",
    ),
    (re.compile(r"OutOfMemoryError"), "startup", "sizing-check"),
    (re.compile(r"failed liveness probe"), "startup", "startup-probe"),
    (re.compile(r"uncorrectable ECC|fallen off the bus"), "device-health", "health-watch"),
)


@pytest.mark.parametrize("seed", SEEDS)
def test_deployment_reader_finds_the_graded_class(seed):
    v, (evidence,) = blocks("deployment-failure-class", seed)
    hits = [(cls, sig) for pattern, cls, sig in READ if pattern.search(evidence)]
    assert len(hits) == 1, evidence
    assert (v.parts["failure_class"].value, v.parts["signal"].value) == hits[0]
    if "OutOfMemoryError" in evidence:  # only when the weights cannot fit
        p = v.params
        share = catalog.model(p.model).total_params * 2 / p.gpus
        assert share > catalog.accelerator(p.accelerator).usable_gib * 2**30


def test_vllm_cpu_blocks_follow_the_swap_space_and_the_model():
    # V0 reports num_cpu_blocks = swap_space_bytes // one block's K and V on one GPU
    # (16 tokens x layers x KV heads x head dim x 2 for K and V x 2 bytes / TP)
    seen = {}
    for seed in range(120):
        v, texts = blocks("vllm-metrics-diagnosis", seed)
        labels = dict(re.findall(r'(\w+)="([^"]*)"', texts[0].split("cache_config_info{")[1]))
        slug, _, _, tp = DEPLOYMENTS[v.params.deployment]
        m = catalog.model(slug)
        block = 16 * m.n_layers * m.n_kv_heads * m.head_dim * 2 * 2 / tp
        expected = int(labels["swap_space_bytes"]) // int(block)
        assert int(labels["num_cpu_blocks"]) == expected, (seed, v.params.deployment)
        seen[v.params.deployment] = expected
    assert len(set(seen.values())) >= 3, seen
