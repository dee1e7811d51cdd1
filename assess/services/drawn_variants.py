"""Questions drawn ahead of their starts: filling the pool, and handing it out.

When an exam opens, its learners press Start within the same second, and a start that
draws and renders its questions itself (1.5-3 ms of Python each) queues the whole burst
behind it (bench/README.md, "Exam openings in bursts"). An exam's or a homework's
variants do not depend on who takes them (their seed is an HMAC of the slot and a count
of the pool's own: questions.drawn_seed), so they are drawn here beforehand: when the
quiz is published (a task, after the commit) and by the beat's top-up every minute from
an hour before its opening to an hour after, for as many learners of its course as have
not started it yet plus a margin, at most CAP a slot; the beat drops the pools of quizzes
closed or taken back to draft.
A start takes one waiting variant per slot and draws live only for a slot whose pool is
empty or out of date (its template changed or left the registry since): on PostgreSQL
the statement that claims them also stores them as the attempt's questions
(drawn_questions_store), on SQLite they are claimed (drawn_claim), built and inserted.
Practice quizzes and lesson practice draw their variants as asked, and a certification
exam keeps assembling each attempt for its learner (fresh_variants: no
variant the learner has seen), so neither has a pool.
"""

from __future__ import annotations

import functools
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from api_common.rows import Columns, fetch
from assess import skills as skill_map
from assess.models import Attempt, DrawnVariant, Enrolment, Question, Quiz, Slot
from assess.policy import hints_offered
from assess.services.questions import VARIANT_COLUMNS, drawn_seed, variant_columns, variant_draw
from problems.engine import registry
from problems.engine.hints import hints_for

POOLED_MODES = (Quiz.Mode.EXAM, Quiz.Mode.HOMEWORK)
# Waiting variants a slot keeps beyond its course's learners who have not started yet.
MARGIN = 20
# At most this many per slot, whatever the course's size (a row is a rendered question,
# 2-4 kB: a full pool of a 5-question exam is 10-20 MB); starts beyond it draw live until
# the beat tops the pool up again.
CAP = 1000
# Draws per run of the filler (a few seconds of a worker's time); the beat's next run
# goes on where it stopped.
BATCH = 4000
# The beat fills a quiz's pool from LEAD before its opening to WINDOW after it: when its
# learners arrive together. Later starts trickle in, and draw live once the pool is gone.
LEAD = timedelta(hours=1)
WINDOW = timedelta(hours=1)


def pooled(quiz: Quiz) -> bool:
    """Does a start of this quiz take drawn variants (module docstring)?"""
    return quiz.mode in POOLED_MODES and not quiz.adaptive


def _fillable(quiz: Quiz) -> bool:
    """Is its pool drawn now: pooled and published (a draft's would be thrown away)."""
    return pooled(quiz) and quiz.status == Quiz.Status.PUBLISHED


def drawn_wanted(quiz: Quiz) -> int:
    """How many variants each slot of the quiz should have waiting: one for each learner
    of its course with no attempt on it yet, plus MARGIN, at most CAP."""
    if quiz.course_id is None:
        return MARGIN
    learners = Enrolment.objects.filter(course_id=quiz.course_id).count()
    started = Attempt.objects.filter(quiz=quiz).values("learner_id").distinct().count()
    return min(CAP, max(learners - started, 0) + MARGIN)


def variants_predraw(*, quiz: Quiz, wanted: int | None = None, budget: int | None = None) -> int:
    """Draw variants for the quiz's slots until each has `wanted` waiting (drawn_wanted
    if None), at most `budget` in all (BATCH if None); returns how many were drawn. Two
    runs at once draw different numbers (_reserve), so at worst a little more than
    wanted; no number, and so no seed, is ever drawn twice for a slot."""
    if not _fillable(quiz):
        return 0
    wanted = drawn_wanted(quiz) if wanted is None else wanted
    budget = BATCH if budget is None else budget
    slots = list(Slot.objects.filter(quiz=quiz).annotate(waiting=Count("drawn_variants")))
    drawn = 0
    for i, slot in enumerate(slots):
        pool = skill_map.known_templates(slot.templates)
        # The budget shared evenly among the slots left: a run cut short by it leaves
        # every slot with some waiting, never the first ones full and the last empty.
        missing = min(wanted - slot.waiting, (budget - drawn) // (len(slots) - i))
        if not pool or missing <= 0:
            continue
        first = _reserve(slot, missing)
        rows = [_drawn_row(slot, number, pool) for number in range(first, first + missing)]
        DrawnVariant.objects.bulk_create(rows, batch_size=200)
        drawn += len(rows)
    return drawn


def _reserve(slot: Slot, n: int) -> int:
    """The first of the next `n` numbers of the slot's draws, reserved on its row (a
    racing fill waits for this short transaction, then reserves the numbers after)."""
    with transaction.atomic():
        rows = Slot.objects.filter(pk=slot.pk)
        rows.update(variants_drawn=F("variants_drawn") + n)
        return rows.values_list("variants_drawn", flat=True).get() - n + 1


def _drawn_row(slot: Slot, number: int, pool: list[str]) -> DrawnVariant:
    seed, variant = variant_draw(
        lambda again: drawn_seed(slot_id=slot.pk, number=number, again=again),
        template_slug=None,
        pool=pool,
    )
    return DrawnVariant(
        slot=slot,
        number=number,
        seed=seed,
        hint_count=len(hints_for(variant)),
        **variant_columns(variant),
    )


def pools_top_up(*, now: datetime | None = None, budget: int | None = None) -> int:
    """The beat's run: fill the pools of published exams and homework whose opening is
    within LEAD ahead or WINDOW behind (when their learners arrive together; a quiz with
    no opening date opened when it was published, and its publish's task filled it),
    then drop the pools no start can take any more (pools_prune). Returns how many
    variants were drawn (at most `budget`)."""
    now = now or timezone.now()
    budget = BATCH if budget is None else budget
    quizzes = Quiz.objects.filter(
        Q(closes_at__isnull=True) | Q(closes_at__gt=now),
        opens_at__gte=now - WINDOW,
        opens_at__lte=now + LEAD,
        status=Quiz.Status.PUBLISHED,
        mode__in=POOLED_MODES,
        adaptive=False,
    ).order_by("opens_at", "pk")
    drawn = 0
    for quiz in quizzes.iterator():
        if drawn >= budget:
            break
        drawn += variants_predraw(quiz=quiz, budget=budget - drawn)
    pools_prune(now=now)
    return drawn


def pools_prune(*, now: datetime | None = None) -> int:
    """Delete the waiting variants of quizzes no learner can start any more: closed for
    everyone (extensions included) or taken back to draft. Returns how many."""
    now = now or timezone.now()
    over = Q(slot__quiz__closes_at__lte=now) & (
        Q(slot__quiz__extended_until__isnull=True) | Q(slot__quiz__extended_until__lte=now)
    )
    unpublished = ~Q(slot__quiz__status=Quiz.Status.PUBLISHED)
    deleted, _ = DrawnVariant.objects.filter(over | unpublished).delete()
    return deleted


def predraw_after_commit(quiz: Quiz) -> None:
    """Queue a published quiz's first fill (a draft: nothing) once the transaction
    publishing or saving it commits, where a worker can draw it (settings.PREDRAW_VARIANTS:
    on when a broker is configured; with Celery in-process the publish itself would wait
    for the drawing, so the starts draw their own, as they always did)."""
    if not settings.PREDRAW_VARIANTS or not _fillable(quiz):
        return
    from config.celery import queue

    pk = quiz.pk
    transaction.on_commit(
        lambda: queue("assess.tasks.predraw_variants", pk, what=f"predraw of quiz {pk}")
    )


# ------------------------------------------------------------------- handing them out


# PostgreSQL: a row another start holds is skipped, so a burst of starts never queues on
# one row (each takes the next); SQLite's writers take the database in turn.
_SKIP_HELD = " FOR UPDATE SKIP LOCKED"


@functools.cache
def _claim_statement() -> tuple[str, Columns]:
    table = connection.ops.quote_name(DrawnVariant._meta.db_table)
    columns = Columns(DrawnVariant, DrawnVariant._meta.db_table)
    lock = _SKIP_HELD if connection.vendor == "postgresql" else ""
    # identifiers from the models' metadata; the quiz's id is a bound parameter.
    sql = f"DELETE FROM {table} WHERE id IN ({_pick_sql(lock)}) RETURNING {columns.sql}"  # noqa: S608
    return sql, columns


def _pick_sql(lock: str) -> str:
    """The ids of the quiz's (a bound parameter) waiting variants to take: each slot's
    lowest-numbered, `lock` (PostgreSQL: skipping one another start holds)."""
    quote = connection.ops.quote_name
    table, slots = quote(DrawnVariant._meta.db_table), quote(Slot._meta.db_table)
    # identifiers from the models' metadata
    return (
        f"SELECT (SELECT d.id FROM {table} d WHERE d.slot_id = s.id "  # noqa: S608
        f"ORDER BY d.number LIMIT 1{lock}) FROM {slots} s WHERE s.quiz_id = %s"
    )


# The question's columns a start fills from its claimed variant (the rest: the attempt,
# its order and the constants below).
_FROM_DRAWN = ("slot_id", "seed", *VARIANT_COLUMNS)


@functools.cache
def _claim_into_questions_statement() -> tuple[str, Columns]:
    quote = connection.ops.quote_name
    drawn = quote(DrawnVariant._meta.db_table)
    meta = Question._meta
    returned = Columns(Question, "q")
    taken = ", ".join(quote(c) for c in (*_FROM_DRAWN, "hint_count"))
    stored = [
        quote(meta.get_field(name).column)
        for name in ("attempt_id", "order", *_FROM_DRAWN, "variant_number", "active")
        + ("created_at", "hints", "hinted_at", "hint_total")
    ]
    picked = ", ".join(f"d.{quote(c)}" for c in _FROM_DRAWN)
    # identifiers from the models' metadata; every value is a bound parameter.
    sql = (
        f"WITH d AS (DELETE FROM {drawn} WHERE id IN ({_pick_sql(_SKIP_HELD)}) "  # noqa: S608
        f"RETURNING {taken}), "
        "w AS (SELECT * FROM unnest(%s::bigint[], %s::integer[], %s::text[]) "
        "AS w(slot_id, ord, slug)) "
        f"INSERT INTO {quote(meta.db_table)} AS q ({', '.join(stored)}) "
        f"SELECT %s, w.ord, {picked}, 0, true, %s, %s, NULL, "
        "CASE WHEN %s THEN d.hint_count END "
        "FROM d JOIN w ON w.slot_id = d.slot_id AND w.slug = d.template_slug "
        f"RETURNING {returned.sql}"
    )
    return sql, returned


def drawn_questions_store(*, attempt: Attempt, slots: list[Slot]) -> dict[int, Question]:
    """{slot id: stored question} for the new attempt's slots (in order: a question's
    order is its slot's place) that had a waiting variant still current, each taken out
    of the pool and stored as the slot's question by one statement (PostgreSQL only: a
    DELETE in a WITH). It does what drawn_claim, question_from_drawn and the questions'
    insert do step by step, without building the questions in Python and sending each
    variant's statement and solved parts back to the database (125 values for five
    questions): the claimed rows go from the pool's table to the questions' within the
    database. A variant of a template no longer in its slot is taken out and not stored;
    one whose template changed since it was drawn is stored, found here (the registry
    asked once per claimed variant, as question_from_drawn asks it) and deleted again: the
    caller draws either slot live, as after the claim. tests/assess/services/
    test_drawn_questions_store.py holds it to the step-by-step path."""
    # each (slot, template) once: a slot listing a template twice (the model's validator
    # refuses it, a bulk write would not) must not store its variant twice
    pairs = list(
        dict.fromkeys(
            (s.pk, order, slug) for order, s in enumerate(slots, start=1) for slug in s.templates
        )
    )
    sql, returned = _claim_into_questions_statement()
    field = Question._meta.get_field
    params = [
        attempt.quiz_id,
        *([list(c) for c in zip(*pairs, strict=True)] if pairs else [[], [], []]),
        attempt.pk,
        field("created_at").get_db_prep_save(timezone.now(), connection),
        field("hints").get_db_prep_save({}, connection),
        hints_offered(quiz=attempt.quiz),
    ]
    by_slot = {s.pk: s for s in slots}
    stored, stale = {}, []
    for row in fetch(sql, params):
        question = returned.load(row)
        if not _current(question.template_slug, question.template_version):
            stale.append(question.pk)
            continue
        question.attempt, question.slot = attempt, by_slot[question.slot_id]
        stored[question.slot_id] = question
    if stale:
        Question.objects.filter(pk__in=stale).delete()
    return stored


def _current(slug: str, version: int) -> bool:
    """Is `version` the template's current one (False for a slug the registry lost)?"""
    try:
        return registry.get(slug).version == version
    except KeyError:
        return False


def drawn_claim(*, quiz_id: int) -> dict[int, DrawnVariant]:
    """{slot id: variant} for the quiz's slots that had one waiting, each taken out of
    the pool (deleted) by this one statement: the caller's transaction keeps it, or
    gives it back by rolling back."""
    sql, columns = _claim_statement()
    claimed = [columns.load(row) for row in fetch(sql, [quiz_id])]
    return {row.slot_id: row for row in claimed}


def question_from_drawn(
    *, attempt: Attempt, slot: Slot, order: int, drawn: DrawnVariant | None
) -> Question | None:
    """An unsaved question from a claimed variant; None when there is none, or its
    template changed or left the slot's pool since it was drawn (the caller draws live)."""
    if drawn is None or drawn.template_slug not in slot.templates:
        return None
    if not _current(drawn.template_slug, drawn.template_version):
        return None
    return Question(
        attempt=attempt,
        slot=slot,
        order=order,
        seed=drawn.seed,
        variant_number=0,
        hint_total=drawn.hint_count if hints_offered(quiz=attempt.quiz) else None,
        **{column: getattr(drawn, column) for column in VARIANT_COLUMNS},
    )
