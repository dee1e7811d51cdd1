"""Hand-checked answers, named slips and output readers for the software-stack templates
(cuda-driver-compat, stack-layer-error, wavefront-width, cuda-hip-terms).

The readers below parse the generated statements with their own regexes and rules (not
the templates' code) and check, over 200 seeds, that what they find is the graded answer.
"""

from __future__ import annotations

import re

import pytest

from problems.engine import registry
from problems.engine.variants import Variant
from tests.problems.template_harness import slips, solve

SEEDS = range(200)


def _block(text: str) -> str:
    """The first fenced block of a statement (tool output or code)."""
    m = re.search(r"```(?:text|cpp)\n(.*?)\n```", text, re.S)
    assert m, text
    return m.group(1)


# --------------------------------------------------------------------- cuda-driver-compat


def test_compat_minor_version_on_h100():
    # nvidia-smi 535.161.08 reports CUDA 12.2; the wheel is cu124. 12.2 < 12.4, same major,
    # 535 >= 525.60.13 -> minor-version. CUDA 12.4 GA needs >= 550.54.14 -> R550.
    params = {"gpu": "h100", "driver": "535.161.08", "torch": "2.6.0", "cuda": "12.4"}
    parts = solve("cuda-driver-compat", params)
    assert parts["runs"].value == "minor-version"
    assert parts["branch"].value == "R550"
    named = slips("cuda-driver-compat", params)
    assert named[("no-minor-version-compat", "runs")] == "no"
    assert named[("major-only-compared", "runs")] == "native"
    assert named[("mvc-floor", "branch")] == "R525"
    assert named[("installed-branch", "branch")] == "R535"


def test_compat_cuda12_wheel_on_r470_does_not_run():
    # 470.82.01 reports CUDA 11.4; a cu121 wheel is CUDA 12 -> no (12.x needs >= 525.60.13).
    # CUDA 12.1 GA needs >= 530.30.02 -> R530.
    params = {"gpu": "a100", "driver": "470.82.01", "torch": "2.5.1", "cuda": "12.1"}
    parts = solve("cuda-driver-compat", params)
    assert (parts["runs"].value, parts["branch"].value) == ("no", "R530")
    named = slips("cuda-driver-compat", params)
    assert named[("compat-across-majors", "runs")] == "minor-version"
    assert named[("wheel-bundles-driver", "runs")] == "native"
    assert named[("installed-branch", "branch")] == "R470"


def test_compat_cu118_on_r470_is_minor_version():
    # 11.4 < 11.8, both 11.x, 470 >= 450.80.02 -> minor-version; 11.8 GA >= 520.61.05 -> R520;
    # the 11.x floor is R450.
    params = {"gpu": "a100", "driver": "470.82.01", "torch": "2.6.0", "cuda": "11.8"}
    parts = solve("cuda-driver-compat", params)
    assert (parts["runs"].value, parts["branch"].value) == ("minor-version", "R520")
    assert slips("cuda-driver-compat", params)[("mvc-floor", "branch")] == "R450"


def test_compat_newer_driver_runs_older_build_natively():
    # 580.65.06 reports CUDA 13.0 >= 12.9 -> native; 12.9 GA >= 575.51.03 -> R575.
    params = {"gpu": "b200", "driver": "580.65.06", "torch": "2.8.0", "cuda": "12.9"}
    parts = solve("cuda-driver-compat", params)
    assert (parts["runs"].value, parts["branch"].value) == ("native", "R575")
    named = slips("cuda-driver-compat", params)
    assert named[("exact-match-required", "runs")] == "no"
    assert named[("compat-direction", "runs")] == "minor-version"
    assert named[("installed-branch", "branch")] == "R580"


@pytest.mark.parametrize(
    "bad",
    [
        {"gpu": "b200", "driver": "580.65.06", "torch": "2.6.0", "cuda": "12.6"},  # no sm_100
        {"gpu": "h100", "driver": "550.90.07", "torch": "2.8.0", "cuda": "11.8"},  # no wheel
        {"gpu": "h100", "driver": "470.82.01", "torch": "2.6.0", "cuda": "11.8"},  # too old
    ],
)
def test_compat_refuses_unreal_combinations(bad):
    with pytest.raises(ValueError):
        registry.get("cuda-driver-compat").parse_params(bad)


def _read_compat(text: str) -> tuple[str, str]:
    """Verdict and branch from the statement alone: banner, wheel tag and the quoted table."""
    banner = re.search(r"Driver Version: (\d+)\.\S+\s+CUDA Version: (\d+)\.(\d+)", text)
    wheel = re.search(r"PyTorch `[\d.]+\+cu(\d\d)(\d)`", text)
    assert banner and wheel, text
    have = (int(banner.group(2)), int(banner.group(3)))
    need = (int(wheel.group(1)), int(wheel.group(2)))
    branch = int(banner.group(1))
    floors = dict(re.findall(r"CUDA (\d+)\.x builds? (?:run )?on drivers >= (\d+)\.", text))
    table = dict(re.findall(r"\| CUDA (\d+\.\d+) GA \| >= (\d+)\.", text))
    if have >= need:
        runs = "native"
    elif have[0] == need[0] and branch >= int(floors[str(need[0])]):
        runs = "minor-version"
    else:
        runs = "no"
    return runs, "R" + table[f"{need[0]}.{need[1]}"]


def test_compat_reader_agrees_with_the_graded_answer():
    seen = set()
    for seed in SEEDS:
        v = Variant.from_seed("cuda-driver-compat", seed)
        runs, branch = _read_compat(v.statement_markdown())
        assert (runs, branch) == (v.parts["runs"].value, v.parts["branch"].value), seed
        seen.add(runs)
    assert seen == {"native", "minor-version", "no"}


def test_compat_banner_matches_the_published_layouts():
    widths = set()
    for seed in SEEDS:
        out = _block(Variant.from_seed("cuda-driver-compat", seed).statement_markdown())
        lines = [line for line in out.splitlines()[2:] if line.strip()]  # prompt, date
        assert len({len(line) for line in lines}) == 1, seed
        widths.add(len(lines[0]))
    assert widths == {79, 89, 91}  # R525 and older, R530-R545, R550 and later


# ---------------------------------------------------------------------- stack-layer-error

_SIGNS = [
    (
        r"NVIDIA driver on your system is too old \(found version (\d+)\)",
        "driver",
        "upgrade-driver",
    ),
    (r"Driver/library version mismatch", "driver", "reload-driver"),
    (r"no kernel image is available for execution", "framework", "matching-wheel"),
    (r"libcudnn\.so\.\d+: cannot open shared object", "library", "install-library"),
    (r"libcudart\.so\.[\d.]+: cannot open shared object", "cuda-runtime", "install-library"),
    (r"Found no NVIDIA driver on your system", "container", "expose-gpus"),
    (r'could not select device driver "" with capabilities', "container", "expose-gpus"),
    (r"DistNetworkError: The client socket has timed out", "launcher", "fix-rendezvous"),
    (r"NCCL WARN Bootstrap : no socket interface found", "library", "nccl-interface"),
]


def _read_layer(log: str) -> tuple[str, str]:
    hits = [(layer, fix, re.search(sign, log)) for sign, layer, fix in _SIGNS]
    hits = [(layer, fix, m) for layer, fix, m in hits if m]
    assert len(hits) == 1, log
    layer, fix, m = hits[0]
    if layer == "driver" and fix == "upgrade-driver":
        assert int(m.group(1)) < 12000  # an 11.x driver ...
    if fix == "reload-driver":
        client = re.search(r"client has the version (\S+), but", log).group(1)
        module = re.search(r"kernel module has the version (\S+)\.  Please", log).group(1)
        assert client != module
    if fix == "fix-rendezvous":
        ports = set(re.findall(r"--master-port=(\d+)", log))
        assert len(ports) == 2  # the nodes disagree on the port
    if fix == "nccl-interface":
        wanted = re.search(r"NCCL_SOCKET_IFNAME=(\S+)", log).group(1)
        have = re.findall(r"^(\w+)\s+(?:UP|DOWN|UNKNOWN)", log, re.M)
        assert have and wanted not in have
    return layer, fix


def test_layer_reader_agrees_with_the_graded_answer():
    seen = set()
    for seed in SEEDS:
        v = Variant.from_seed("stack-layer-error", seed)
        text = v.statement_markdown()
        layer, fix = _read_layer(_block(text))
        assert (layer, fix) == (v.parts["layer"].value, v.parts["fix"].value), seed
        if fix == "upgrade-driver":
            assert re.search(r"PyTorch `[\d.]+\+cu12\d`", text), seed  # CUDA 12 wheel
        seen.add((layer, fix))
    assert len(seen) == 8  # every (layer, fix) pair the nine failures use


def test_layer_rendezvous_port_mismatch():
    # Node 0 serves the store on 29500; the last node dials another port: launcher,
    # fix-rendezvous. Blaming NCCL (library / nccl-interface) is named.
    params = {
        "scenario": "rendezvous-port",
        "gpu": "h100",
        "driver": "550.90.07",
        "torch": "2.6.0",
        "cuda": "12.4",
        "model": "meta-llama/Llama-3.1-70B",
        "n_nodes": 4,
    }
    parts = solve("stack-layer-error", params)
    assert (parts["layer"].value, parts["fix"].value) == ("launcher", "fix-rendezvous")
    named = slips("stack-layer-error", params)
    assert named[("nccl-blamed-for-rendezvous", "layer")] == "library"
    assert named[("nccl-tuning-for-store", "fix")] == "nccl-interface"
    log = _block(Variant.from_params("stack-layer-error", params).statement_markdown())
    assert "[node 3]" in log and "--nnodes=4" in log


def test_layer_old_driver_names_the_runtime_slip():
    # R510 reports CUDA 11.6 (found version 11060) under a cu124 wheel: driver, upgrade.
    params = {
        "scenario": "old-driver",
        "gpu": "a100",
        "driver": "510.73.08",
        "torch": "2.5.1",
        "cuda": "12.4",
        "model": "mistralai/Mistral-7B-v0.1",
        "n_nodes": 1,
    }
    parts = solve("stack-layer-error", params)
    assert (parts["layer"].value, parts["fix"].value) == ("driver", "upgrade-driver")
    named = slips("stack-layer-error", params)
    assert named[("runtime-blamed-for-old-driver", "layer")] == "cuda-runtime"
    assert named[("toolkit-for-driver", "fix")] == "install-library"
    text = Variant.from_params("stack-layer-error", params).statement_markdown()
    assert "found version 11060" in text


@pytest.mark.parametrize(
    "change",
    [
        {"scenario": "old-driver", "driver": "550.90.07"},  # the driver supports cu124
        {"scenario": "no-kernel-image", "gpu": "h100"},  # the wheel has sm_90 kernels
        {"scenario": "rendezvous-port", "n_nodes": 1},  # one node has no rendezvous peer
        {"driver": "470.82.01"},  # a second fault: the driver could not run cu124
    ],
)
def test_layer_refuses_a_second_or_missing_fault(change):
    params = {
        "scenario": "cudnn-missing",
        "gpu": "a100",
        "driver": "550.90.07",
        "torch": "2.5.1",
        "cuda": "12.4",
        "model": "Qwen/Qwen2.5-72B",
        "n_nodes": 2,
    }
    with pytest.raises(ValueError):
        registry.get("stack-layer-error").parse_params({**params, **change})


# ------------------------------------------------------------------------ wavefront-width


def test_wavefront_160_threads_on_mi300x():
    # 160 threads: ceil(160/32) = 5 warps; ceil(160/64) = 3 wavefronts (64, 64, 32);
    # lanes 32-63 lost: 32 + 32 + 0 = 64. Slips: 160/32 = 5 wavefronts, 160/64 -> 3 warps,
    # floor 2, 32 x 3 = 96, one wavefront 32.
    params = {"gpu": "mi300x", "block_threads": 160, "bug": "ballot"}
    parts = solve("wavefront-width", params)
    assert [parts[k].value for k in ("warps", "wavefronts", "lost")] == [5, 3, 64]
    named = slips("wavefront-width", params)
    assert named[("warp-size-on-amd", "wavefronts")] == 5
    assert named[("wavefront-size-on-nvidia", "warps")] == 3
    assert named[("rounded-down", "wavefronts")] == 2
    assert named[("whole-upper-half", "lost")] == 96
    assert named[("one-wavefront-only", "lost")] == 32


def test_wavefront_96_threads_drops_slips_equal_to_the_answer():
    # 96 threads: 3 warps, 2 wavefronts (64 + 32), lost 32; one-wavefront-only would be 32 too.
    params = {"gpu": "mi250x", "block_threads": 96, "bug": "reduction"}
    parts = solve("wavefront-width", params)
    assert [parts[k].value for k in ("warps", "wavefronts", "lost")] == [3, 2, 32]
    assert ("one-wavefront-only", "lost") not in slips("wavefront-width", params)


def _simulate_lost(code: str, block: int, width: int) -> int:
    """Run the printed kernel's logic lane by lane and count the threads not counted."""
    counted = 0
    for start in range(0, block, width):
        active = [1 if start + lane < block else 0 for lane in range(width)]
        if "__ballot(" in code:
            mask = sum(bit << lane for lane, bit in enumerate(active))
            counted += bin(mask & 0xFFFFFFFF).count("1")  # kept in an unsigned int
        else:
            offsets = [int(x) for x in re.findall(r"offset = (\d+)", code)]
            assert offsets == [16]
            v = active[:]
            offset = 16
            while offset > 0:
                v = [v[i] + (v[i + offset] if i + offset < width else 0) for i in range(width)]
                offset //= 2
            counted += v[0]  # only lane % warpSize == 0, i.e. lane 0, writes
    return block - counted


def test_wavefront_reader_simulates_the_printed_kernel():
    bugs = set()
    for seed in SEEDS:
        v = Variant.from_seed("wavefront-width", seed)
        text = v.statement_markdown()
        block = int(re.search(r"\$B = (\d+)\$", text).group(1))
        width = int(re.search(r"a wavefront is (\d+) threads", text).group(1))
        code = _block(text)
        assert v.parts["lost"].value == _simulate_lost(code, block, width), seed
        assert v.parts["warps"].value == -(-block // 32), seed
        assert v.parts["wavefronts"].value == -(-block // width), seed
        bugs.add("__ballot(" in code)
    assert bugs == {True, False}


# ------------------------------------------------------------------------- cuda-hip-terms


@pytest.mark.parametrize(
    ("term", "gpu", "answer", "named"),
    [
        ("shared memory", "mi300x", "LDS", {"scratch-vs-lds": "scratch", "gds-vs-lds": "GDS"}),
        (
            "compute capability",
            "mi355x",
            "gfx950",
            {"family-vs-target": "CDNA4", "product-vs-target": "MI355X"},
        ),
        ("compute capability", "mi250x", "gfx90a", {"family-vs-target": "CDNA2"}),
        ("SM", "mi250x", "compute-unit", {"gcd-vs-cu": "GCD", "simd-vs-cu": "SIMD"}),
        ("SM", "mi325x", "compute-unit", {"xcd-vs-cu": "XCD"}),
        ("warp size", "mi300x", "64", {"wave32-on-instinct": "32"}),
        ("NCCL", "mi300x", "RCCL", {"miopen-vs-rccl": "MIOpen"}),
    ],
)
def test_hip_terms_hand_checked(term, gpu, answer, named):
    params = {"term": term, "gpu": gpu, "project": "training code"}
    assert solve("cuda-hip-terms", params)["hip"].value == answer
    got = slips("cuda-hip-terms", params)
    for code, value in named.items():
        assert got[(code, "hip")] == value


def test_hip_terms_statement_lists_the_choices_in_varied_order():
    first = set()
    for seed in SEEDS:
        v = Variant.from_seed("cuda-hip-terms", seed)
        listed = re.findall(r"\*\*([^*]+)\*\*", v.statement_markdown().split("Answer one of:")[1])
        assert tuple(listed) == v.parts["hip"].choices, seed
        assert v.parts["hip"].value in listed, seed
        first.add(listed[0] == v.parts["hip"].value)
    assert first == {True, False}
