"""Load the track files into Track rows and their certification exams (assess.Quiz).

Idempotent like load_curricula: a second run with unchanged files changes nothing. The
exam quiz is the track's own (course None, mode certification, feedback after the
attempt); its slots follow the file by position. A slot that attempts already drew from
keeps its row (questions point at it) and only its pool and points change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from django.core.cache import cache
from django.db import transaction

from assess.models import Question, Quiz, Slot
from certify.models import Track
from certify.receivers import THRESHOLDS_KEY, TRACK_EXAMS_KEY
from certify.schema import TrackDataError, TrackRecord, load_track_files
from curricula.models import Lesson
from curricula.services import sync_fields


@dataclass
class TrackLoadReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    orphaned: list[str] = field(default_factory=list)  # in the database, not in the files

    def summary(self) -> str:
        return (
            f"{len(self.created)} created, {len(self.updated)} updated, "
            f"{len(self.unchanged)} unchanged"
            + (f", {len(self.orphaned)} no longer in the files (kept)" if self.orphaned else "")
        )


def _exam_values(record: TrackRecord) -> dict:
    exam = record.exam
    return {
        "title": f"Certification exam: {record.title}",
        "mode": Quiz.Mode.CERTIFICATION,
        "feedback": Quiz.Feedback.AFTER_ATTEMPT,
        "time_limit": timedelta(minutes=exam.time_limit_minutes),
        "pass_mark": exam.pass_mark,
        "cooldown": timedelta(days=exam.cooldown_days) if exam.cooldown_days else None,
        "attempts_allowed": None,
        "tries_per_part": None,
        "penalty_per_try": 0.0,
        "course": None,
    }


def _sync_slots(quiz: Quiz, record: TrackRecord) -> bool:
    changed = False
    existing = {slot.order: slot for slot in quiz.slots.all()}
    for order, question in enumerate(record.exam.questions, start=1):
        values = {"points": question.points, "templates": list(question.templates)}
        slot = existing.pop(order, None)
        if slot is None:
            Slot.objects.create(quiz=quiz, order=order, **values)
            changed = True
        else:
            changed |= sync_fields(slot, values)
    for slot in existing.values():
        if Question.objects.filter(slot=slot).exists():
            raise TrackDataError(
                f"{record.slug}.yaml: exam question {slot.order} was removed but attempts "
                "drew from it; keep it (change its pool) instead"
            )
        slot.delete()
        changed = True
    return changed


def _load_one(record: TrackRecord, lessons: dict[str, Lesson]) -> str:
    missing = [slug for slug in record.lessons if slug not in lessons]
    if missing:
        raise TrackDataError(
            f"{record.slug}.yaml: field 'lessons': unknown lesson(s) {', '.join(missing)} "
            "(load_curricula first)"
        )
    track = Track.objects.select_related("exam").filter(slug=record.slug).first()
    values = {
        "title": record.title,
        "summary": record.summary.strip(),
        "rotation": record.rotation,
        "order": record.order,
        "mastery_threshold": record.mastery_threshold,
        "requires_memo": record.requires_memo,
        "validity_days": record.validity_days,
        "reminder_days": record.reminder_days,
    }
    if track is None:
        exam = Quiz.objects.create(**_exam_values(record))
        track = Track.objects.create(slug=record.slug, exam=exam, **values)
        _sync_slots(exam, record)
        track.lessons.set([lessons[s] for s in record.lessons])
        return "created"
    changed = sync_fields(track, values)
    changed |= sync_fields(track.exam, _exam_values(record))
    changed |= _sync_slots(track.exam, record)
    wanted = {lessons[s].pk for s in record.lessons}
    if set(track.lessons.values_list("pk", flat=True)) != wanted:
        track.lessons.set(wanted)
        changed = True
    return "updated" if changed else "unchanged"


def tracks_load(*, data_dir: Path | str | None = None) -> TrackLoadReport:
    """Validate every file, then upsert every track in one transaction. Tracks that left
    the files are reported, not deleted: certificates point at them."""
    records = load_track_files(data_dir)
    lessons = {lesson.slug: lesson for lesson in Lesson.objects.all()}
    report = TrackLoadReport()
    with transaction.atomic():
        for record in records:
            getattr(report, _load_one(record, lessons)).append(record.slug)
        report.orphaned = list(
            Track.objects.exclude(slug__in=[r.slug for r in records]).values_list("slug", flat=True)
        )
    # The progress listener's cached thresholds follow the files at once in this process
    # (other processes within its TTL).
    cache.delete_many([THRESHOLDS_KEY, TRACK_EXAMS_KEY])
    return report
