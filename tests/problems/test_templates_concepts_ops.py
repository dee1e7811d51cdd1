"""Hand-checked variants of the ops helper's concept templates (issue 40): one per
template, its answers and a named slip per part read off the bank by hand."""

from __future__ import annotations

import pytest

from problems.engine import registry
from problems.engine.variants import Variant

pytestmark = pytest.mark.db_independent


def test_cluster_triage_by_hand():
    t = registry.get("cluster-triage")
    p = t.Params(order=1, hang=1, driver=2)  # clean nodes, BROADCAST vs ALLREDUCE, FM 535
    v = Variant(t, p)
    assert v.parts["order"].value == "fabric"
    assert v.parts["hang"].value == "mismatched-calls"
    assert v.parts["driver"].value == "match-fabric-manager"
    assert v.grade("order", "job-logs").misconception == "triage-skip-network"
    assert v.grade("hang", "rank-elsewhere").misconception == "mismatch-as-straggler"
    assert v.grade("driver", "load-new-module").misconception == "fm-as-module-reload"
    assert "OpType=BROADCAST" in t.statement(p)


def test_bring_up_sequence_by_hand():
    t = registry.get("bring-up-sequence")
    p = t.Params(layer=3, level=2, verdict=0)  # ports Initializing, stress plugins, HPL slow
    v = Variant(t, p)
    assert v.parts["layer"].value == "fabric"
    assert v.parts["level"].value == "r3"
    assert v.parts["verdict"].value == "hold-node"
    assert v.grade("layer", "firmware").misconception == "port-state-as-firmware"
    assert v.grade("level", "r4").misconception == "longest-is-needed"
    assert v.grade("verdict", "accept").misconception == "hpl-passed-as-fast"
    assert "State: Initializing" in t.statement(p)


def test_gpu_alerting_by_hand():
    t = registry.get("gpu-alerting")
    p = t.Params(signal=4, rule=2, source=2)  # 85 C warning, reasons > 0, Pending pods
    v = Variant(t, p)
    assert v.parts["signal"].value == "DCGM_FI_DEV_GPU_TEMP"
    assert v.parts["rule"].value == "mask-reasons"
    assert v.parts["source"].value == "kube-state-metrics"
    assert (
        v.grade("signal", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS").misconception
        == "reasons-before-slowdown"
    )
    assert v.grade("rule", "add-for").misconception == "mask-as-duration"
    assert v.grade("source", "dcgm-exporter").misconception == "pending-from-dcgm"
    assert "Slowdown Temp : 89 C" in t.statement(p)


def test_cooling_choices_by_hand():
    t = registry.get("cooling-choices")
    p = t.Params(cooling=0, loss=0, plan=2)  # GB200 rack, 4 of 128 nodes throttle, B300 room
    v = Variant(t, p)
    assert v.parts["cooling"].value == "direct-liquid"
    assert v.parts["loss"].value == "whole-job-slows"
    assert v.parts["plan"].value == "space-binds"
    assert v.grade("cooling", "air-cooled").misconception == "gb200-air-cooled"
    assert v.grade("loss", "one-node-slows").misconception == "sync-job-local-slowdown"
    assert v.grade("plan", "fits").misconception == "rack-count-ignored"
    assert "120 kW" in t.statement(p)
