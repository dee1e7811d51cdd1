"""factory_boy factories shared by the database tests.

Attempts, questions and responses are not built here: they come from the services, so
tests exercise the one road that writes them.
"""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model
from factory.django import DjangoModelFactory

from assess.models import CourseRole, Enrolment, Quiz, Slot
from curricula.models import Course, Lesson, LessonTemplate, Module

PASSWORD = "correct horse battery staple"


class UserFactory(DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def _save(obj, create, extracted, **kwargs):
        if create:
            obj.save()


class CourseFactory(DjangoModelFactory):
    class Meta:
        model = Course

    slug = factory.Sequence(lambda n: f"course-{n}")
    title = factory.LazyAttribute(lambda c: c.slug.replace("-", " ").title())
    summary = "A course."
    order = factory.Sequence(int)


class ModuleFactory(DjangoModelFactory):
    class Meta:
        model = Module

    course = factory.SubFactory(CourseFactory)
    slug = factory.Sequence(lambda n: f"module-{n}")
    title = factory.LazyAttribute(lambda m: m.slug.title())
    summary = "A module."
    order = factory.Sequence(int)


class LessonFactory(DjangoModelFactory):
    """LessonFactory(templates=["weights-memory", "gb-gib"]) links templates in order."""

    class Meta:
        model = Lesson
        skip_postgeneration_save = True

    module = factory.SubFactory(ModuleFactory)
    slug = factory.Sequence(lambda n: f"lesson-{n}")
    title = factory.LazyAttribute(lambda lesson: lesson.slug.title())
    order = factory.Sequence(int)

    @factory.post_generation
    def templates(obj, create, extracted, **kwargs):
        if create and extracted:
            for i, slug in enumerate(extracted, start=1):
                LessonTemplate.objects.create(lesson=obj, template_slug=slug, order=i)


class CourseRoleFactory(DjangoModelFactory):
    class Meta:
        model = CourseRole

    user = factory.SubFactory(UserFactory)
    course = factory.SubFactory(CourseFactory)
    role = CourseRole.Role.INSTRUCTOR


class QuizFactory(DjangoModelFactory):
    """QuizFactory(slots=[["weights-memory"], {"templates": ["gb-gib"], "points": 3}])."""

    class Meta:
        model = Quiz
        skip_postgeneration_save = True

    title = factory.Sequence(lambda n: f"Quiz {n}")
    mode = Quiz.Mode.PRACTICE
    feedback = factory.LazyAttribute(
        lambda q: (
            Quiz.Feedback.IMMEDIATELY
            if q.mode in (Quiz.Mode.PRACTICE, Quiz.Mode.HOMEWORK)
            else Quiz.Feedback.AFTER_ATTEMPT
        )
    )
    pass_mark = 0.5

    @factory.post_generation
    def slots(obj, create, extracted, **kwargs):
        if not create:
            return
        pools = extracted if extracted is not None else [["weights-memory"]]
        for i, pool in enumerate(pools, start=1):
            spec = pool if isinstance(pool, dict) else {"templates": list(pool)}
            Slot.objects.create(
                quiz=obj, order=i, points=spec.get("points", 1), templates=spec["templates"]
            )


class SlotFactory(DjangoModelFactory):
    class Meta:
        model = Slot

    quiz = factory.SubFactory(QuizFactory, slots=[])
    order = factory.Sequence(lambda n: n + 1)
    points = 1
    templates = factory.LazyFunction(lambda: ["weights-memory"])


class EnrolmentFactory(DjangoModelFactory):
    """A learner enrolled in a course (as an instructor would add them)."""

    class Meta:
        model = Enrolment
        django_get_or_create = ("user", "course")

    user = factory.SubFactory(UserFactory)
    course = factory.SubFactory(CourseFactory)
    source = Enrolment.Source.INSTRUCTOR
