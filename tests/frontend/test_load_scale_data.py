"""manage.py load_scale_data (issue 43, item 1): an institution's worth of data, small
here (60 learners): the counts its plan promises, the skews the scale bench leans on,
real engine variants whose stored answers grade as stored, and idempotence per seed."""

from __future__ import annotations

from collections import Counter
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db.models import Count

from assess.models import Attempt, CourseRole, MasteryEvent, Question, Quiz, Response, SkillMastery
from capstone.models import MemoVersion
from certify.models import Certificate
from certify.services.tracks import tracks_load
from curricula.models import Course
from curricula.services import curricula_load
from frontend.scale.plan import Plan
from orgs.models import Membership, Organization, Team
from problems.engine.variants import Variant

pytestmark = pytest.mark.django_db


def _load(learners: int, seed: int) -> dict:
    out = StringIO()
    call_command("load_scale_data", "--learners", str(learners), "--seed", str(seed), stdout=out,
                 stderr=StringIO())  # fmt: skip
    return dict(kv.split("=") for kv in out.getvalue().split())


@pytest.fixture
def loaded():
    curricula_load()
    tracks_load()
    return _load(60, 7)


def test_the_plan_at_full_size_is_the_issues_institution():
    plan = Plan(learners=20_000, seed=1)
    assert (plan.quizzes, plan.attempts, plan.responses) == (200, 50_000, 2_000_000)
    assert (plan.organisations, plan.teams, plan.engineers) == (3, 50, 2_000)
    assert (plan.certificates, plan.memo_versions, plan.biggest_team) == (5_000, 20_000, 200)
    others = (plan.engineers - plan.biggest_team) / (plan.teams - 1)
    assert plan.biggest_team > 4 * others  # the 200-engineer team is the biggest by far


def test_the_counts_follow_the_plan(loaded):
    plan = Plan(learners=60, seed=7)
    assert int(loaded["learners"]) == 60
    assert Quiz.objects.filter(title__startswith="scale7 ").count() == plan.quizzes
    assert Attempt.objects.count() == plan.attempts == int(loaded["attempts"])
    assert Question.objects.count() == plan.attempts * plan.questions_per_quiz
    answers = Response.objects.count()
    assert answers == int(loaded["responses"])
    assert 0.7 * plan.responses <= answers <= 1.3 * plan.responses
    assert Certificate.objects.count() == int(loaded["certificates"]) <= plan.certificates
    assert MemoVersion.objects.count() == plan.memo_versions
    assert Organization.objects.count() == 3 and Team.objects.count() == plan.teams
    # every course an instructor, every organisation a manager
    assert set(CourseRole.objects.values_list("course", flat=True)) == set(
        Course.objects.values_list("pk", flat=True)
    )
    managed = Membership.objects.filter(role="manager").values_list("organization", flat=True)
    assert set(managed) == set(Organization.objects.values_list("pk", flat=True))


def test_the_skews_are_planted(loaded):
    plan = Plan(learners=60, seed=7)
    per_learner = Counter(
        dict(Response.objects.values_list("attempt__learner").annotate(n=Count("id")))
    )
    heaviest, most = per_learner.most_common(1)[0]
    assert most > 5 * (sum(per_learner.values()) / len(per_learner))  # a relentless learner
    first = Team.objects.annotate(n=Count("members")).get(slug="scale7-team-0")
    assert first.n == plan.biggest_team  # the readiness matrix's big team
    exams = Attempt.objects.filter(quiz__mode="exam")
    assert max(exams.values_list("number", flat=True), default=1) <= 3  # attempts allowed
    # first tries of immediate-feedback parts, and only they, are mastery evidence
    evidence = Response.objects.filter(evidence=True)
    assert not evidence.filter(attempt__quiz__mode="exam").exists()
    assert (
        MasteryEvent.objects.filter(response__in=evidence).count()
        == MasteryEvent.objects.count()
        > 0
    )
    assert SkillMastery.objects.filter(responses__gt=0).exists()
    # no immediate-feedback part is answered after its right try, nor past its quiz's limit
    for question in Question.objects.filter(attempt__quiz__mode__in=["homework", "practice"])[:200]:
        for part in question.answers:
            tries = list(question.responses.filter(part=part["name"]).order_by("id"))
            assert all(not t.correct for t in tries[:-1])
            cap = 3 if question.attempt.quiz.mode == "homework" else 30
            assert len(tries) <= cap


def test_questions_are_real_variants_whose_answers_grade_as_stored(loaded):
    checked = named = 0
    for r in Response.objects.select_related("question").order_by("id")[::37][:150]:
        q = r.question
        variant = Variant.from_params(q.template_slug, q.params, q.template_version)
        assert variant.statement_markdown() == q.statement_markdown
        result = variant.grade(r.part, r.raw)
        assert result.valid and result.correct == r.correct, (q.template_slug, r.raw)
        if r.misconception:  # a named slip is the template's own, and the engine names it
            assert result.misconception == r.misconception, (q.template_slug, r.raw)
            named += 1
        checked += 1
    assert checked > 50 and named > 0


def test_a_seed_loads_once_and_ids_continue_after_it(loaded):
    before = (get_user_model().objects.count(), Response.objects.count())
    out = StringIO()
    call_command("load_scale_data", "--learners", "60", "--seed", "7", stdout=out)
    assert "loaded already" in out.getvalue()
    assert (get_user_model().objects.count(), Response.objects.count()) == before
    get_user_model().objects.create_user("after-the-scale-data")  # the id sequence moved on


def test_bad_sizes_and_missing_curricula_exit_2():
    with pytest.raises(CommandError, match="--learners") as err:
        call_command("load_scale_data", "--learners", "5")
    assert err.value.returncode == 2
    with pytest.raises(CommandError, match="load_curricula"):
        call_command("load_scale_data", "--learners", "20", "--seed", "3")
    assert not get_user_model().objects.exists()
