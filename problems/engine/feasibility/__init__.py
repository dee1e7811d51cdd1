"""Feasibility: is the system a variant describes one that could exist?

A generator that draws numbers independently can describe a 70B model on two H200s
decoding at four times their dense peak, a user running more GPUs than the QOS lets them
start, or a fleet too small for the load the same statement gives it. Such a question is
still solvable, but it teaches arithmetic on a system no engineer will meet, and a learner
who knows the hardware will distrust it. This package describes the system and checks it;
it is pure (no Django, no database; the catalog constructors read hardware_db.catalog).

Describe a system (every part optional; a check whose inputs are missing does not apply):

    from problems.engine.feasibility import (
        Device, Model, Plan, Slo, SystemDescription, Traffic, check_all,
    )
    desc = SystemDescription(
        model=Model.of("llama-3.1-70b"),
        device=Device.of("h100-sxm", scale_up_domain=8),
        plan=Plan(replicas=4, tp=4, weights_dtype="bf16", kv_dtype="bf16"),
        traffic=Traffic(prefill_tok_s=60_000, decode_tok_s=8_000, prompt_tokens=2_000,
                        context_tokens=2_500, decode_batch=64),
        slo=Slo(ttft_s=2.0, ttft_prompt_tokens=8_000, tpot_s=0.05),
    )
    for v in check_all(desc):          # list[Verdict]
        print(v.check, v.ok, v.need, v.limit, v.unit, v.ratio, v.detail)

Checks (names are constants in checks.py; each verdict passes when need <= limit):
compute (2 N_active + attention FLOPs per token, prefill and decode together, against
COMPUTE_CEILING = 60% of the fleet's dense peak at Plan.computes_in), decode-step (the
step the traffic implies is no shorter than weights + KV read over HBM), memory (weights
+ running KV per device within Plan.memory_fraction of memory), capacity (decode load
within replicas x Plan.decode_capacity_tok_s), ttft and tpot (against Slo), fabric (TP
within Device.scale_up_domain, each LinkLoad within its link), caps (each Cap's in_use
within its limit). `check(desc, name)` runs one (None: no inputs); `failures(desc, names)`
the named ones that fail, a missing input counting as a failure. `decode_floor_s(desc,
batch)` is the decode-step floor itself, and `largest_decode_batch(desc)` the most
sequences of `traffic.context_tokens` one replica can decode within its memory and, when
the description has one, its TPOT SLO (sizing.py): what a planner needs so that the plan
it sizes passes the checks.

Templates declare what their variants must pass with `feasibility = Feasibility(checks,
describe)` (declare.py); the engine redraws failing candidates and `problems check` fails
any variant that does not pass and reports the redraws.
"""

from problems.engine.feasibility.checks import (
    CAPACITY,
    CAPS,
    CHECKS,
    COMPUTE,
    COMPUTE_CEILING,
    DECODE_STEP,
    FABRIC,
    MEMORY,
    TPOT,
    TTFT,
    Verdict,
    check,
    check_all,
    decode_floor_s,
    failures,
)
from problems.engine.feasibility.declare import (
    Feasibility,
    InfeasibleGenerator,
    RedrawTally,
    counting_redraws,
    feasible_generate,
)
from problems.engine.feasibility.sizing import largest_decode_batch
from problems.engine.feasibility.system import (
    Cap,
    Device,
    LinkLoad,
    Model,
    Plan,
    Slo,
    SystemDescription,
    Traffic,
)

__all__ = [
    "CAPACITY",
    "CAPS",
    "CHECKS",
    "COMPUTE",
    "COMPUTE_CEILING",
    "DECODE_STEP",
    "FABRIC",
    "MEMORY",
    "TPOT",
    "TTFT",
    "Cap",
    "Device",
    "Feasibility",
    "InfeasibleGenerator",
    "LinkLoad",
    "Model",
    "Plan",
    "RedrawTally",
    "Slo",
    "SystemDescription",
    "Traffic",
    "Verdict",
    "check",
    "check_all",
    "counting_redraws",
    "decode_floor_s",
    "failures",
    "feasible_generate",
    "largest_decode_batch",
]
