"""Read-only REST endpoints for the course catalogue.

Curricula are public reference material, so the views allow anonymous readers and skip
authentication entirely (no session, hence no CSRF surprises for plain GETs). Every
query lives in `selectors`; these classes only shape the output, and say in the schema
what each field means, since the schema is what an LMS developer reads first.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import exceptions, generics, serializers
from rest_framework.permissions import AllowAny

from curricula import selectors
from curricula.models import Course, Lesson

# The data files' slug rule (curricula.schema): lower-case words joined by hyphens.
SLUG_REGEX = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"


def _slug(help_text: str) -> serializers.RegexField:
    return serializers.RegexField(SLUG_REGEX, read_only=True, help_text=help_text)


_COURSE_SLUG = (
    "Stable identifier of the course, derived from its title (lower-case words joined by "
    "hyphens); /api/courses/{slug}/."
)
_HELP = {
    "title": "Title as shown to learners.",
    "summary": "A paragraph on what the course covers and for whom.",
    "course_order": "Position in the catalogue, lowest first; lists are sorted by it.",
    "self_enrol": "True: a signed-in learner may enrol themselves (POST "
    "/api/courses/{slug}/enrol/, or by starting a lesson's practice). False: only the "
    "course's instructors or staff add learners (/api/courses/{slug}/enrolments/). Enrolment "
    "gates the course's quizzes; the outline itself is public.",
    "lesson_order": "Position within its module, from 1.",
    "minutes": "Expected study time in minutes; null where the outline gives none (an "
    "invented number would look like a fact).",
    "status": "`ready`: problem templates test this lesson, so it can be practised; "
    "`planned`: conceptual, no template yet (`templates` is empty and practice answers 409).",
    "objectives": "What a learner can do after the lesson, one sentence each.",
    "skills": "Skills the lesson teaches, as the course outline names them (lower-case, "
    "hyphenated; shared across courses). Mastery estimates (/api/me/mastery/) exist for the "
    "skills of the lesson's templates, which overlap these; a conceptual skill that no "
    "template exercises has none.",
    "templates": "Slugs of the problem templates that test this lesson, in teaching order. "
    "A template generates a problem from real hardware and model figures, solves it exactly "
    "and grades answers with units; POST /api/lessons/{slug}/practice/ draws the next "
    "practice question from these, aiming at the learner's weakest skill. Empty for a "
    "planned lesson.",
}


class LessonSerializer(serializers.ModelSerializer):
    slug = _slug(
        "Stable identifier of the lesson, unique across all courses: its title's slug, "
        "prefixed with the course slug where an earlier course has a lesson of that title; "
        "/api/lessons/{slug}/."
    )
    objectives = serializers.ListField(
        child=serializers.CharField(), read_only=True, help_text=_HELP["objectives"]
    )
    skills = serializers.ListField(
        child=serializers.CharField(), read_only=True, help_text=_HELP["skills"]
    )
    templates = serializers.SlugRelatedField(
        source="template_links",
        slug_field="template_slug",
        many=True,
        read_only=True,
        help_text=_HELP["templates"],
    )

    class Meta:
        model = Lesson
        fields = [
            "slug",
            "title",
            "order",
            "minutes",
            "status",
            "objectives",
            "skills",
            "templates",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "title": {"help_text": _HELP["title"]},
            "order": {"help_text": _HELP["lesson_order"]},
            "minutes": {"help_text": _HELP["minutes"]},
            "status": {"help_text": _HELP["status"]},
        }


class ModuleSerializer(serializers.Serializer):
    slug = _slug("Identifier of the module, unique only within its course.")
    title = serializers.CharField(read_only=True, help_text=_HELP["title"])
    summary = serializers.CharField(read_only=True, help_text="What the module covers.")
    order = serializers.IntegerField(read_only=True, help_text="Position in the course, from 1.")
    lessons = LessonSerializer(
        many=True, read_only=True, help_text="The module's lessons in teaching order."
    )


_COURSE_EXTRA = {
    "title": {"help_text": _HELP["title"]},
    "summary": {"help_text": _HELP["summary"]},
    "order": {"help_text": _HELP["course_order"]},
    "self_enrol": {"help_text": _HELP["self_enrol"]},
}


class CourseListSerializer(serializers.ModelSerializer):
    slug = _slug(_COURSE_SLUG)
    module_count = serializers.IntegerField(read_only=True, help_text="Modules in the course.")
    lesson_count = serializers.IntegerField(
        read_only=True, help_text="Lessons in the course, planned ones included."
    )

    class Meta:
        model = Course
        fields = [
            "slug",
            "title",
            "summary",
            "order",
            "self_enrol",
            "module_count",
            "lesson_count",
        ]
        read_only_fields = fields
        extra_kwargs = _COURSE_EXTRA


class CourseDetailSerializer(serializers.ModelSerializer):
    slug = _slug(_COURSE_SLUG)
    modules = ModuleSerializer(
        many=True, read_only=True, help_text="The course's modules in teaching order."
    )

    class Meta:
        model = Course
        fields = ["slug", "title", "summary", "order", "self_enrol", "modules"]
        read_only_fields = fields
        extra_kwargs = _COURSE_EXTRA


class CurriculumRefSerializer(serializers.Serializer):
    """Just enough of a parent (course or module) to link to it."""

    slug = _slug("The parent's slug (a module's is unique only within its course).")
    title = serializers.CharField(read_only=True, help_text="The parent's title.")


class LessonDetailSerializer(LessonSerializer):
    course = CurriculumRefSerializer(
        source="module.course", read_only=True, help_text="The course the lesson belongs to."
    )
    module = CurriculumRefSerializer(
        read_only=True, help_text="The module of that course the lesson sits in."
    )

    key_ideas = serializers.CharField(
        read_only=True,
        help_text=(
            "The lesson's key ideas in Markdown, maths in TeX between $ signs: the two or "
            "three formulas or facts its problems test. Always present; empty for a lesson "
            "without them. The web page adds a worked example generated from one of the "
            "lesson's templates."
        ),
    )

    class Meta(LessonSerializer.Meta):
        fields = [*LessonSerializer.Meta.fields, "key_ideas", "course", "module"]
        read_only_fields = fields


class _PublicReadOnly:
    permission_classes = [AllowAny]
    authentication_classes: list = []


def _slug_parameter(what: str) -> OpenApiParameter:
    return OpenApiParameter(
        "slug",
        OpenApiTypes.STR,
        OpenApiParameter.PATH,
        description=f"The {what}'s `slug`.",
        pattern=SLUG_REGEX,
    )


_PUBLIC = "Public: no sign-in needed."

COURSE_EXAMPLE = {
    "slug": "learn-ai-infrastructure",
    "title": "Learn AI Infrastructure",
    "summary": "A thirty-lesson path from how a language model produces text to running GPU "
    "clusters in production.",
    "order": 1,
    "self_enrol": True,
    "module_count": 3,
    "lesson_count": 30,
}


@extend_schema(
    summary="List courses",
    description="The course catalogue in catalogue order, one page at a time, each course "
    f"with its size. Fetch /api/courses/{{slug}}/ for a course's outline. {_PUBLIC}",
    examples=[
        OpenApiExample(
            "learn-ai-infrastructure",
            summary="learn-ai-infrastructure (summary abridged)",
            value=COURSE_EXAMPLE,
            response_only=True,
        )
    ],
)
class CourseListView(_PublicReadOnly, generics.ListAPIView):
    serializer_class = CourseListSerializer

    def get_queryset(self):
        return selectors.course_list()


@extend_schema(
    summary="One course with its outline",
    description="A course with its modules and their lessons, in teaching order; not "
    f"paginated. An unknown slug is a 404 in the API's error format. {_PUBLIC}",
    parameters=[_slug_parameter("course")],
)
class CourseDetailView(_PublicReadOnly, generics.RetrieveAPIView):
    serializer_class = CourseDetailSerializer
    queryset = Course.objects.none()  # for schema generation; get_object does the read

    def get_object(self) -> Course:
        try:
            return selectors.course_get(slug=self.kwargs["slug"])
        except Course.DoesNotExist:
            raise exceptions.NotFound("No course with that slug.") from None


@extend_schema(
    summary="One lesson",
    description="A lesson with its objectives, skills and problem templates, and the course "
    "and module it sits in. POST /api/lessons/{slug}/practice/ starts practising it. An "
    f"unknown slug is a 404 in the API's error format. {_PUBLIC}",
    parameters=[_slug_parameter("lesson")],
)
class LessonDetailView(_PublicReadOnly, generics.RetrieveAPIView):
    serializer_class = LessonDetailSerializer
    queryset = Lesson.objects.none()

    def get_object(self) -> Lesson:
        try:
            return selectors.lesson_get(slug=self.kwargs["slug"])
        except Lesson.DoesNotExist:
            raise exceptions.NotFound("No lesson with that slug.") from None
