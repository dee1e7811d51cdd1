"""Hand-checked answers and slips for the fabric templates (nccl-tests-readout,
topo-matrix), and readers written here, independent of the templates' code, that parse
the generated tool output back and confirm the graded answer is what the output shows."""

from __future__ import annotations

import re
from itertools import combinations

import pytest

from problems.engine.variants import Variant
from tests.problems.template_harness import assert_bad_params_refused, slips, solve

NCCL, TOPO = "nccl-tests-readout", "topo-matrix"
SEEDS = range(200)
FENCE = re.compile(r"```text\n(.*?)\n```", re.S)

# ------------------------------------------------------------------ nccl-tests-readout

H100_NODES = {
    "gpu": "h100-sxm",
    "first_node": 7,
    "busbw_peak": (478.0, 330.0, 470.5),
    "latency_us": (35.0, 36.0, 70.0),
    "wrong_node": -1,
    "wrong_count": 0,
    "threshold_gbps": 440.0,
}


def test_nccl_slow_node_and_time_limit():
    # t_max = 2^32 B x 1.75 / 440e9 B/s = 7,516,192,768 / 440e9 s = 17.0823 ms;
    # node08 peaks at 330 GB/s < 440.
    parts = solve(NCCL, H100_NODES)
    assert parts["t_max"].value == pytest.approx(2**32 * 1.75 / 440e9 * 1e3)
    assert parts["t_max"].value == pytest.approx(17.08226, rel=1e-6)
    assert parts["t_max"].unit == "ms"
    assert parts["node"].value == "gpu-node08"
    assert parts["node"].choices == ("gpu-node07", "gpu-node08", "gpu-node09", "none")
    named = slips(NCCL, H100_NODES)
    assert named[("busbw-as-algbw", "t_max")] == pytest.approx(2**32 / 440e9 * 1e3)
    assert named[("factor-two", "t_max")] == pytest.approx(2**33 / 440e9 * 1e3)
    assert named[("gb-vs-gib", "t_max")] == pytest.approx(4e9 * 1.75 / 440e9 * 1e3)
    assert named[("latency-decoy", "node")] == "gpu-node09"  # 70 us at 1 MiB, yet healthy


def test_nccl_wrong_data_fails_a_fast_node():
    params = {**H100_NODES, "busbw_peak": (478.0, 466.0, 470.5), "wrong_node": 0}
    params["wrong_count"] = 1234
    parts = solve(NCCL, params)
    assert parts["node"].value == "gpu-node07"
    named = slips(NCCL, params)
    assert named[("ignored-wrong-column", "node")] == "none"
    assert named[("slowest-but-passing", "node")] == "gpu-node08"
    text = Variant.from_params(NCCL, params).statement_markdown()
    # 1,234 wrong at 4 GiB and 1,234 // 3 = 411 at 512 MiB, out-of-place: 1,645 in all.
    assert "# Out of bounds values : 1645 FAILED" in text


def test_nccl_no_fault():
    params = {**H100_NODES, "busbw_peak": (478.0, 466.0, 470.5)}
    assert solve(NCCL, params)["node"].value == "none"
    assert slips(NCCL, params)[("slowest-but-passing", "node")] == "gpu-node08"


def test_nccl_bad_params_refused():
    assert_bad_params_refused(
        NCCL,
        [("gpu", "b200"), ("threshold_gbps", 0), ("wrong_node", 9), ("n_ranks", 8)],
    )
    from problems.engine import registry

    two_slow = {**H100_NODES, "busbw_peak": (300.0, 330.0, 470.5)}
    with pytest.raises(ValueError):
        registry.get(NCCL).parse_params(two_slow)


ROW = re.compile(
    r"^\s+(\d+)\s+(\d+)\s+float\s+sum\s+-1"
    r"\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)$"
)


def _read_nccl(text: str) -> tuple[float, dict[str, dict]]:
    """Threshold and, per node, its rows {size: (oop time, algbw, busbw, wrong, ip wrong)}
    and its Out of bounds verdict, read from the statement alone."""
    threshold = float(re.search(r"at least ([\d.,]+) GB/s", text).group(1).replace(",", ""))
    block = FENCE.search(text).group(1)
    nodes: dict[str, dict] = {}
    current = None
    for line in block.splitlines():
        if m := re.match(r"^\$ ssh (\S+) ", line):
            current = nodes.setdefault(m.group(1), {"rows": {}, "oob": None})
        elif m := ROW.match(line):
            g = m.groups()
            current["rows"][int(g[0])] = (
                float(g[2]),
                float(g[3]),
                float(g[4]),
                int(g[5]),
                int(g[9]),
            )
        elif m := re.match(r"^# Out of bounds values : (\d+) (OK|FAILED)$", line):
            current["oob"] = (int(m.group(1)), m.group(2))
    return threshold, nodes


def test_nccl_reader_finds_the_graded_node_and_rows_are_consistent():
    outcomes = set()
    for seed in SEEDS:
        v = Variant.from_seed(NCCL, seed)
        threshold, nodes = _read_nccl(v.statement_markdown())
        assert len(nodes) >= 3
        bad = []
        for name, node in nodes.items():
            rows = node["rows"]
            assert len(rows) == 5 and max(rows) == 2**32
            for size, (t, algbw, busbw, _, _) in rows.items():
                # algbw = size / time (GB/s from bytes and us), busbw = algbw x 2(8-1)/8
                assert algbw == pytest.approx(size / t / 1e3, abs=0.006)
                assert busbw == pytest.approx(algbw * 1.75, abs=0.015)
            wrong = sum(r[3] + r[4] for r in rows.values())
            assert node["oob"] == (wrong, "OK" if wrong == 0 else "FAILED")
            if rows[2**32][2] < threshold or wrong:
                bad.append(name)
        assert len(bad) <= 1, seed
        expected = bad[0] if bad else "none"
        assert v.parts["node"].value == expected, seed
        assert v.parts["t_max"].value == pytest.approx(2**32 * 1.75 / threshold / 1e6)
        outcomes.add("none" if not bad else "wrong" if nodes[bad[0]]["oob"][0] else "slow")
    assert outcomes == {"none", "wrong", "slow"}


# ------------------------------------------------------------------------ topo-matrix

HGX = {
    "gpu": "h100-sxm",
    "gpu_socket": (0, 0, 0, 0, 1, 1, 1, 1),
    "gpu_group": (0, 1, 2, 3, 4, 5, 6, 7),
    "nic_socket": (0, 0, 0, 0, 1, 1, 1, 1),
    "nic_group": (1, 0, 3, 2, 5, 4, 7, 6),
    "group_path": "PIX",
    "ask_gpu": 2,
    "path_from": "GPU0",
    "path_to": "NIC5",
}
PCIE = {
    "gpu": "l40s",
    "gpu_socket": (0, 0, 0, 0, 1, 1, 1, 1),
    "gpu_group": (0, 0, 1, 1, -1, -1, -1, -1),
    "nic_socket": (0, 1),
    "nic_group": (1, -1),
    "group_path": "PXB",
    "ask_gpu": 5,
    "path_from": "GPU4",
    "path_to": "GPU6",
}


def test_topo_hgx_nic_placement():
    # GPU2 sits under switch 2, which holds NIC3 (nic_group[3] = 2): PIX. NIC2 is NODE.
    # GPU0 (socket 0) to NIC5 (socket 1): SYS. All GPU pairs are NV18: 0 SYS pairs.
    parts = solve(TOPO, HGX)
    assert parts["nic"].value == "NIC3"
    assert parts["path"].value == "SYS"
    assert parts["sys_pairs"].value == 0
    named = slips(TOPO, HGX)
    assert named[("same-index-nic", "nic")] == "NIC2"
    assert named[("node-nic", "nic")] == "NIC0"
    assert named[("node-sys-confused", "path")] == "NODE"
    assert named[("socket-not-path", "sys_pairs")] == 16  # 4 x 4 cross-socket pairs
    assert ("ordered-pairs", "sys_pairs") not in named  # 2 x 0 = 0 is the answer


def test_topo_pcie_counts():
    # 4 + 4 GPUs: 16 SYS pairs. NODE pairs: socket 0 across its two switches 2 x 2 = 4,
    # socket 1 all on root ports C(4,2) = 6: 10. GPU5's NICs: NIC0 SYS, NIC1 NODE.
    parts = solve(TOPO, PCIE)
    assert parts["sys_pairs"].value == 16
    assert parts["nic"].value == "NIC1"
    assert parts["path"].value == "NODE"
    named = slips(TOPO, PCIE)
    assert named[("ordered-pairs", "sys_pairs")] == 32
    assert named[("node-counted-as-sys", "sys_pairs")] == 26
    assert named[("node-sys-confused", "path")] == "SYS"
    text = Variant.from_params(TOPO, PCIE).statement_markdown()
    assert "GPU0     X      PXB     NODE    NODE    SYS" in text


def test_topo_bad_params_refused():
    assert_bad_params_refused(
        TOPO,
        [("gpu", "mi300x"), ("group_path", "NODE"), ("ask_gpu", 9), ("server", "dgx-h100")],
    )
    from problems.engine import registry

    two_closest = {**PCIE, "nic_socket": (1, 1), "nic_group": (-1, -1)}
    with pytest.raises(ValueError):
        registry.get(TOPO).parse_params(two_closest)
    nvlink_path = {**HGX, "path_to": "GPU3"}
    with pytest.raises(ValueError):
        registry.get(TOPO).parse_params(nvlink_path)


RANK = {"PIX": 0, "PXB": 1, "PHB": 2, "NODE": 3, "SYS": 4}


def _read_topo(text: str) -> tuple[list[str], dict[str, dict[str, str]]]:
    block = FENCE.search(text).group(1)
    lines = block.splitlines()
    header = lines[1].split()
    devices = [h for h in header if re.fullmatch(r"(GPU|NIC)\d+", h)]
    matrix = {}
    for line in lines[2:]:
        if not line.strip():
            break
        cells = line.split()
        matrix[cells[0]] = dict(zip(devices, cells[1 : 1 + len(devices)], strict=True))
    return devices, matrix


def test_topo_reader_agrees_with_the_graded_answers():
    kinds = set()
    for seed in SEEDS:
        v = Variant.from_seed(TOPO, seed)
        text = v.statement_markdown()
        devices, m = _read_topo(text)
        gpus = [d for d in devices if d.startswith("GPU")]
        nics = [d for d in devices if d.startswith("NIC")]
        for a in devices:  # symmetric, X on the diagonal
            assert m[a][a] == "X"
            assert all(m[a][b] == m[b][a] for b in devices)
        ask = re.search(r"rank on (GPU\d+)", text).group(1)
        best = sorted(nics, key=lambda n: RANK[m[ask][n]])
        assert RANK[m[ask][best[0]]] < RANK[m[ask][best[1]]] if len(best) > 1 else True
        assert v.parts["nic"].value == best[0], seed
        a, b = re.search(r"What path joins (\S+) and (\S+)\?", text).groups()
        assert v.parts["path"].value == m[a][b], seed
        sys_pairs = sum(m[x][y] == "SYS" for x, y in combinations(gpus, 2))
        assert v.parts["sys_pairs"].value == sys_pairs, seed
        legend = dict(re.findall(r"^  (NIC\d+): (mlx5_\d+)$", text, re.M))
        assert sorted(legend) == sorted(nics)
        kinds.add("nvlink" if m[gpus[0]][gpus[1]].startswith("NV") else "pcie")
    assert kinds == {"nvlink", "pcie"}


def test_nccl_time_off_by_two_names_an_all_reduce_slip_not_bytes_per_element():
    # t_max carries the ring's 2(n-1)/n: a doubled or a halved time is that factor applied
    # twice or only one phase of it; nothing in this question has an element size
    for seed in range(40):
        v = Variant.from_seed("nccl-tests-readout", seed)
        t = v.parts["t_max"].value
        for factor, code in ((2.0, "allreduce-factor-doubled"), (0.5, "one-phase-factor")):
            result = v.grade("t_max", f"{t * factor:.6g} ms")
            assert not result.correct and result.misconception == code, (seed, factor, result)
            assert "bytes per element" not in result.feedback
