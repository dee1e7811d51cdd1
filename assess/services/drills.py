"""Incident drills in attempts: take an action, submit the diagnosis.

A drill question (problems.drills.question) is regenerated from its slug and seed; what
the learner did is its DrillStep rows, in order. Both writes run under the attempt's
lock (the answer path's, assess.selectors.locked), so the rules are decided on what is
stored: the attempt still open and before its deadline, the question the slot's active
variant, the drill not yet submitted.

- An action's output is the drill replayed from its initial state through every step
  taken so far and this one (so a drain or a reboot shows in every later look), stored
  as shown. A retried request with the same idempotency key returns the step it took:
  a network retry must not take a disruptive action twice and cost the safety point.
- The submission grades the five criteria at once (problems.drills.drill.grade) and
  stores one response per part, the learner's three choices and the two findings the
  service read from the action log (`time`, `safety`), each with the drill's own words
  as its feedback. A drill is submitted once, in every mode; a replay of the same
  submission returns it. Under immediate feedback the `fault` part is the drill's one
  piece of mastery evidence (problems.drills.question explains why); under deferred
  feedback nothing reaches mastery until the grades are released.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from api_common.service_errors import Conflict, IdempotencyMismatch, InvalidInput
from assess import skills as skill_map
from assess.models import Attempt, DrillStep, Question, Response
from assess.scoring import Rules
from assess.selectors.drills import drill_of, steps_of
from assess.selectors.locked import locked_state
from assess.services.first_tries import first_try_store
from assess.services.part_checks import check_question_of
from assess.services.responses import response_values
from problems.drills.drill import CRITERIA, Drill, grade
from problems.engine.variants import Variant

# Plenty for any drill (the expert paths take 2 to 6 actions); a bound on the rows and
# the replay a request can cost.
MAX_STEPS = 60
CHOSEN = ("fault", "location", "remedy")


@dataclass(frozen=True)
class ActResult:
    step: DrillStep
    replayed: bool


@dataclass(frozen=True)
class DrillSubmission:
    responses: list[Response]  # one per part, in the question's part order
    replayed: bool


def _checked_open(attempt: Attempt, question: Question, state, now: datetime) -> None:
    attempt.status, attempt.deadline = state.status, state.deadline
    if not attempt.is_open:
        raise Conflict("This attempt is finished; it takes no more actions or answers.")
    if attempt.past_deadline(now):
        raise Conflict("The deadline of this attempt has passed.")
    if not state.active:
        raise Conflict("This question was replaced by a new variant; work on that one.")


def _drill_or_refuse(attempt: Attempt, question: Question) -> Drill:
    check_question_of(attempt, question)
    drill = drill_of(question)
    if drill is None:
        raise InvalidInput("This question is not an incident drill.", field="question")
    return drill


def drill_act(
    *,
    attempt: Attempt,
    question: Question,
    action: str,
    idempotency_key: str,
    now: datetime | None = None,
) -> ActResult:
    """Take one action in the drill and store what it printed (see the module docstring).
    Conflict when the attempt or the drill takes no more actions; InvalidInput for an
    action the drill does not offer; IdempotencyMismatch for a key used with another."""
    now = now or timezone.now()
    drill = _drill_or_refuse(attempt, question)
    with transaction.atomic():
        state = locked_state(attempt=attempt, question=question, skills=())
        steps = steps_of(question)
        earlier = next((s for s in steps if s.idempotency_key == idempotency_key), None)
        if earlier is not None:
            if earlier.action != action:
                raise IdempotencyMismatch(
                    "This idempotency key was used for a different action; send a new key."
                )
            return ActResult(earlier, replayed=True)
        _checked_open(attempt, question, state, now)
        if state.tries:
            raise Conflict("This drill's diagnosis was submitted; it takes no more actions.")
        if len(steps) >= MAX_STEPS:
            raise Conflict(f"A drill takes at most {MAX_STEPS} actions; submit your diagnosis.")
        try:
            chosen = drill.action(action)
        except ValueError:
            raise InvalidInput(f"This drill offers no action {action!r}.", field="action") from None
        taken = [s.action for s in steps]
        output = drill.replay([*taken, action])[-1][1]
        step = DrillStep.objects.create(
            question=question,
            number=len(steps) + 1,
            action=chosen.id,
            label=chosen.label,
            target=chosen.target,
            minutes=chosen.minutes,
            disruptive=chosen.disruptive,
            output=output,
            idempotency_key=idempotency_key,
            created_at=now,
        )
    return ActResult(step, replayed=False)


def _findings(drill: Drill, taken: list[str], fault: str, location: str, remedy: str):
    """The graded drill, and the raw answer of each part: the three choices and the two
    findings read from the action log."""
    g = grade(drill, taken, (fault, location), remedy)
    diagnosed = g.points["fault"] > 0 and g.points["location"] > 0
    time = "in-time" if g.points["time"] else ("late" if diagnosed else "not-diagnosed")
    safety = "safe" if g.points["safety"] else "unneeded-disruption"
    raws = {"fault": fault, "location": location, "remedy": remedy, "time": time}
    return g, {**raws, "safety": safety}


def _replay_submission(attempt: Attempt, key: str, raws: dict[str, str]) -> DrillSubmission:
    stored = {
        r.part: r
        for r in Response.objects.filter(
            attempt_id=attempt.pk, idempotency_key__in=[f"{key}:{p}" for p in CRITERIA]
        )
    }
    if not stored:
        raise Conflict("This drill's diagnosis was submitted already; a drill is submitted once.")
    if any(stored[p].raw != raws[p] for p in CHOSEN if p in stored):
        raise IdempotencyMismatch(
            "This idempotency key was used for a different diagnosis; send a new key."
        )
    return DrillSubmission([stored[p] for p in CRITERIA if p in stored], replayed=True)


def drill_submit(
    *,
    attempt: Attempt,
    question: Question,
    fault: str,
    location: str,
    remedy: str,
    idempotency_key: str,
    now: datetime | None = None,
) -> DrillSubmission:
    """Grade and store the drill's diagnosis and remedy (see the module docstring).
    InvalidInput (naming the field) for a choice the drill does not list; Conflict when
    the attempt takes no more answers or the drill was submitted with another key."""
    now = now or timezone.now()
    drill = _drill_or_refuse(attempt, question)
    for field, value, listed in (
        ("fault", fault, drill.fault_kinds),
        ("location", location, drill.locations),
        ("remedy", remedy, drill.remedies),
    ):
        if value not in listed:
            raise InvalidInput(f"{value!r} is not one of this drill's {field} choices.", field)
    skills = skill_map.template_skills(question.template_slug)
    with transaction.atomic():
        state = locked_state(attempt=attempt, question=question, skills=skills)
        raws = {"fault": fault, "location": location, "remedy": remedy}
        if state.tries:
            return _replay_submission(attempt, idempotency_key, raws)
        _checked_open(attempt, question, state, now)
        taken = [s.action for s in steps_of(question)]
        g, raws = _findings(drill, taken, fault, location, remedy)
        variant = Variant.from_params(question.template_slug, question.params)
        deferred = Rules.of(attempt.quiz).deferred
        stored = []
        for part in CRITERIA:
            values = _values(attempt, question, part, raws[part], variant, g, now, idempotency_key)
            if part in drill_evidence_parts(question) and not deferred and not state.hinted:
                response = first_try_store(
                    learner_id=attempt.learner_id,
                    question=question,
                    values={**values, "evidence": True},
                    read=state.skill_rows,
                )
            else:
                response = _insert(values)
            if response is None:  # the key was used in this attempt for something else
                raise IdempotencyMismatch(
                    "This idempotency key was used in this attempt already; send a new key."
                )
            stored.append(response)
    return DrillSubmission(stored, replayed=False)


def drill_regraded(question: Question, responses: list[Response], variant: Variant) -> dict:
    """{part: the fields of its response regraded}: the learner's three choices as they
    were sent, the two findings read again from the steps against the drill as it is now
    (an expert path or weights changed since change them), the feedback in the drill's
    own words. For services.regrade; {} for a drill never submitted."""
    chosen = {r.part: r.raw for r in responses if r.part in CHOSEN}
    if set(chosen) != set(CHOSEN):
        return {}
    drill = drill_of(question)
    taken = [s.action for s in steps_of(question)]
    try:
        g, raws = _findings(drill, taken, chosen["fault"], chosen["location"], chosen["remedy"])
    except ValueError:  # a step's action is no longer offered
        return {}
    out = {}
    for part in CRITERIA:
        result = variant.grade(part, raws[part])
        out[part] = {
            "raw": raws[part],
            "valid": result.valid,
            "correct": result.correct if result.valid else False,
            "score": result.score if result.valid else 0.0,
            "misconception": "",
            "feedback": " ".join(g.notes[part]) or result.feedback,
        }
    return out


def _insert(values: dict) -> Response | None:
    """The response, or None when its key was used in this attempt already."""
    try:
        with transaction.atomic():
            return Response.objects.create(**values)
    except IntegrityError:
        return None


def drill_evidence_parts(question: Question) -> tuple[str, ...]:
    return skill_map.evidence_parts(question.template_slug, [p["name"] for p in question.answers])


def _values(attempt, question, part, raw, variant, g, now, key) -> dict:
    """The answer path's row for one criterion, with the drill's own words as feedback
    and the submission's key suffixed by the part (one key, five rows)."""
    result = variant.grade(part, raw)
    values = response_values(attempt, question, part, raw, result, now, None, f"{key}:{part}")
    return {**values, "misconception": "", "feedback": " ".join(g.notes[part]) or result.feedback}
