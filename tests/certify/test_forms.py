"""A calibrated track's certification exam is assembled per attempt (certify.forms): the
questions drawn are the assembled form's templates, a flagged template stays out, and
before the pools are calibrated on enough answers each slot draws from its pool."""

from __future__ import annotations

import pytest

from assess.services.attempts import attempt_start
from certify.forms import form_for
from certify.models import Calibration, ItemParameters
from certify.services.exam_decisions import MIN_ITEM_RESPONSES
from tests.certify.conftest import set_mastery
from tests.factories import UserFactory

SERVING = "inference-serving-oncall"


def _pools(track) -> list[list[str]]:
    return [
        [t for t in s.templates]
        for s in track.exam.slots.order_by("order")
        if not s.templates[0].startswith("drill-")
    ]


def _calibrate(track, n: int = MIN_ITEM_RESPONSES, flagged: str | None = None) -> None:
    cal = Calibration.objects.create(
        learners=n, responses=n * 10, log_likelihood=-1.0, iterations=5, converged=True
    )
    templates = sorted({t for pool in _pools(track) for t in pool})
    ItemParameters.objects.bulk_create(
        ItemParameters(
            calibration=cal,
            template_slug=t,
            discrimination=0.7 + 0.03 * k,
            difficulty=-1.2 + 0.08 * k,
            se_discrimination=0.1,
            se_difficulty=0.1,
            n=n,
            variants_flagged=t == flagged,
        )  # fmt: skip
        for k, t in enumerate(templates)
    )


def _start(track):
    learner = UserFactory()
    set_mastery(learner, track)
    attempt, _ = attempt_start(quiz=track.exam, learner=learner)
    questions = list(attempt.questions.order_by("order"))
    return attempt, [q.template_slug for q in questions if not q.template_slug.startswith("drill-")]


def test_the_questions_are_the_assembled_forms_templates(tracks):
    track = tracks[SERVING]
    _calibrate(track)
    pools = _pools(track)
    forms = set()
    for _ in range(6):
        attempt, drawn = _start(track)
        form = form_for(track=track, pools=pools, withheld=frozenset(), attempt_id=attempt.pk)
        assert form is not None and form.meets
        assert drawn == list(form.templates)
        forms.add(tuple(drawn))
    assert len(forms) > 1  # forms vary from attempt to attempt


def test_a_flagged_template_is_left_out_of_the_assembled_form(tracks):
    track = tracks[SERVING]
    pools = _pools(track)
    _calibrate(track, flagged=pools[0][0])
    for _ in range(6):
        _, drawn = _start(track)
        assert drawn[0] == pools[0][1]


def test_before_enough_answers_each_slot_draws_from_its_pool(tracks):
    track = tracks[SERVING]
    _calibrate(track, n=MIN_ITEM_RESPONSES - 1)
    attempt, drawn = _start(track)
    pools = _pools(track)
    assert form_for(track=track, pools=pools, withheld=frozenset(), attempt_id=attempt.pk) is None
    assert all(t in pool for t, pool in zip(drawn, pools, strict=True))


@pytest.mark.django_db
def test_a_quiz_that_is_no_tracks_exam_gets_no_form():
    from assess.models import Quiz
    from certify.forms import assemble_form

    quiz = Quiz(mode=Quiz.Mode.CERTIFICATION)
    assert assemble_form(quiz=quiz, attempt_id=1, slots=[], withheld=frozenset()) is None
