"""Mastery learns only from honest evidence, in the caller's transaction.

Evidence is the answer a learner gave unaided and that counts: with immediate feedback
the first try of each part (later tries follow the feedback on it, and a reveal shows
the answer); with deferred feedback the last saved answer of each part, held back until
the learner may see their grades (applied at the finish, the expiry or the quiz's
close). Replays, later tries and tries after a reveal change nothing, and neither does
an answer given after a hint on its question (`unaided`): the hint showed part of the
worked solution, whichever part it was asked from. Each evidence
response is marked `evidence=True`, which is what `fit_mastery` reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from api_common.rows import execute_together, fetch, insert_rows_statement
from assess import skills as skill_map
from assess.mastery import bkt
from assess.models import Attempt, MasteryEvent, Question, Quiz, Response, SkillMastery
from assess.policy import grades_visible
from assess.scoring import Rules, counted_responses
from assess.signals import grade_released_on_commit, progress_recorded_on_commit


def unaided(response: Response, question: Question) -> bool:
    """Was the answer given before any hint on its question? (Question.hinted_at is the
    first hint's time; an answer stored after it followed the hint.)"""
    return question.hinted_at is None or response.created_at < question.hinted_at


def _evidence_part(response: Response, question: Question) -> bool:
    """Is this part's answer evidence of its question's skills (assess.skills)?"""
    names = [p["name"] for p in question.answers]
    return response.part in skill_map.evidence_parts(question.template_slug, names)


def _params_for(part: dict | None) -> bkt.BKTParams:
    """A choice part is easier to guess (1/n); other kinds use the numeric defaults."""
    if part and part.get("kind") == "choice" and len(part.get("choices") or ()) >= 2:
        return bkt.params_for_kind("choice", len(part["choices"]))
    return bkt.DEFAULT_PARAMS


def _rows_sql(n: int, on_conflict: str, returning: str = "") -> str:
    table = connection.ops.quote_name(SkillMastery._meta.db_table)
    values = ", ".join(["(%s, %s, %s, %s, %s)"] * n)
    # the table name from the model's metadata; every value is a bound parameter
    return (
        f"INSERT INTO {table} AS m (learner_id, skill, p_mastery, responses, updated_at) "  # noqa: S608
        f"VALUES {values} ON CONFLICT (learner_id, skill) DO UPDATE SET {on_conflict}{returning}"
    )


def _rows_params(learner_id: int, rows: dict[str, tuple[float, int]], now: datetime) -> list:
    when = SkillMastery._meta.get_field("updated_at").get_db_prep_save(now, connection)
    params: list = []
    for skill, (p, count) in rows.items():
        params += [learner_id, skill, p, count, when]
    return params


def _locked_rows(learner_id: int, skills: Sequence[str], now: datetime) -> dict[str, tuple]:
    """{skill: (p_mastery, responses)}: the learner's rows for these skills (sorted),
    locked, a missing one created at p_init. One statement: an upsert whose conflict
    branch changes nothing but locks the row it met (waiting for a writer holding it)
    and returns it as that writer committed it; rows are met in skill order, so two
    transactions lock shared rows in the same order. (Was: a locking read, and for a
    learner without the rows an insert and the read again.)"""
    fresh = {skill: (bkt.DEFAULT_PARAMS.p_init, 0) for skill in skills}
    sql = _rows_sql(len(fresh), "responses = m.responses", " RETURNING skill, p_mastery, responses")
    return {
        skill: (p, count) for skill, p, count in fetch(sql, _rows_params(learner_id, fresh, now))
    }


_SET_NEW = (
    "p_mastery = excluded.p_mastery, responses = excluded.responses, "
    "updated_at = excluded.updated_at"
)
# A first try's step of a skill row (alias m), written only if the row's answer count is
# still the one it was stepped from (mastery_apply_first_try says why).
GUARDED_STEP = f"{_SET_NEW} WHERE m.responses = excluded.responses - 1"


def _rows_write(learner_id: int, rows: dict[str, tuple[float, int]], now: datetime) -> tuple:
    """(sql, params) storing the rows' new values (the caller holds their locks:
    _locked_rows)."""
    return _rows_sql(len(rows), _SET_NEW), _rows_params(learner_id, rows, now)


def _event(learner_id: int, skill: str, before: float, after: float, response_id, now) -> dict:
    """A MasteryEvent row, by attname (insert_rows_statement, or MasteryEvent(**row))."""
    return {
        "learner_id": learner_id,
        "skill": skill,
        "p_before": before,
        "p_after": after,
        "response_id": response_id,
        "created_at": now,
    }


def _mark_evidence(responses: Sequence[Response]) -> tuple:
    """(sql, params) marking the responses as evidence; marks the instances now."""
    table = connection.ops.quote_name(Response._meta.db_table)
    marks = ", ".join(["%s"] * len(responses))
    for response in responses:
        response.evidence = True
    sql = f"UPDATE {table} SET evidence = %s WHERE id IN ({marks})"  # noqa: S608
    return sql, [True, *(r.pk for r in responses)]


def mastery_apply(
    *,
    learner_id: int,
    evidence: Sequence[tuple[Response, Question]],
    reason: str = "mastery",
    quiz_id: int | None = None,
) -> int:
    """One BKT step per skill for each (response, question), in the given order; marks
    each response as evidence and logs one MasteryEvent per skill; returns the events
    logged. However many responses and skills there are: the rows read and locked, then
    the rows written, the responses marked and the events logged, one statement on
    PostgreSQL (api_common.rows.execute_together), three on SQLite. Call inside a
    transaction.

    `reason` is the progress signal's: "mastery" lets a listener dismiss the change when
    no skill crossed a threshold; an attempt's release says "attempt" and names its quiz
    (`quiz_id`): the end of a track's exam is always evaluated (a passed certification
    exam certifies a learner already past every threshold)."""
    items = [(r, q, skill_map.template_skills(q.template_slug)) for r, q in evidence]
    skills = sorted({s for _, _, ss in items for s in ss})
    if not items:
        return 0
    now = timezone.now()
    rows = _locked_rows(learner_id, skills, now) if skills else {}
    first_p = {skill: p for skill, (p, _) in rows.items()}
    events = []
    for response, question, its_skills in items:
        params = _params_for(question.part(response.part))
        for skill in its_skills:
            before, count = rows[skill]
            after = bkt.update_score(before, response.score, params)
            rows[skill] = (after, count + 1)
            events.append(_event(learner_id, skill, before, after, response.pk, now))
    progress_recorded_on_commit(
        user_id=learner_id,
        reason=reason,
        changes={skill: (first_p[skill], p) for skill, (p, _) in rows.items()},
        quiz_id=quiz_id,
    )
    unmarked = [r for r, _, _ in items if not r.evidence]
    writes = [
        *([_rows_write(learner_id, rows, now)] if rows else []),
        *([_mark_evidence(unmarked)] if unmarked else []),
        *([insert_rows_statement(MasteryEvent, events)] if events else []),
    ]
    execute_together(writes)
    return len(events)


def mastery_release_attempt(*, attempt: Attempt, now: datetime | None = None) -> int:
    """Apply a deferred-feedback attempt's counted answers to mastery once the learner
    may see their grades; returns how many answers were applied. Idempotent: the attempt
    row is locked and stamped, so a second call (or a racing task) applies nothing.
    Immediate-feedback attempts learned as they went: they are only stamped."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = (
            Attempt.objects.select_for_update(of=("self",))
            .select_related("quiz")
            .get(pk=attempt.pk)
        )
        questions = list(locked.questions.filter(active=True))
        responses = list(locked.responses.filter(question__active=True))
        return mastery_release_locked(locked, now=now, questions=questions, responses=responses)


def mastery_release_locked(
    locked: Attempt,
    *,
    now: datetime,
    questions: list[Question],
    responses: list[Response],
    save: bool = True,
) -> int:
    """mastery_release_attempt's decision and writes, for a caller that holds the
    attempt's lock in its transaction and read its active questions and their
    responses already (the finish). save=False leaves the attempt's stamp
    (mastery_applied_at) to the caller's own save of the row."""
    if locked.mastery_applied_at is not None or locked.is_open:
        return 0
    if not grades_visible(attempt=locked, now=now):
        return 0
    applied = 0
    if locked.quiz.feedback_deferred:
        by_pk = {q.pk: q for q in questions}
        counted = sorted(
            (
                r
                for r in counted_responses(responses, Rules(deferred=True))
                if unaided(r, by_pk[r.question_id]) and _evidence_part(r, by_pk[r.question_id])
            ),
            key=lambda r: (r.created_at, r.id),
        )
        mastery_apply(
            learner_id=locked.learner_id,
            evidence=[(r, by_pk[r.question_id]) for r in counted],
            reason="attempt",
            quiz_id=locked.quiz_id,
        )
        applied = len(counted)
    locked.mastery_applied_at = now
    if save:
        locked.save(update_fields=["mastery_applied_at"])
    grade_released_on_commit(
        attempt_id=locked.pk, quiz_id=locked.quiz_id, user_id=locked.learner_id
    )
    if not applied:  # mastery_apply signalled already ("attempt") when it applied answers
        progress_recorded_on_commit(
            user_id=locked.learner_id, reason="attempt", quiz_id=locked.quiz_id
        )
    return applied


def mastery_release_due(*, now: datetime | None = None) -> int:
    """Release every closed attempt whose grades became visible (a quiz with feedback
    after its close, once it has closed for everyone, extensions included); the beat
    task calls this. Returns answers applied."""
    now = now or timezone.now()
    # Only attempts whose grades can be visible now: an after_attempt quiz's (released at
    # the finish already, unless that failed) and a closed after_close quiz's. Attempts
    # of quizzes still open are not read at all, however many pile up.
    due = (
        Attempt.objects.filter(mastery_applied_at__isnull=True)
        .exclude(status=Attempt.Status.OPEN)
        .filter(
            Q(quiz__feedback=Quiz.Feedback.AFTER_ATTEMPT)
            | (
                # Closed for everyone: the quiz's own close and its latest extended one
                # (Quiz.closed_for_all_at, as grades_visible reads it).
                Q(quiz__feedback=Quiz.Feedback.AFTER_CLOSE, quiz__closes_at__lte=now)
                & (Q(quiz__extended_until__isnull=True) | Q(quiz__extended_until__lte=now))
            )
        )
    )
    applied = 0
    for attempt in due.select_related("quiz"):
        if grades_visible(attempt=attempt, now=now):
            applied += mastery_release_attempt(attempt=attempt, now=now)
    return applied


def first_try_steps(
    *, question: Question, part: str, score: float, read: dict[str, tuple]
) -> dict[str, tuple[float, float, int]]:
    """{skill: (p before, p after, answers after)} for a first try of `part` scoring
    `score`, stepped from the rows as `read` holds them ({skill: (p_mastery,
    responses)}; a skill missing has no row yet), in skill order (the order the rows
    are locked in). Pure: no statement."""
    params = _params_for(question.part(part))
    steps = {}
    for skill in sorted(skill_map.template_skills(question.template_slug)):
        before, count = read.get(skill, (bkt.DEFAULT_PARAMS.p_init, 0))
        steps[skill] = (before, bkt.update_score(before, score, params), count + 1)
    return steps


def mastery_apply_first_try(
    *,
    learner_id: int,
    response: Response,
    question: Question,
    steps: dict[str, tuple[float, float, int]],
) -> None:
    """mastery_apply for the answer path's one first try, in two statements: one upsert
    of the template's skill rows and one INSERT of their events. `steps` are the rows'
    steps (first_try_steps) from the rows as the caller read them under the attempt's
    lock, not under the rows' own: the upsert writes a row only if its answer count is
    still the one read, so a row that another attempt of the same learner stepped
    meanwhile (two tabs) is never overwritten with a stale step. Such rows, rare, are
    read again under their locks and stepped from there. `response` is stored already,
    marked as evidence. (On PostgreSQL the answer path writes the response, the upsert
    and the events in one statement instead: services.first_tries.)"""
    if not steps:
        return
    now = timezone.now()
    written = _upsert_steps(learner_id, steps, now)
    mastery_first_try_settle(
        learner_id=learner_id,
        response=response,
        question=question,
        steps=steps,
        written=written,
        logged=False,
        now=now,
    )


def mastery_first_try_settle(
    *,
    learner_id: int,
    response: Response,
    question: Question,
    steps: dict[str, tuple[float, float, int]],
    written: set[str],
    logged: bool,
    now: datetime,
) -> None:
    """After a first try's guarded upsert (`written`: the skills it wrote): step again,
    under their own locks, the rows it refused (another attempt of the learner stepped
    them since they were read), log the events not logged yet (`logged`: the written
    skills' events are in already) and signal the change. `steps` is updated to what
    was stored."""
    stale = [skill for skill in steps if skill not in written]
    if stale:
        params = _params_for(question.part(response.part))
        for row in (
            SkillMastery.objects.select_for_update()
            .filter(learner_id=learner_id, skill__in=stale)
            .order_by("skill")
        ):
            after = bkt.update_score(row.p_mastery, response.score, params)
            steps[row.skill] = (row.p_mastery, after, row.responses + 1)
            SkillMastery.objects.filter(pk=row.pk).update(
                p_mastery=after, responses=row.responses + 1, updated_at=now
            )
    # Through the ORM: on PostgreSQL only the rare refused rows' events are left to log
    # here, and SQLite, which logs them all here, serves no real traffic.
    MasteryEvent.objects.bulk_create(
        [
            MasteryEvent(**_event(learner_id, skill, before, after, response.pk, now))
            for skill, (before, after, _) in steps.items()
            if not logged or skill in stale
        ]
    )
    progress_recorded_on_commit(
        user_id=learner_id,
        reason="mastery",
        changes={skill: (before, after) for skill, (before, after, _) in steps.items()},
    )


def _upsert_steps(learner_id: int, steps: dict[str, tuple], now: datetime) -> set[str]:
    """Insert or step each skill row unless its answer count moved since it was read
    (the count is the row's version: every write of a step raises it by one); returns
    the skills written."""
    sql = _rows_sql(len(steps), GUARDED_STEP, " RETURNING skill")
    rows = {skill: (after, count) for skill, (_, after, count) in steps.items()}
    return {skill for (skill,) in fetch(sql, _rows_params(learner_id, rows, now))}
