"""The checks: each asks one physical or operational question of a SystemDescription and
answers with a Verdict that carries its numbers, `need <= limit` when it passes.

The formulas are those of ../shared/spec/reference-data/formulas.md and of the templates
that teach them, so a variant that passes is possible by the course's own arithmetic:

- compute: forward FLOPs per token 2 N_active (sec. 7, the 2N approximation) plus
  Kaplan's attention term 2 L n_ctx d_attn, prefill and decode together, against
  COMPUTE_CEILING of the fleet's dense peak at the precision the plan computes in.
- decode-step: a decode step reads the weights once and every running sequence's KV
  cache (sec. 7, batched), so it takes at least (W + B c k) / (tp B_mem); the step the
  traffic implies (batch / per-replica decode rate) may not be shorter.
- memory: weights / (tp pp) + the running sequences' KV / (tp pp) within the engine's
  share of one device's memory (sec. 4, u = 0.9 by default).
- capacity: the decode tokens/s asked of the fleet within replicas x a stated per-replica
  decode capacity.
- ttft / tpot: the SLO's prompt prefilled at the ceiling on one replica's tp devices, and
  the decode step floor at the running batch (batch 1 when none is given), within the SLOs.
- fabric: tensor parallelism within the device's scale-up domain, and each link or
  collective's demand within the link's per-direction bandwidth (sec. 0, 5).
- caps: everything held under a scheduler limit within it.

MoE weights read per step: a batch of B tokens touches at most B x N_active parameters and
never more than all of them (sec. 7: at batch 1 only the active experts are read).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from problems.engine.feasibility.system import SystemDescription
from problems.engine.numbers import BYTES_PER_ELEMENT, sig

# Sustained share of dense peak a plan may count on. Well-tuned large runs reach 38-46% MFU
# (Llama 3 405B 38-43%, PaLM 46%; formulas.md sec. 8); a compute-bound prefill at large
# batch gets to 50-60% on the best kernels, and decode far less. A plan that needs more than
# 60% of peak, sustained, has no kernel that serves it and no headroom for a burst; the
# generators' prefill MFUs (prefill-time, prefix-cache-ttft) stop at the same 0.6.
COMPUTE_CEILING = 0.6

COMPUTE, DECODE_STEP, MEMORY, CAPACITY = "compute", "decode-step", "memory", "capacity"
TTFT, TPOT, FABRIC, CAPS = "ttft", "tpot", "fabric", "caps"


@dataclass(frozen=True)
class Verdict:
    """One check's answer. `need` is what the system asks for and `limit` what it may use,
    in `unit`; it passes when need <= limit. `detail` says it in one line."""

    check: str
    ok: bool
    need: float
    limit: float
    unit: str
    detail: str

    @property
    def ratio(self) -> float:
        """need / limit: 1.3 means 30% over the limit."""
        return self.need / self.limit if self.limit else float("inf")

    def __str__(self) -> str:
        return f"{self.check}: {self.detail}"


def _num(x: float) -> str:
    return f"{x:.4g}" if abs(x) >= 1e6 else sig(x, 4)


def _verdict(check: str, need: float, limit: float, unit: str, what: str) -> Verdict:
    ok = need <= limit * (1 + 1e-12)
    ratio = need / limit if limit else float("inf")
    how = f"{ratio:.0%} of it" if ok else f"{sig(ratio, 3)}x over" if limit else "none to use"
    text = f"{what}: needs {_num(need)} {unit}, limit {_num(limit)} {unit} ({how})".replace(
        "  ", " "
    )
    return Verdict(check, ok, float(need), float(limit), unit, text)


def _weights_read(d: SystemDescription, batch: float) -> float:
    m = d.model
    params = m.total_params
    if m.active_params < m.total_params:
        params = min(m.total_params, max(batch, 1) * m.active_params)
    return params * BYTES_PER_ELEMENT[d.plan.weights_dtype]


def decode_floor_s(d: SystemDescription, batch: float) -> float:
    """The shortest decode step at `batch` running sequences: weights once and each
    sequence's cache, over the tp devices' HBM (pp stages run one after another)."""
    kv = batch * d.traffic.context_tokens * d.model.kv_bytes_per_token(d.plan.kv_dtype)
    return (_weights_read(d, batch) + kv) / (d.plan.tp * d.device.mem_bw_bytes_per_s)


def check_compute(d: SystemDescription) -> Verdict | None:
    t = d.traffic
    if d.model is None or d.device is None or t.prefill_tok_s + t.decode_tok_s <= 0:
        return None
    m, p = d.model, d.plan
    need = t.prefill_tok_s * m.flops_per_token(t.prompt_tokens / 2)
    need += t.decode_tok_s * m.flops_per_token(t.context_tokens)
    peak = d.device.dense_flops.get(p.computes_in, 0.0)
    limit = COMPUTE_CEILING * p.devices * peak
    what = (
        f"prefill {sig(t.prefill_tok_s, 4)} + decode {sig(t.decode_tok_s, 4)} tok/s of "
        f"{m.name} against {COMPUTE_CEILING:.0%} of {p.devices} x {d.device.name} "
        f"{p.computes_in.upper()} dense peak"
    )
    if not peak:
        what += f" (the part publishes no {p.computes_in.upper()} peak: it does not compute in it)"
    return _verdict(COMPUTE, need, limit, "FLOP/s", what)


def check_decode_step(d: SystemDescription) -> Verdict | None:
    t = d.traffic
    if d.model is None or d.device is None or not t.decode_batch or t.decode_tok_s <= 0:
        return None
    step = t.decode_batch * d.plan.replicas / t.decode_tok_s
    floor = decode_floor_s(d, t.decode_batch)
    what = (
        f"a decode step of {sig(t.decode_batch, 4)} sequences on {d.plan.tp} x "
        f"{d.device.name} (weights and KV over HBM) against the step the rate implies"
    )
    return _verdict(DECODE_STEP, floor, step, "s", what)


def check_memory(d: SystemDescription) -> Verdict | None:
    if d.model is None or d.device is None:
        return None
    p, t = d.plan, d.traffic
    kv = (t.decode_batch or 0) * t.context_tokens * d.model.kv_bytes_per_token(p.kv_dtype)
    need = (d.model.weight_bytes(p.weights_dtype) + kv) / p.devices_per_replica
    limit = p.memory_fraction * d.device.memory_bytes
    what = (
        f"{d.model.name} {p.weights_dtype.upper()} weights and KV per device over "
        f"{p.devices_per_replica} x {d.device.name} at {p.memory_fraction:g} of memory"
    )
    return _verdict(MEMORY, need, limit, "B", what)


def check_capacity(d: SystemDescription) -> Verdict | None:
    per = d.plan.decode_capacity_tok_s
    if per is None or d.traffic.decode_tok_s <= 0:
        return None
    what = f"decode load against {d.plan.replicas} replicas x {sig(per, 4)} tok/s"
    return _verdict(CAPACITY, d.traffic.decode_tok_s, d.plan.replicas * per, "tok/s", what)


def check_ttft(d: SystemDescription) -> Verdict | None:
    s = d.slo
    if d.model is None or d.device is None or s.ttft_s is None or not s.ttft_prompt_tokens:
        return None
    p = d.plan
    flops = s.ttft_prompt_tokens * d.model.flops_per_token(s.ttft_prompt_tokens / 2)
    rate = COMPUTE_CEILING * p.tp * d.device.dense_flops.get(p.computes_in, 0.0)
    need = flops / rate if rate else float("inf")
    what = (
        f"prefill of a {sig(s.ttft_prompt_tokens, 6)}-token prompt at {COMPUTE_CEILING:.0%} of peak"
    )
    return _verdict(TTFT, need, s.ttft_s, "s", what)


def check_tpot(d: SystemDescription) -> Verdict | None:
    if d.model is None or d.device is None or d.slo.tpot_s is None:
        return None
    batch = d.traffic.decode_batch or 1
    what = f"the decode step floor at {sig(batch, 4)} running sequences"
    return _verdict(TPOT, decode_floor_s(d, batch), d.slo.tpot_s, "s", what)


def check_fabric(d: SystemDescription) -> Verdict | None:
    items = [(x.name, x.need_bytes_per_s, x.link_bytes_per_s, "B/s") for x in d.links]
    domain = d.device.scale_up_domain if d.device else None
    if domain and d.plan.tp > 1:
        items.append(
            (
                f"tensor parallelism within the {domain}-device scale-up domain",
                d.plan.tp,
                domain,
                "devices",
            )
        )
    return _worst(FABRIC, items)


def check_caps(d: SystemDescription) -> Verdict | None:
    return _worst(CAPS, [(c.name, c.in_use, c.limit, "") for c in d.caps])


def _worst(check: str, items: list[tuple[str, float, float, str]]) -> Verdict | None:
    if not items:
        return None
    name, need, limit, unit = max(items, key=lambda x: x[1] / x[2] if x[2] else float("inf"))
    return _verdict(check, need, limit, unit, name)


CHECKS: dict[str, Callable[[SystemDescription], Verdict | None]] = {
    COMPUTE: check_compute,
    DECODE_STEP: check_decode_step,
    MEMORY: check_memory,
    CAPACITY: check_capacity,
    TTFT: check_ttft,
    TPOT: check_tpot,
    FABRIC: check_fabric,
    CAPS: check_caps,
}


def check(d: SystemDescription, name: str) -> Verdict | None:
    """One check by name; None when the description lacks its inputs."""
    return CHECKS[name](d)


def check_all(d: SystemDescription) -> list[Verdict]:
    """Every check the description has inputs for, in CHECKS order."""
    return [v for f in CHECKS.values() if (v := f(d)) is not None]


def failures(d: SystemDescription, names: tuple[str, ...]) -> list[Verdict]:
    """The named checks that fail, a check without inputs counting as failed: a template
    that declares a check must describe what it needs."""
    out = []
    for name in names:
        v = check(d, name)
        if v is None:
            v = Verdict(name, False, 0.0, 0.0, "", "the description gives this check no inputs")
        if not v.ok:
            out.append(v)
    return out
