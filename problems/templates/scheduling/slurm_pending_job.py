"""slurm-pending-job: why a GPU job sits in PD, read from `squeue` and `sinfo`, and how many
GPUs the partition could hand out right now.

Realism: one `gpu` partition of 6-10 nodes, each with 8 NVIDIA GPUs of one model (gres
`gpu:<type>:8`, the catalog part named in the statement); node states idle, mixed,
allocated, drained and down (taken out by an administrator), always at least one mixed node
and one node out of service, as on any busy cluster. The `squeue` view uses a custom
format with the time limit shown; pending jobs sort first (highest priority on top), as
squeue's default sort does. `sinfo -N -O` prints Gres and GresUsed in Slurm's own
`gpu:h100:8(S:0-1)` / `gpu:h100:3(IDX:0-2)` forms. The statement always states the
partition's MaxTime and the per-user GPU cap of the QOS, so every reason can be checked
against the output rather than taken on trust.

Exactly one reason is planted, and the scene is drawn to agree with it: Resources (the job
is first in line and no set of nodes has the free GPUs it needs), Priority (another user's
job, first in line, waits with Resources), QOSMaxGRESPerUser (the user's running GPUs
plus the request pass the cap, while the free GPUs would fit), ReqNodeNotAvail (the job
named nodes with -w that are drained or down) and PartitionTimeLimit (the
requested time is longer than MaxTime: it will never start as submitted).

Misconceptions: on the reason, Priority read as a shortage (priority-read-as-shortage),
Resources read as queue order (shortage-read-as-priority), a QOS cap read as a shortage
(limit-read-as-shortage), unavailable nodes read as a shortage
(unavailable-read-as-shortage), and the partition's time limit read as a quota
(partition-limit-read-as-quota). On the free-GPU count: GPUs of drained or down nodes
counted (drained-counted-idle), mixed nodes left out (mixed-ignored) and GRES_USED read as
the free count (used-read-as-free), each named only when it changes the count.
"""

from __future__ import annotations

import random
from typing import Annotated, Literal

from pydantic import Field, model_validator

from problems.engine.feasibility import CAPS, Cap, Feasibility, SystemDescription
from problems.engine.registry import register
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates.scheduling._family import (
    accelerator_name,
    choice_part,
    count_part,
    detail_rng,
    fence,
    fmt_elapsed,
    fmt_hours,
    hostlist,
    sinfo_table,
    squeue_table,
)

GPUS = 8  # per node
MAX_TIME_H = 48  # the partition's MaxTime, 2-00:00:00
GresType = Literal["a100", "h100", "h200", "b200", "l40s"]
ACCEL = {
    "a100": "a100-sxm-80gb",
    "h100": "h100-sxm",
    "h200": "h200",
    "b200": "b200",
    "l40s": "l40s",
}
NodeState = Literal["idle", "mixed", "allocated", "drained", "down"]
Reason = Literal[
    "Resources", "Priority", "QOSMaxGRESPerUser", "ReqNodeNotAvail", "PartitionTimeLimit"
]
CLASS = {
    "Resources": "resources",
    "Priority": "priority",
    "QOSMaxGRESPerUser": "limit",
    "ReqNodeNotAvail": "unavailable",
    "PartitionTimeLimit": "invalid",
}
CHOICES = ("resources", "priority", "limit", "unavailable", "invalid")
OUT = ("drained", "down")
USERS = ("achen", "bkumar", "dlopez", "esato", "fwu", "gnguyen", "hmeyer", "iokafor")
NAMES = ("pretrain", "sft-70b", "eval-mmlu", "rlhf-ppo", "dpo-8b", "vllm-bench", "ft-llama")


REASON_SLIPS = {  # the class a learner picks when misreading each reason
    "Priority": ("priority-read-as-shortage", "resources"),
    "Resources": ("shortage-read-as-priority", "priority"),
    "QOSMaxGRESPerUser": ("limit-read-as-shortage", "resources"),
    "ReqNodeNotAvail": ("unavailable-read-as-shortage", "resources"),
    "PartitionTimeLimit": ("partition-limit-read-as-quota", "limit"),
}
REASON_FEEDBACK = {
    "Priority": "Priority means higher-priority jobs are ahead in the queue; the job waits "
    "its turn, whatever the free GPUs are.",
    "Resources": "Resources means this job is first in line and waits only for enough GPUs "
    "to free up; no other job is ahead of it.",
    "QOSMaxGRESPerUser": "QOSMaxGRESPerUser is a per-user cap: the GPUs are there, but the "
    "user's running jobs plus this one pass the QOS limit.",
    "ReqNodeNotAvail": "ReqNodeNotAvail names nodes that are out of service (drained or down); "
    "they will not free up as other jobs finish.",
    "PartitionTimeLimit": "PartitionTimeLimit is not a usage cap that clears: the requested "
    "time exceeds the partition's MaxTime, so the job never starts until its limit is lowered.",
}


class SlurmPendingParams(Params):
    gres_type: GresType
    states: tuple[NodeState, ...] = Field(min_length=2, max_length=32)
    used: tuple[Annotated[int, Field(ge=0, le=GPUS)], ...]
    mine: tuple[bool, ...]
    reason: Reason
    job_nodes: int = Field(ge=1, le=32)
    job_gpus: int = Field(ge=1, le=GPUS)
    time_limit_h: int = Field(ge=1, le=720)
    user_gpu_limit: int = Field(ge=GPUS, le=512)
    job_id: int = Field(ge=1000, le=99_999_999)

    @model_validator(mode="after")
    def _consistent(self) -> SlurmPendingParams:
        if not len(self.states) == len(self.used) == len(self.mine):
            raise ValueError("states, used and mine must have one entry per node")
        for state, used, mine in zip(self.states, self.used, self.mine, strict=True):
            ok = {"idle": used == 0, "mixed": 0 < used < GPUS, "allocated": used == GPUS}
            if not ok.get(state, used == 0) or (mine and used == 0):
                raise ValueError(f"a {state} node cannot have {used} GPUs in use")
        return self


def free(p: SlurmPendingParams) -> list[int]:
    """GPUs a new job could get on each node (none on allocated, drained or down)."""
    return [
        GPUS - u if s in ("idle", "mixed") else 0 for s, u in zip(p.states, p.used, strict=True)
    ]


def fits(p: SlurmPendingParams, nodes: int, gpus: int) -> bool:
    return sum(f >= gpus for f in free(p)) >= nodes


def mine_running(p: SlurmPendingParams) -> int:
    return sum(u for u, m in zip(p.used, p.mine, strict=True) if m)


def _within_own_cap(p: SlurmPendingParams) -> SlurmPendingParams:
    """The drawn scene with the user's jobs trimmed to what their QOS let start: Slurm
    checks MaxTRESPerUser when a job starts, so the nodes they hold, taken in order, stop
    where one more would pass the cap (the rest belong to other users)."""
    mine, total = [], 0
    for used, m in zip(p.used, p.mine, strict=True):
        keep = m and total + used <= p.user_gpu_limit
        total += used if keep else 0
        mine.append(keep)
    return p.model_copy(update={"mine": tuple(mine)}) if tuple(mine) != p.mine else p


def describe(p: SlurmPendingParams) -> SystemDescription:
    """Scheduler invariants only: the user's running GPUs within their own QOS cap."""
    running = Cap("the user's running GPUs under MaxTRESPerUser", mine_running(p), p.user_gpu_limit)
    return SystemDescription(caps=(running,))


@register
class SlurmPendingJob(Template):
    slug = "slurm-pending-job"
    title = "Why is this Slurm GPU job pending?"
    family = "scheduling"
    lessons = ("scheduling-gpu-clusters", "platform-and-operations")
    skills = ("slurm", "operations", "slurm-pending-reasons")
    difficulty = 2
    version = 1
    Params = SlurmPendingParams
    feasibility = Feasibility((CAPS,), describe)

    def generate(self, rng: random.Random) -> SlurmPendingParams:
        reason = rng.choice(tuple(CLASS))  # drawn once, so the five are equally likely
        while True:
            n = rng.randint(6, 10)
            states = [rng.choice(("idle", "mixed", "allocated", "allocated")) for _ in range(n)]
            for k, state in zip(rng.sample(range(n), 2), ("mixed", rng.choice(OUT)), strict=True):
                states[k] = state
            if rng.random() < 0.4:
                states[rng.randrange(n)] = rng.choice(OUT)
            used = [{"idle": 0, "allocated": GPUS}.get(s, 0) for s in states]
            used = [
                rng.randint(1, 7) if s == "mixed" else u for s, u in zip(states, used, strict=True)
            ]
            mine = [u > 0 and rng.random() < 0.3 for u in used]
            whole = rng.random() < 0.6
            p = SlurmPendingParams(
                gres_type=rng.choice(tuple(ACCEL)),
                states=tuple(states),
                used=tuple(used),
                mine=tuple(mine),
                reason=reason,
                job_nodes=rng.randint(1, 3) if whole else 1,
                job_gpus=GPUS if whole else rng.choice((1, 2, 4)),
                time_limit_h=rng.choice(
                    (72, 96, 168) if reason == "PartitionTimeLimit" else (4, 12, 24, 48)
                ),
                user_gpu_limit=rng.choice((16, 24, 32)),
                job_id=rng.randint(400_000, 9_999_999),
            )
            p = _within_own_cap(p)
            if self._agrees(p):
                return p

    def _agrees(self, p: SlurmPendingParams) -> bool:
        """The scene shows the planted reason and no other."""
        request = p.job_nodes * p.job_gpus
        within = mine_running(p) + request <= p.user_gpu_limit
        now = fits(p, p.job_nodes, p.job_gpus)
        out = sum(s in OUT for s in p.states)
        if request > p.user_gpu_limit:  # over the cap on its own: it could never start
            return False
        return {
            "Resources": not now and within,
            "Priority": within and not fits(p, *self._top_request(p)),
            "QOSMaxGRESPerUser": now and not within and mine_running(p) > 0,
            "ReqNodeNotAvail": within and out >= p.job_nodes and p.job_gpus == GPUS,
            "PartitionTimeLimit": within,
        }[p.reason]

    def _top_request(self, p: SlurmPendingParams) -> tuple[int, int]:
        """Another user's job first in line (Priority variants): more whole nodes than are
        free, never more than the partition has."""
        return min(sum(f == GPUS for f in free(p)) + 1, len(p.states)), GPUS

    def solve(self, p: SlurmPendingParams) -> dict[str, Part]:
        return {
            "reason": choice_part("reason", CLASS[p.reason], CHOICES, "Why the job is pending"),
            "free_gpus": count_part("free_gpus", sum(free(p)), "GPUs free for a new job now"),
        }

    # --- the tool output ---------------------------------------------------------------

    def _target_nodes(self, p: SlurmPendingParams) -> list[int]:
        return [i + 1 for i, s in enumerate(p.states) if s in OUT][: p.job_nodes]

    def _lines(self, p: SlurmPendingParams) -> tuple[list[str], list[str]]:
        r = detail_rng(p)
        me = r.choice(USERS)
        others = [u for u in USERS if u != me]
        jid, reason = p.job_id, p.reason
        if p.reason == "ReqNodeNotAvail":
            reason += f", UnavailableNodes:{hostlist('gpu', self._target_nodes(p))}"

        def pd(jobid: int, user: str, hours: int, nodes: int, why: str) -> tuple:
            return (jobid, r.choice(NAMES), user, "PD", "0:00", fmt_hours(hours), nodes, why)

        rows = [pd(jid, me, p.time_limit_h, p.job_nodes, f"({reason})")]
        if p.reason == "Priority":  # another user's job is first in line
            top = self._top_request(p)[0]
            rows.insert(0, pd(jid - r.randint(5, 90), r.choice(others), 48, top, "(Resources)"))
        if r.random() < 0.5:
            rows.append(pd(jid + r.randint(3, 60), r.choice(others), 24, 1, "(Priority)"))
        running, i = [], 0
        while i < len(p.states):
            span = 1 if p.used[i] else 0
            if p.states[i] == "allocated":  # whole-node jobs may span neighbours
                while (
                    span < r.randint(1, 3)
                    and i + span < len(p.states)
                    and p.states[i + span] == "allocated"
                    and p.mine[i + span] == p.mine[i]
                ):
                    span += 1
            if span:
                hours = r.choice((12, 24, 48))
                user = me if p.mine[i] else r.choice(others)
                took = fmt_elapsed(r.randint(120, hours * 3600 - 60))
                where = hostlist("gpu", list(range(i + 1, i + span + 1)))
                job = (jid - r.randint(100, 9000), r.choice(NAMES), user, "R", took)
                running.append((*job, fmt_hours(hours), span, where))
            i += max(span, 1)
        squeue = squeue_table(rows + sorted(running))
        return squeue, sinfo_table(p.gres_type, GPUS, p.states, p.used)

    def _user(self, p: SlurmPendingParams) -> str:
        return detail_rng(p).choice(USERS)

    def statement(self, p: SlurmPendingParams) -> str:
        squeue, sinfo = self._lines(p)
        wflag = ""
        if p.reason == "ReqNodeNotAvail":
            wflag = f" -w {hostlist('gpu', self._target_nodes(p))}"
        sbatch = (
            f"sbatch -p gpu -N {p.job_nodes} --gres=gpu:{p.gres_type}:{p.job_gpus} "
            f"--time={fmt_hours(p.time_limit_h)}{wflag} train.sh"
        )
        return (
            f"A Slurm cluster's `gpu` partition has {len(p.states)} nodes, each with "
            f"{GPUS} {accelerator_name(ACCEL[p.gres_type])} GPUs (gres "
            f"`gpu:{p.gres_type}:{GPUS}`). The partition's MaxTime is "
            f"`{fmt_hours(MAX_TIME_H)}`, and the QOS allows each user at most "
            f"{p.user_gpu_limit} GPUs in use at once (`MaxTRESPerUser=gres/gpu="
            f"{p.user_gpu_limit}`). User `{self._user(p)}` submitted job {p.job_id} with "
            f"`{sbatch}`, and it is still pending:\n\n"
            + fence(squeue)
            + "\n\n"
            + fence(sinfo)
            + "\n\n"
            f"1. Why is job {p.job_id} pending? Answer one of: **resources** (it is next in "
            "line and waits for GPUs to free up), **priority** (other jobs are ahead of it), "
            "**limit** (a QOS or account cap on GPUs in use is reached), **unavailable** "
            "(nodes it needs are drained or down), **invalid** (the "
            "partition will never run it as submitted).\n"
            "2. How many GPUs in the partition could the scheduler give to a new job right "
            "now?"
        )

    def solution(self, p: SlurmPendingParams) -> str:
        f = free(p)
        idle = [f"gpu{k:03d}" for k, s in enumerate(p.states, 1) if s == "idle"]
        mixed = [
            (f"gpu{k:03d}", GPUS - u)
            for k, (s, u) in enumerate(zip(p.states, p.used, strict=True), 1)
            if s == "mixed"
        ]
        out = [f"gpu{k:03d} ({s})" for k, s in enumerate(p.states, 1) if s in OUT]
        request = p.job_nodes * p.job_gpus
        have = sum(x >= p.job_gpus for x in f)
        now = (
            f"only {have} node(s) have that many free now" if have else "no node has that many free"
        )
        verb = "does" if len(out) == 1 else "do"
        why = {
            "Resources": (
                f"`Resources` means the job is first in line and waits only for hardware. It "
                f"needs {p.job_nodes} node(s) with {p.job_gpus} free GPUs each; {now}."
            ),
            "Priority": (
                "`Priority` means jobs of higher priority are ahead of it: the job on top "
                "waits with `Resources`, and this one queues behind it (backfill starts it "
                "early only if it would not delay that job)."
            ),
            "QOSMaxGRESPerUser": (
                f"`QOSMaxGRESPerUser` is a cap, not a shortage: `{self._user(p)}` already "
                f"runs {mine_running(p)} GPUs, and {mine_running(p)} + {request} is more "
                f"than the {p.user_gpu_limit} the QOS allows, although free GPUs would fit "
                "the job. It starts when the user's own jobs release GPUs."
            ),
            "ReqNodeNotAvail": (
                "`ReqNodeNotAvail` lists the nodes the job named with `-w`; `sinfo` shows "
                "them drained or down, so no amount of waiting in the queue helps "
                "until an administrator returns them (or the job drops `-w`)."
            ),
            "PartitionTimeLimit": (
                f"`PartitionTimeLimit`: the job asks for `{fmt_hours(p.time_limit_h)}`, "
                f"longer than the partition's MaxTime of `{fmt_hours(MAX_TIME_H)}`. It will "
                "never start as submitted; lower `--time` with `scontrol update`."
            ),
        }[p.reason]
        terms = [f"{GPUS} ({n})" for n in idle] + [f"{x} ({n})" for n, x in mixed]
        return (
            f"**1.** {why} Answer **{CLASS[p.reason]}**.\n\n"
            "**2.** A new job can use the GPUs of idle nodes, all 8, and on mixed nodes "
            "the configured 8 minus the count in GRES_USED. Allocated nodes have none left, "
            f"and drained or down nodes take no new work: {', '.join(out)} {verb} not count.\n\n"
            f"Free GPUs: {' + '.join(terms)} = **{sum(f)}**."
        )

    def misconceptions(self, p: SlurmPendingParams) -> list[Misconception]:
        answer = sum(free(p))
        code, value = REASON_SLIPS[p.reason]
        out = [Misconception(code, "reason", value, REASON_FEEDBACK[p.reason])]
        n_out = sum(s in OUT for s in p.states)
        idle_only = GPUS * sum(s == "idle" for s in p.states)
        counts = [
            (
                "drained-counted-idle",
                answer + GPUS * n_out,
                "Drained and down nodes show 0 GPUs in use, but they accept no new jobs: "
                "leave their GPUs out.",
            ),
            (
                "mixed-ignored",
                idle_only,
                "Mixed nodes still have free GPUs: 8 minus the number in GRES_USED.",
            ),
            (
                "used-read-as-free",
                idle_only + sum(u for s, u in zip(p.states, p.used, strict=True) if s == "mixed"),
                "GRES_USED counts GPUs in use; the free ones are the configured 8 minus that.",
            ),
        ]
        seen = {answer}
        for code, value, feedback in counts:
            if value not in seen:
                out.append(Misconception(code, "free_gpus", value, feedback))
                seen.add(value)
        return out
