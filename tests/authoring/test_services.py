"""Authored templates stored, published, drawn and pinned to the version drawn."""

import copy
from pathlib import Path

import pytest
import yaml

from api_common.service_errors import Conflict, InvalidInput, NotPermitted
from assess.models import Quiz
from assess.services.attempts import attempt_start
from assess.services.responses import response_submit
from authoring.models import AuthoredTemplate, AuthoredVersion
from authoring.services import (
    template_archive,
    template_create,
    template_publish,
    version_save,
)
from problems.engine.variants import ParamError, Variant
from tests.factories import CourseFactory, CourseRoleFactory, QuizFactory, UserFactory

EXAMPLE = Path(__file__).parents[1] / "problems" / "authored" / "data" / "team-kv-budget.yaml"
pytestmark = pytest.mark.django_db


@pytest.fixture
def data():
    return yaml.safe_load(EXAMPLE.read_text())


@pytest.fixture
def author():
    return CourseRoleFactory()


def test_invalid_document_names_the_field_and_stores_nothing(author, data):
    del data["title"]
    with pytest.raises(InvalidInput) as err:
        template_create(user=author.user, course=author.course, data=data)
    assert err.value.field == "document"
    assert str(err.value).startswith("title: ")
    assert not AuthoredTemplate.objects.exists() and not AuthoredVersion.objects.exists()


def test_builtin_slug_is_taken(author, data):
    data["slug"] = "weights-memory"
    with pytest.raises(InvalidInput, match="taken"):
        template_create(user=author.user, course=author.course, data=data)


def test_non_instructor_is_refused(data):
    course = CourseFactory()
    with pytest.raises(NotPermitted):
        template_create(user=UserFactory(), course=course, data=data)
    assert not AuthoredTemplate.objects.exists()


def test_publish_refuses_misconception_equal_to_answer(author, data):
    bad = copy.deepcopy(data)
    part = bad["parts"][0]
    part["misconceptions"][0]["answer"] = part["answer"]
    row = template_create(user=author.user, course=author.course, data=data)
    version_save(user=author.user, template=row, data=bad)
    with pytest.raises(Conflict, match="k-or-v-only: never told apart"):
        template_publish(user=author.user, template=row)
    row.refresh_from_db()
    assert row.status == AuthoredTemplate.Status.DRAFT


def _answer(variant, name):
    part = variant.parts[name]
    return str(part.value) if isinstance(part.value, str) else f"{part.value!r} {part.unit}"


@pytest.mark.parametrize("mode", [Quiz.Mode.PRACTICE, Quiz.Mode.EXAM])
def test_published_template_is_drawn_graded_and_pinned_to_its_version(author, data, mode):
    row = template_create(user=author.user, course=author.course, data=data)
    template_publish(user=author.user, template=row)
    quiz = QuizFactory(slots=[[row.slug]], mode=mode)
    attempt, _ = attempt_start(quiz=quiz, learner=UserFactory())
    question = attempt.questions.get()
    assert question.template_slug == row.slug and question.template_version == 1
    drawn = Variant.from_params(row.slug, question.params, 1)
    before = drawn.statement_markdown()

    edited = copy.deepcopy(data)
    edited["statement"] = "Changed: " + data["statement"]
    edited["parts"][0]["answer"] = "3 * " + data["parts"][0]["answer"]
    assert version_save(user=author.user, template=row, data=edited).number == 2
    assert Variant.from_params(row.slug, question.params).template.version == 2

    again = Variant.from_params(question.template_slug, question.params, question.template_version)
    assert again.template.version == 1 and again.statement_markdown() == before
    response = response_submit(
        attempt=attempt,
        question=question,
        part="kv",
        text=_answer(drawn, "kv"),
        idempotency_key="k1",
    )
    assert response.response.correct
    # The current version would have graded the same text wrong: grading used version 1.
    assert (
        not Variant.from_params(row.slug, question.params).grade("kv", _answer(drawn, "kv")).correct
    )


def test_only_published_templates_are_drawn(author, data):
    row = template_create(user=author.user, course=author.course, data=data)
    with pytest.raises(ParamError):
        Variant.from_params(row.slug, {})  # a draft is not resolvable by slug
    template_publish(user=author.user, template=row)
    assert Variant.from_seed(row.slug, 0).template.version == 1
    template_archive(user=author.user, template=row)
    with pytest.raises(ParamError):
        Variant.from_seed(row.slug, 0)
    # An archived template still rebuilds the questions that drew it.
    assert Variant.from_params(row.slug, _params(data), 1).template.version == 1


def _params(data):
    import random

    from authoring.resolve import template_at

    return template_at(data["slug"], 1).generate(random.Random(0)).model_dump()


def test_a_drill_or_a_built_in_slug_costs_no_query(django_assert_num_queries):
    """The pure kinds answer before the database is asked: an exam full of drills reads
    no authored-template row."""
    from problems.engine import registry

    with django_assert_num_queries(0):
        assert registry.get("drill-gpu-off-bus", version=1).slug == "drill-gpu-off-bus"
        assert registry.get("weights-memory", version=3).slug == "weights-memory"


def test_a_published_template_is_resolved_in_one_query_and_a_new_version_seen_at_once(
    author, data, django_assert_num_queries
):
    """Every slot asks for each of its templates, on saving a quiz and starting an
    attempt: one query a slug (it was two), and no cache to wait out."""
    from problems.engine import registry

    row = template_create(user=author.user, course=author.course, data=data)
    template_publish(user=author.user, template=row)
    registry.get(row.slug)  # the process's one look at whether the tables exist
    with django_assert_num_queries(1):
        assert registry.get(row.slug).version == 1
    version_save(user=author.user, template=row, data={**data, "title": "Renamed"})
    with django_assert_num_queries(1):
        assert registry.get(row.slug).title == "Renamed"


def test_only_the_templates_own_course_may_put_it_in_a_quiz(author, data):
    from django.core.exceptions import ValidationError

    from assess.services.quizzes import QuizSpec, SlotSpec, quiz_create

    row = template_create(user=author.user, course=author.course, data=data)
    template_publish(user=author.user, template=row)
    other = CourseRoleFactory(user=author.user)  # the author teaches another course too
    spec = QuizSpec(
        title="Elsewhere", mode="practice", slots=[SlotSpec(templates=[row.slug])],
        course_slug=other.course.slug,
    )  # fmt: skip
    with pytest.raises(ValidationError, match="only its quizzes may use it"):
        quiz_create(user=author.user, spec=spec)
    own = QuizSpec(
        title="Ours", mode="practice", slots=[SlotSpec(templates=[row.slug])],
        course_slug=author.course.slug,
    )  # fmt: skip
    assert quiz_create(user=author.user, spec=own).slots.get().templates == [row.slug]


def test_lesson_practice_draws_a_published_template_written_for_the_lesson(author, data):
    from assess.services.questions import practice_question_add
    from tests.factories import EnrolmentFactory, LessonFactory, ModuleFactory

    lesson = LessonFactory(module=ModuleFactory(course=author.course), slug="our-kv-lesson")
    data["lessons"] = [lesson.slug]
    row = template_create(user=author.user, course=author.course, data=data)
    learner = UserFactory()
    EnrolmentFactory(user=learner, course=author.course)
    with pytest.raises(Conflict):  # a draft is not drawn: the lesson has nothing yet
        practice_question_add(learner=learner, lesson=lesson)
    template_publish(user=author.user, template=row)
    drawn = practice_question_add(learner=learner, lesson=lesson)
    assert drawn.question.template_slug == row.slug
    # Another course's lesson of the same slug does not draw it.
    other = LessonFactory(slug="our-kv-lesson-elsewhere")
    with pytest.raises(Conflict):
        practice_question_add(learner=learner, lesson=other)
