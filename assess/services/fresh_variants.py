"""Certification exams show a learner only variants they have never been shown.

A certification must measure the skill, not the memory of an answer: no question of a
certification attempt repeats a (template, parameters) pair of any question the learner
was ever shown (practice, homework, exams, earlier certification attempts), nor another
question of the same attempt. A question whose draw was seen is redrawn with the next
`draw` index folded into its seed, which changes both the template chosen from the pool
and the variant; after MAX_DRAWS draws the slot's pool is taken as used up.

What the learner has seen is read in one query, whatever the number of questions, and
only for the templates the quiz can draw. Templates the certify app withholds (their
variants differ in difficulty) are left out of the pools that hold others, and once
the pools are calibrated certify assembles the form (which template each slot draws);
the fresh-variant rule then picks the variant of that template.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from api_common.service_errors import Conflict
from assess import skills as skill_map
from assess.models import Attempt, Question, Slot
from assess.services.questions import question_draw, question_from_variant
from assess.signals import certification_form_for, certification_withheld

# Redraws per slot before giving up. A pool with a few dozen unseen variants is almost
# surely found well within this; a pool the learner has all but exhausted is refused
# rather than searched without end.
MAX_DRAWS = 64

Pair = tuple[str, str]  # (template slug, canonical JSON of the parameters)


def _numbers_as_floats(value):
    """PostgreSQL's jsonb keeps numbers as numerics: 1e20 comes back as the integer
    100000000000000000000 and 2.50 may lose its trailing zero. Compared as floats, the
    stored and the freshly drawn spellings agree."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, dict):
        return {k: _numbers_as_floats(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_numbers_as_floats(v) for v in value]
    return value


def params_key(params) -> str:
    """The stored params JSON in one spelling, so equal parameters compare equal."""
    return json.dumps(_numbers_as_floats(params), sort_keys=True, separators=(",", ":"))


def is_fresh(slug: str, params, seen: set[Pair]) -> bool:
    """Pure: the pair was never shown to the learner (nor drawn earlier in the attempt)."""
    return (slug, params_key(params)) not in seen


def seen_pairs(*, learner, template_slugs: Iterable[str]) -> set[Pair]:
    """Every (slug, params) the learner was shown on these templates: one query."""
    rows = Question.objects.filter(
        attempt__learner=learner, template_slug__in=sorted(set(template_slugs))
    ).values_list("template_slug", "params")
    return {(slug, params_key(params)) for slug, params in rows}


def fresh_questions(*, attempt: Attempt, slots: Sequence[Slot]) -> list[Question]:
    """Unsaved questions for a new certification attempt, one per slot in order, each a
    variant the learner has not seen. Raises Conflict when a slot's draws run out."""
    pools = {slug for slot in slots for slug in skill_map.known_templates(slot.templates)}
    seen = seen_pairs(learner=attempt.learner, template_slugs=pools)
    withheld = certification_withheld(quiz=attempt.quiz)
    form = certification_form_for(
        quiz=attempt.quiz, attempt_id=attempt.pk, slots=list(slots), withheld=withheld
    )
    if form is not None and len(form) != len(slots):
        form = None  # not a form of this exam: draw from the pools
    questions = []
    for order, slot in enumerate(slots, start=1):
        for draw in range(MAX_DRAWS):
            # The assembled form's template, while its variants last; then the pool.
            imposed = form[order - 1] if form and draw < MAX_DRAWS // 2 else None
            seed, variant = question_draw(
                attempt_id=attempt.pk,
                slot=slot,
                order=order,
                variant_number=0,
                template_slug=imposed,
                draw=draw,
                withheld=withheld,
            )
            params = variant.params.model_dump(mode="json")
            if is_fresh(variant.template.slug, params, seen):
                break
        else:
            raise Conflict(
                f"No fresh variant is left for question {order} of this certification: "
                "you have seen the ones it could draw. Ask an instructor for a new pool."
            )
        seen.add((variant.template.slug, params_key(params)))
        questions.append(
            question_from_variant(
                attempt=attempt,
                slot=slot,
                order=order,
                variant_number=0,
                seed=seed,
                variant=variant,
            )
        )
    return questions
