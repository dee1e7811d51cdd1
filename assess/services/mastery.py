"""Mastery: one BKT step per skill for every graded response, in the caller's transaction."""

from __future__ import annotations

from django.utils import timezone

from assess import skills as skill_map
from assess.mastery import bkt
from assess.models import MasteryEvent, Question, Response, SkillMastery


def _params_for(part: dict | None) -> bkt.BKTParams:
    """A choice part is easier to guess (1/n); other kinds use the numeric defaults."""
    if part and part.get("kind") == "choice" and len(part.get("choices") or ()) >= 2:
        return bkt.params_for_kind("choice", len(part["choices"]))
    return bkt.DEFAULT_PARAMS


def mastery_record_response(*, response: Response, question: Question) -> list[MasteryEvent]:
    """Update P(mastery) of each skill of the question's template with the response's
    score, and log one MasteryEvent per skill. Call inside the transaction that stored
    the response; a constant number of queries (the rows are locked, not counted).
    """
    skills = skill_map.template_skills(question.template_slug)
    if not skills:
        return []
    learner_id = response.attempt.learner_id
    params = _params_for(question.part(response.part))

    def locked() -> dict[str, SkillMastery]:
        # Sorted, so two transactions lock shared rows in the same order.
        qs = SkillMastery.objects.select_for_update().filter(
            learner_id=learner_id, skill__in=skills
        )
        return {row.skill: row for row in qs.order_by("skill")}

    rows = locked()
    if len(rows) < len(skills):
        # A concurrent first answer may create the same rows: ignore_conflicts, then lock.
        SkillMastery.objects.bulk_create(
            [
                SkillMastery(learner_id=learner_id, skill=s, p_mastery=bkt.DEFAULT_PARAMS.p_init)
                for s in skills
                if s not in rows
            ],
            ignore_conflicts=True,
        )
        rows = locked()
    now = timezone.now()
    events = []
    for skill in skills:
        row = rows[skill]
        before = row.p_mastery
        row.p_mastery = bkt.update_score(before, response.score, params)
        row.responses += 1
        row.updated_at = now
        events.append(
            MasteryEvent(
                learner_id=learner_id,
                skill=skill,
                p_before=before,
                p_after=row.p_mastery,
                response=response,
                created_at=now,
            )
        )
    SkillMastery.objects.bulk_update(list(rows.values()), ["p_mastery", "responses", "updated_at"])
    return MasteryEvent.objects.bulk_create(events)
