"""Mastery: BKT steps per graded response, lesson mastery, adaptive practice."""

from __future__ import annotations

import pytest

from assess import skills as skill_map
from assess.errors import Conflict
from assess.mastery import bkt
from assess.models import MasteryEvent, Question, SkillMastery
from assess.selectors import mastery_list_for_user
from assess.services.attempts import attempt_start
from assess.services.questions import practice_question_add
from assess.services.responses import response_submit
from problems.engine import registry
from tests.assess.helpers import correct_text, wrong_text
from tests.factories import LessonFactory, QuizFactory

pytestmark = pytest.mark.django_db

P0 = bkt.DEFAULT_PARAMS.p_init


def submit(attempt, question, part, text, key):
    return response_submit(
        attempt=attempt, question=question, part=part["name"], text=text, idempotency_key=key
    )


def first_question(learner, slug):
    attempt, _ = attempt_start(quiz=QuizFactory(slots=[[slug]]), learner=learner)
    return attempt, attempt.questions.get()


def p_of(learner) -> dict[str, float]:
    return dict(SkillMastery.objects.filter(learner=learner).values_list("skill", "p_mastery"))


def test_correct_response_updates_each_skill_exactly_as_bkt(learner):
    attempt, question = first_question(learner, "weights-memory")
    skills = registry.get("weights-memory").skills
    assert len(skills) >= 2
    part = question.answers[0]
    submit(attempt, question, part, correct_text(part), "a")
    expected = bkt.update(P0, True, bkt.DEFAULT_PARAMS)
    assert expected > P0
    assert p_of(learner) == {skill: expected for skill in skills}

    submit(attempt, question, part, wrong_text(part), "b")
    after_wrong = bkt.update(expected, False, bkt.DEFAULT_PARAMS)
    assert p_of(learner) == {skill: after_wrong for skill in skills}
    rows = SkillMastery.objects.filter(learner=learner)
    assert {row.responses for row in rows} == {2}

    events = list(MasteryEvent.objects.filter(learner=learner).order_by("id"))
    assert len(events) == 2 * len(skills)
    assert [(e.p_before, e.p_after) for e in events if e.skill == skills[0]] == [
        (P0, expected),
        (expected, after_wrong),
    ]


def test_replayed_key_does_not_update_twice(learner):
    attempt, question = first_question(learner, "gb-gib")
    part = question.answers[0]
    submit(attempt, question, part, correct_text(part), "same")
    submit(attempt, question, part, correct_text(part), "same")
    assert SkillMastery.objects.get(learner=learner).responses == 1
    assert MasteryEvent.objects.filter(learner=learner).count() == 1


def test_choice_parts_use_the_blind_guess_prior(learner):
    attempt, question = first_question(learner, "roofline-attainable")
    part = question.part("bound")
    submit(attempt, question, part, correct_text(part), "c")
    params = bkt.params_for_kind("choice", len(part["choices"]))
    expected = bkt.update(P0, True, params)
    assert set(p_of(learner).values()) == {expected}


def test_lesson_mastery_is_the_min_over_the_union_of_template_skills(learner):
    lesson = LessonFactory(templates=["weights-memory", "gb-gib", "training-memory-adam"])
    skills = skill_map.lesson_skills(["weights-memory", "gb-gib", "training-memory-adam"])
    assert set(skills) == {
        *registry.get("weights-memory").skills,
        *registry.get("gb-gib").skills,
        *registry.get("training-memory-adam").skills,
    }
    attempt, question = first_question(learner, "gb-gib")
    part = question.answers[0]
    submit(attempt, question, part, correct_text(part), "k")
    [row] = mastery_list_for_user(user=learner)
    assert row.lesson == lesson.slug and row.responses == 1
    # Unseen skills of the lesson still count at p_init, so the minimum is p_init.
    assert row.p_mastery == P0 and row.mastered is False


def test_mastered_at_095(learner):
    lesson = LessonFactory(templates=["gb-gib"])
    attempt, question = first_question(learner, "gb-gib")
    part = question.answers[0]
    submit(attempt, question, part, correct_text(part), "k")
    SkillMastery.objects.filter(learner=learner).update(p_mastery=bkt.MASTERED)
    [row] = mastery_list_for_user(user=learner)
    assert row.lesson == lesson.slug and row.mastered is True


# --------------------------------------------------------------------- adaptive practice


@pytest.fixture
def lesson():
    return LessonFactory(templates=["weights-memory", "training-memory-adam"])


def set_p(learner, **ps):
    for skill, p in ps.items():
        SkillMastery.objects.update_or_create(
            learner=learner, skill=skill.replace("_", "-"), defaults={"p_mastery": p}
        )


def test_practice_picks_the_template_of_the_weakest_unmastered_skill(learner, lesson):
    set_p(
        learner, weights_bytes=0.97, units_gb_gib=0.96, training_state_bytes=0.98, zero_sharding=0.6
    )
    practice = practice_question_add(learner=learner, lesson=lesson)
    assert practice.skill == "zero-sharding"
    assert practice.question.template_slug == "training-memory-adam"
    assert practice.attempt.quiz.adaptive and practice.attempt.quiz.practice_lesson == lesson

    set_p(learner, zero_sharding=0.99, units_gb_gib=0.3)
    again = practice_question_add(learner=learner, lesson=lesson)
    assert again.attempt.pk == practice.attempt.pk  # the practice attempt is reused
    assert again.skill == "units-gb-gib" and again.question.template_slug == "weights-memory"
    assert again.question.order == 2 and again.question.seed != practice.question.seed


def test_practice_with_no_history_starts_at_the_first_skill(learner, lesson):
    practice = practice_question_add(learner=learner, lesson=lesson)
    assert practice.skill == registry.get("weights-memory").skills[0]
    assert practice.question.template_slug == "weights-memory"


def test_practice_with_everything_mastered_still_practises_the_weakest(learner, lesson):
    skills = skill_map.lesson_skills(["weights-memory", "training-memory-adam"])
    set_p(learner, **{s.replace("-", "_"): 0.99 for s in skills})
    set_p(learner, zero_sharding=0.96)
    assert practice_question_add(learner=learner, lesson=lesson).skill == "zero-sharding"


def test_practice_needs_templates(learner):
    with pytest.raises(Conflict):
        practice_question_add(learner=learner, lesson=LessonFactory())


def test_practice_questions_are_answered_like_any_other(learner, lesson):
    practice = practice_question_add(learner=learner, lesson=lesson)
    question = Question.objects.get(pk=practice.question.pk)
    part = question.answers[0]
    result = submit(practice.attempt, question, part, correct_text(part), "p")
    assert result.response.correct
