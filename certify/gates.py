"""The certification exam's lesson-mastery gate, on assess's attempt_starting signal:
assess starts attempts without knowing that tracks exist, and this app refuses a start
on its tracks' exams until their lessons are mastered."""

from __future__ import annotations

from api_common.service_errors import MasteryRequired
from assess.models import Quiz
from certify.selectors import exam_gate


def mastery_missing_message(track_title: str, lessons: tuple[str, ...]) -> str:
    named = "; ".join(lessons)
    return (
        f"The “{track_title}” certification exam opens once every skill of the track's "
        f"lessons is mastered. Still below the threshold: {named}. Practise those lessons "
        "first."
    )


def exam_mastery_gate(sender, *, quiz: Quiz, learner, **kwargs) -> None:
    """assess.signals.attempt_starting's receiver: MasteryRequired (409
    `lesson_mastery_required`) while the learner has not mastered the lessons of the track
    whose exam this is. The approved memo may come before or after the exam; mastery
    comes first, so the exam measures what was learnt."""
    if quiz.mode != Quiz.Mode.CERTIFICATION:
        return
    gate = exam_gate(quiz_id=quiz.pk, learner_id=learner.pk)
    if gate is None or gate.open:
        return
    lessons = tuple(lesson.title for lesson in gate.missing)
    raise MasteryRequired(mastery_missing_message(gate.track.title, lessons), lessons)
