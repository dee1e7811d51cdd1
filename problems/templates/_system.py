"""The system a variant's figures describe, for the feasibility checks
(problems/engine/feasibility). Registers no template.

A template's parameters are plain numbers (a bandwidth, a peak, a parameter count), and
its statement names every catalog part and model those numbers match (_common.py). The
variant must be possible on each of them: a statement that offers "H100 SXM5 80GB / H200
SXM 141GB" for a 405B FP8 deployment on four devices describes two systems, and the H100
one cannot hold the weights. So the device a description uses is the named part with the
least usable memory, and the model the named one (or a bare parameter count).
"""

from __future__ import annotations

from problems.engine.feasibility import Device, Model
from problems.templates._common import Hit, matching_accelerators, model_with_params


def tightest_device(hits: list[Hit], scale_up_domain: int | None = None) -> Device | None:
    """The named part with the least usable memory (None when no part is named)."""
    if not hits:
        return None
    acc = min((a for a, _ in hits), key=lambda a: a.usable_bytes)
    return Device.of(acc.slug, scale_up_domain)


def device_by_bandwidth(mem_bw_tbps: float) -> Device | None:
    return tightest_device(matching_accelerators(mem_bw_tbps=mem_bw_tbps))


def device_by_peak(peak_tflops: float) -> tuple[Device | None, str]:
    """The tightest part with this dense peak, and the precision the statement names for
    it (the first match's, BF16 when none)."""
    hits = matching_accelerators(peak_tflops=peak_tflops)
    return tightest_device(hits), (hits[0][1] if hits else None) or "bf16"


def model_by_params(n_params: float, active_params: float | None = None) -> Model:
    """The catalog model with this parameter count, or a bare count of that size."""
    m = model_with_params(n_params)
    if m is not None:
        return Model.of(m.slug)
    active = n_params if active_params is None else active_params
    return Model("a model", n_params, active, kv_elements_per_token=0)
