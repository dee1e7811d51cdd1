"""xid-triage on Blackwell (issue 34, item 4): a B200 board's kernel log shows the codes
NVIDIA's Xid catalog applies to Blackwell, in the order the driver prints them, and no
part ever shows a code the catalog marks as not applying to it.

The table below is this test's own reading of the catalog
(docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html, read 2026-12-04): for each
code, "Applies to A100 / H100 / B100 / GB200" and "Resolution Bucket (Immediate
Action)". It is written out here, not imported, so that the template's table is checked
against it."""

from __future__ import annotations

import re

import pytest

from problems.engine.variants import Variant
from tests.problems.template_harness import solve

SEEDS = range(300)
FENCE = re.compile(r"```text\n(.*?)\n```", re.S)
XID = re.compile(r"NVRM: Xid \(PCI:0000:([0-9a-f]{2}):00\): (\d+), (.*)$")

# code: ((A100, H100, B100, GB200), immediate-action bucket)
CATALOG = {
    13: ((1, 1, 1, 1), "RESTART_APP"),
    31: ((1, 1, 1, 1), "RESTART_APP"),
    45: ((1, 1, 1, 1), "WORKFLOW_XID_45"),
    48: ((1, 1, 1, 1), "WORKFLOW_XID_48"),
    63: ((1, 1, 1, 1), "IGNORE"),
    64: ((1, 1, 1, 1), "RESET_GPU"),
    74: ((1, 1, 0, 0), "WORKFLOW_NVLINK_ERR"),
    79: ((1, 1, 1, 1), "RESTART_BM"),
    94: ((1, 1, 1, 1), "RESTART_APP"),
    95: ((1, 1, 1, 1), "RESET_GPU"),
    **{code: ((0, 0, 1, 1), "WORKFLOW_NVLINK5_ERR") for code in range(144, 151)},
    154: ((1, 1, 1, 1), "XID_154"),
}
COLUMN = {"dgx-a100": 0, "hgx-h100-a": 1, "hgx-h100-b": 1, "hgx-b200": 2}
# the template's first actions, read against the buckets
ACTION = {
    "RESTART_APP": "restart-app",
    "RESET_GPU": "reset-gpu",
    "RESTART_BM": "reboot-node",
    "IGNORE": "reset-at-window",
    "WORKFLOW_XID_48": "reset-gpu",  # the uncontained 95 in its sequence: reset
    "WORKFLOW_NVLINK_ERR": "check-nvlink",
    "WORKFLOW_NVLINK5_ERR": "check-nvlink",
}


def xid_lines(params: dict) -> list[tuple[str, int, str]]:
    text = FENCE.findall(Variant.from_params("xid-triage", params).statement_markdown())[0]
    return [
        m.groups()[:1] + (int(m.group(2)), m.group(3))
        for m in map(XID.search, text.splitlines())
        if m
    ]


def drawn() -> list[dict]:
    return [Variant.from_seed("xid-triage", seed).params.model_dump() for seed in SEEDS]


def test_a_blackwell_log_carries_the_blackwell_lines_in_order():
    # a DBE under containment: 48, 63, 95, then 154 (GPU Reset Required), then the peers' 45s
    lines = xid_lines({"platform": "hgx-b200", "xid": 48, "gpu": 2, "log_seed": 3})
    faulty = lines[0][0]
    assert [c for b, c, _ in lines if b == faulty] == [48, 63, 95, 154]
    assert lines[3][2].endswith(
        "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)"
    )
    assert [c for b, c, _ in lines[4:]] == [45] * 7
    # a link fault is Blackwell's 145 (never 74), summarised by 154, then the peers' 45s
    lines = xid_lines({"platform": "hgx-b200", "xid": 145, "gpu": 5, "log_seed": 9})
    assert [c for _, c, _ in lines[:2]] == [145, 154]
    assert lines[0][2].startswith("RLW_REMAP Fatal XC1 i0 Link ")
    assert [c for _, c, _ in lines[2:]] == [45] * 7
    # off the bus: 154 says the node needs a reboot
    lines = xid_lines({"platform": "hgx-b200", "xid": 79, "gpu": 0, "log_seed": 4})
    assert lines[1][1] == 154 and lines[1][2].endswith("to 0x2 (Node Reboot Required)")


def test_blackwell_is_drawn_and_only_blackwell_shows_blackwell_only_codes():
    by_platform: dict[str, set[int]] = {}
    for params in drawn():
        codes = {c for _, c, _ in xid_lines(params)}
        by_platform.setdefault(params["platform"], set()).update(codes)
    assert set(by_platform) == set(COLUMN)
    assert 145 in by_platform["hgx-b200"] and 154 in by_platform["hgx-b200"]
    for platform in ("dgx-a100", "hgx-h100-a", "hgx-h100-b"):
        assert not by_platform[platform] & set(range(144, 151)), platform
    assert 74 not in by_platform["hgx-b200"]


@pytest.mark.parametrize("platform", sorted(COLUMN))
def test_every_code_in_a_log_is_one_the_catalog_applies_to_that_part(platform):
    col = COLUMN[platform]
    for xid in CATALOG:
        if xid in (45, 154) or xid in range(146, 151) or xid == 144:
            continue  # printed only alongside a drawn code, never drawn themselves
        params = {"platform": platform, "xid": xid, "gpu": 1, "log_seed": 11}
        if not CATALOG[xid][0][col]:
            with pytest.raises(ValueError):
                Variant.from_params("xid-triage", params)
            continue
        for _, code, _ in xid_lines(params):
            assert CATALOG[code][0][col], (platform, xid, code)


@pytest.mark.parametrize("platform", sorted(COLUMN))
def test_the_key_is_the_catalogs_immediate_action(platform):
    col = COLUMN[platform]
    for xid in (13, 31, 48, 63, 74, 79, 94, 95, 145):
        applies, bucket = CATALOG[xid]
        if not applies[col]:
            continue
        params = {"platform": platform, "xid": xid, "gpu": 4, "log_seed": 2}
        assert solve("xid-triage", params)["action"].value == ACTION[bucket], (platform, xid)
