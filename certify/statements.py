"""The certification reads every check and every readiness makes, written as SQL.

A certification check asks for one person on one track: the person (orgs.selectors),
the track with its exam, the track's lesson templates, then the person's certificates,
skill estimates, exam attempts with their decisions and approved memos. Built through
the ORM those seven statements took about 8 ms of a 12 ms request on a database that
ran each in a tenth of a millisecond (bench/README.md, issue 43: the check's p99 target
is 20 ms, missed on the machine's slow hours). Each is built once per process here and
its rows are loaded with the ORM's own converters and its IN lists filled by
api_common.rows.fetch_in, so what comes back
is what the queryset it replaced gave: tests/certify/test_check_reads.py holds each to
that queryset on both databases, and tests/api_common/test_sql_equivalence.py lists
them. A readiness of a whole team runs the same statements with longer IN lists.
"""

from __future__ import annotations

import functools

from api_common.rows import Columns
from api_common.rows import quoted as _q
from api_common.rows import table_of as _table
from assess.models import Attempt, Quiz
from capstone.models import Capstone, Memo, MemoDecision, MemoVersion
from certify.models import Certificate, ExamDecision, Track
from curricula.models import Course, Lesson, LessonTemplate, Module

EXAM_DECIDED = ("passed", "rule", "reason", "theta", "se", "cut")


@functools.cache  # built at first use, once the apps are loaded
def track_statement() -> tuple[Columns, Columns, str]:
    """A track by slug with its exam, as `tracks_all().get(slug=...)` reads them."""
    track, exam = Columns(Track, "t"), Columns(Quiz, "x")
    sql = (
        f"SELECT {track.sql}, {exam.sql} FROM {_table(Track)} t "  # noqa: S608
        f"JOIN {_table(Quiz)} x ON x.{_q('id')} = t.{_q('exam_id')} WHERE t.{_q('slug')} = %s"
    )
    return track, exam, sql


@functools.cache
def links_statement() -> str:
    """The lessons' templates of some tracks ({tracks}), in course, module, lesson and
    link order: (track id, lesson slug, lesson title, template)."""
    through = _q(Track.lessons.through._meta.db_table)
    return (
        f"SELECT tl.{_q('track_id')}, l.{_q('slug')}, l.{_q('title')}, "  # noqa: S608
        f"lt.{_q('template_slug')} FROM {_table(LessonTemplate)} lt "
        f"JOIN {_table(Lesson)} l ON l.{_q('id')} = lt.{_q('lesson_id')} "
        f"JOIN {through} tl ON tl.{_q('lesson_id')} = l.{_q('id')} "
        f"JOIN {_table(Module)} m ON m.{_q('id')} = l.{_q('module_id')} "
        f"JOIN {_table(Course)} c ON c.{_q('id')} = m.{_q('course_id')} "
        f"WHERE tl.{_q('track_id')} IN ({{tracks}}) "
        f"ORDER BY c.{_q('order')}, m.{_q('order')}, l.{_q('order')}, lt.{_q('order')}"
    )


@functools.cache
def certificates_statement() -> tuple[Columns, str]:
    """The certificates of some holders ({holders}) on some tracks ({tracks}), oldest
    issued first, their evidence snapshot left unread (deferred, as the queryset's
    `defer("evidence")`): a standing reads dates and states only."""
    kept = [f.attname for f in Certificate._meta.concrete_fields if f.name != "evidence"]
    columns = Columns(Certificate, "c", only=kept)
    sql = (
        f"SELECT {columns.sql} FROM {_table(Certificate)} c "  # noqa: S608
        f"WHERE c.{_q('holder_id')} IN ({{holders}}) AND c.{_q('track_id')} IN ({{tracks}}) "
        f"ORDER BY c.{_q('issued_at')}, c.{_q('id')}"
    )
    return columns, sql


@functools.cache
def attempts_statement() -> tuple[Columns, Columns, str]:
    """Some learners' ({learners}) attempts at some exams ({exams}), newest started
    first as the model orders them, each with its recorded decision when it has one
    (a LEFT JOIN to the one-to-one ExamDecision: its columns NULL otherwise)."""
    attempt = Columns(
        Attempt,
        "a",
        only=("id", "learner_id", "quiz_id", "status", "score", "finished_at", "deadline"),
    )
    decision = Columns(ExamDecision, "d", only=EXAM_DECIDED)
    sql = (
        f"SELECT {attempt.sql}, {decision.sql} FROM {_table(Attempt)} a "  # noqa: S608
        f"LEFT JOIN {_table(ExamDecision)} d ON d.{_q('attempt_id')} = a.{_q('id')} "
        f"WHERE a.{_q('learner_id')} IN ({{learners}}) AND a.{_q('quiz_id')} IN ({{exams}}) "
        f"ORDER BY a.{_q('started_at')} DESC, a.{_q('id')} DESC"
    )
    return attempt, decision, sql


@functools.cache
def approvals_statement() -> tuple[Columns, Columns, str]:
    """Approvals (an instructor's APPROVE decision) of some learners' ({learners}) memos,
    oldest first, with the approved version's number and scores: (learner id, decision,
    version). A version's Markdown, HTML and review stay unread."""
    decision = Columns(MemoDecision, "d", only=("memo_id", "created_at"))
    version = Columns(MemoVersion, "v", only=("number", "score", "max_score"))
    sql = (
        f"SELECT k.{_q('learner_id')}, {decision.sql}, {version.sql} "  # noqa: S608
        f"FROM {_table(MemoDecision)} d "
        f"JOIN {_table(Memo)} m ON m.{_q('id')} = d.{_q('memo_id')} "
        f"JOIN {_table(Capstone)} k ON k.{_q('id')} = m.{_q('capstone_id')} "
        f"JOIN {_table(MemoVersion)} v ON v.{_q('id')} = d.{_q('version_id')} "
        f"WHERE d.{_q('decision')} = %s AND k.{_q('learner_id')} IN ({{learners}}) "
        f"ORDER BY d.{_q('created_at')}, d.{_q('id')}"
    )
    return decision, version, sql
