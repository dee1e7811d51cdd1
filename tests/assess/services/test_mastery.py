"""Mastery: BKT steps per graded response, lesson mastery, adaptive practice."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from api_common.service_errors import Conflict
from assess import skills as skill_map
from assess.mastery import bkt
from assess.models import MasteryEvent, Question, Quiz, SkillMastery
from assess.selectors import evidence_sequences, mastery_for_user
from assess.services.attempts import attempt_finish, attempt_start
from assess.services.questions import practice_question_add
from assess.services.responses import response_submit
from problems.engine import registry
from tests.assess.helpers import correct_text, wrong_text
from tests.factories import EnrolmentFactory, LessonFactory, QuizFactory, UserFactory

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


def test_first_try_updates_each_skill_exactly_as_bkt_and_later_tries_do_not(learner):
    attempt, question = first_question(learner, "weights-memory")
    skills = registry.get("weights-memory").skills
    assert len(skills) >= 2
    part = question.answers[0]
    first = submit(attempt, question, part, wrong_text(part), "a")
    expected = bkt.update(P0, False, bkt.DEFAULT_PARAMS)
    assert expected != P0
    assert p_of(learner) == {skill: expected for skill in skills}

    # The second try follows the feedback on the first: graded, stored, not evidence.
    second = submit(attempt, question, part, correct_text(part), "b")
    assert second.response.correct
    assert p_of(learner) == {skill: expected for skill in skills}
    rows = SkillMastery.objects.filter(learner=learner)
    assert {row.responses for row in rows} == {1}
    first.response.refresh_from_db()
    second.response.refresh_from_db()
    assert (first.response.evidence, second.response.evidence) == (True, False)

    events = list(MasteryEvent.objects.filter(learner=learner).order_by("id"))
    assert len(events) == len(skills)
    assert {e.skill for e in events} == set(skills)
    assert {(e.p_before, e.p_after, e.response_id) for e in events} == {
        (P0, expected, first.response.pk)
    }


def test_each_part_and_question_has_its_own_first_try(learner):
    attempt, _ = attempt_start(quiz=QuizFactory(slots=[["gb-gib"], ["gb-gib"]]), learner=learner)
    q1, q2 = attempt.questions.order_by("order")
    submit(attempt, q1, q1.answers[0], wrong_text(q1.answers[0]), "1")
    submit(attempt, q1, q1.answers[0], correct_text(q1.answers[0]), "2")
    submit(attempt, q2, q2.answers[0], correct_text(q2.answers[0]), "3")
    after = bkt.update(bkt.update(P0, False), True)
    assert p_of(learner) == {"units-gb-gib": pytest.approx(after)}
    assert SkillMastery.objects.get(learner=learner).responses == 2


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


def test_lesson_mastery_covers_the_union_of_template_skills(learner):
    lesson = LessonFactory(templates=["weights-memory", "gb-gib", "training-memory-adam"])
    EnrolmentFactory(user=learner, course=lesson.module.course)
    skills = skill_map.lesson_skills(["weights-memory", "gb-gib", "training-memory-adam"])
    assert set(skills) == {
        *registry.get("weights-memory").skills,
        *registry.get("gb-gib").skills,
        *registry.get("training-memory-adam").skills,
    }
    attempt, question = first_question(learner, "gb-gib")
    part = question.answers[0]
    submit(attempt, question, part, correct_text(part), "k")
    mastery = mastery_for_user(user=learner)
    p = bkt.update(P0, True)
    assert [(r.skill, r.p_mastery, r.evidence) for r in mastery.skills] == [("units-gb-gib", p, 1)]
    [row] = mastery.lessons
    assert row.lesson == lesson.slug and row.course == lesson.module.course.slug
    assert row.evidence == 1 and row.started
    assert [s.skill for s in row.skills] == list(skills)
    # Unseen skills of the lesson still count at p_init, with no evidence behind them.
    by_skill = {s.skill: s for s in row.skills}
    assert by_skill["units-gb-gib"].p_mastery == p
    assert all(
        s.p_mastery == P0 and s.evidence == 0 for k, s in by_skill.items() if k != "units-gb-gib"
    )
    assert row.summary.skills == len(skills) and row.summary.mastered == 0
    assert row.summary.weakest_p == P0 and row.summary.weakest != "units-gb-gib"


def test_mastered_at_095(learner):
    lesson = LessonFactory(templates=["gb-gib"])
    EnrolmentFactory(user=learner, course=lesson.module.course)
    attempt, question = first_question(learner, "gb-gib")
    part = question.answers[0]
    submit(attempt, question, part, correct_text(part), "k")
    SkillMastery.objects.filter(learner=learner).update(p_mastery=bkt.MASTERED)
    [row] = mastery_for_user(user=learner).lessons
    assert row.lesson == lesson.slug and row.summary.complete is True
    assert row.skills[0].mastered is True


def test_lessons_only_of_enrolled_courses(learner):
    enrolled = LessonFactory(templates=["gb-gib"])
    LessonFactory(templates=["gb-gib"])  # another course
    LessonFactory(templates=[], module=enrolled.module)  # no skills: not shown
    EnrolmentFactory(user=learner, course=enrolled.module.course)
    attempt, question = first_question(learner, "gb-gib")
    submit(attempt, question, question.answers[0], correct_text(question.answers[0]), "k")
    assert [row.lesson for row in mastery_for_user(user=learner).lessons] == [enrolled.slug]
    # Skills are global: the evidence shows whatever the enrolment.
    assert [r.skill for r in mastery_for_user(user=learner).skills] == ["units-gb-gib"]


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


def test_evidence_is_fitted_in_the_order_it_was_applied():
    """A held exam answer typed before some practice reaches mastery at the finish, after
    the practice: the fitting command sees it where the live updates did."""
    learner = UserFactory()
    exam = QuizFactory(mode=Quiz.Mode.EXAM, slots=[["gb-gib"]])
    practice = QuizFactory(mode=Quiz.Mode.PRACTICE, slots=[["gb-gib"]])
    t0 = timezone.now()
    exam_attempt, _ = attempt_start(quiz=exam, learner=learner, now=t0)
    question = exam_attempt.questions.get()
    part = question.answers[0]
    response_submit(
        attempt=exam_attempt,
        question=question,
        part=part["name"],
        text=correct_text(part),
        idempotency_key="exam",
        now=t0,
    )
    practice_attempt, _ = attempt_start(quiz=practice, learner=learner, now=t0)
    question = practice_attempt.questions.get()
    part = question.answers[0]
    response_submit(
        attempt=practice_attempt,
        question=question,
        part=part["name"],
        text=wrong_text(part),
        idempotency_key="practice",
        now=t0 + timedelta(seconds=1),
    )
    attempt_finish(attempt=exam_attempt, now=t0 + timedelta(seconds=2))
    sequences = evidence_sequences()
    assert sequences and all(seqs[learner.pk] == [False, True] for seqs in sequences.values())


def test_an_exams_release_signals_its_end_not_just_a_mastery_change(
    learner, django_capture_on_commit_callbacks
):
    """The held answers applied at an exam's finish are signalled as the attempt's end
    ("attempt", always evaluated by certification), not as a mastery change that a
    listener may dismiss when no skill crossed a threshold: a learner already past
    every threshold is certified by passing the exam itself."""
    from assess.signals import progress_recorded

    seen = []

    def listen(sender, **kwargs):
        seen.append((kwargs["reason"], bool(kwargs.get("changes"))))

    quiz = QuizFactory(mode=Quiz.Mode.EXAM, slots=[["gb-gib"]])
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    question = attempt.questions.get()
    for part in question.answers:
        response_submit(
            attempt=attempt,
            question=question,
            part=part["name"],
            text=correct_text(part),
            idempotency_key=f"k-{part['name']}",
        )
    progress_recorded.connect(listen, weak=False, dispatch_uid="test-exam-release")
    try:
        with django_capture_on_commit_callbacks(execute=True):  # sent on the commit
            attempt_finish(attempt=attempt)
    finally:
        progress_recorded.disconnect(dispatch_uid="test-exam-release")
    assert MasteryEvent.objects.filter(response__attempt=attempt).exists()
    assert seen == [("attempt", True)]
