"""Celery tasks for assess: thin and idempotent, they call services."""

from celery import shared_task

from assess.models import Quiz
from assess.services.attempts import attempts_expire
from assess.services.drawn_variants import pools_top_up, variants_predraw
from assess.services.mastery import mastery_release_due


@shared_task(name="assess.tasks.expire_attempts")
def expire_attempts() -> int:
    """Close attempts past their deadline; a second run (or a late one) changes nothing
    that the first did not, since each attempt is rechecked under its lock."""
    return attempts_expire()


@shared_task(name="assess.tasks.release_mastery")
def release_mastery() -> int:
    """Apply held exam answers to mastery once their grades are visible (quizzes whose
    feedback waits for their close). Idempotent: each attempt is stamped under its lock."""
    return mastery_release_due()


@shared_task(name="assess.tasks.predraw_variants")
def predraw_variants(quiz_id: int) -> int:
    """A published exam's or homework's first fill of drawn variants, batch after batch
    until every slot has what its course needs (at most CAP each). Idempotent: it draws
    only what the pool lacks."""
    quiz = Quiz.objects.filter(pk=quiz_id).first()
    total = 0
    while quiz is not None and (drawn := variants_predraw(quiz=quiz)):
        total += drawn
    return total


@shared_task(name="assess.tasks.top_up_variants")
def top_up_variants() -> int:
    """Keep the pools of exams and homework opening about now filled (a start takes from
    them, and one whose pool ran dry draws live), and drop those no start can take
    (services.drawn_variants)."""
    return pools_top_up()
