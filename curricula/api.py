"""Read-only REST endpoints for the course catalogue.

Curricula are public reference material, so the views allow anonymous readers and skip
authentication entirely (no session, hence no CSRF surprises for plain GETs). Every
query lives in `selectors`; these classes only shape the output.
"""

from __future__ import annotations

from django.http import Http404
from rest_framework import generics, serializers
from rest_framework.permissions import AllowAny

from curricula import selectors
from curricula.models import Course, Lesson


class LessonSerializer(serializers.ModelSerializer):
    objectives = serializers.ListField(child=serializers.CharField(), read_only=True)
    skills = serializers.ListField(child=serializers.CharField(), read_only=True)
    templates = serializers.SlugRelatedField(
        source="template_links",
        slug_field="template_slug",
        many=True,
        read_only=True,
        help_text="Slugs of the problem templates that test this lesson, in teaching order.",
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


class ModuleSerializer(serializers.Serializer):
    slug = serializers.SlugField(read_only=True)
    title = serializers.CharField(read_only=True)
    summary = serializers.CharField(read_only=True)
    order = serializers.IntegerField(read_only=True)
    lessons = LessonSerializer(many=True, read_only=True)


class CourseListSerializer(serializers.ModelSerializer):
    module_count = serializers.IntegerField(read_only=True)
    lesson_count = serializers.IntegerField(read_only=True)

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


class CourseDetailSerializer(serializers.ModelSerializer):
    modules = ModuleSerializer(many=True, read_only=True)

    class Meta:
        model = Course
        fields = ["slug", "title", "summary", "order", "self_enrol", "modules"]
        read_only_fields = fields


class CurriculumRefSerializer(serializers.Serializer):
    """Just enough of a parent (course or module) to link to it."""

    slug = serializers.SlugField(read_only=True)
    title = serializers.CharField(read_only=True)


class LessonDetailSerializer(LessonSerializer):
    course = CurriculumRefSerializer(source="module.course", read_only=True)
    module = CurriculumRefSerializer(read_only=True)

    class Meta(LessonSerializer.Meta):
        fields = [*LessonSerializer.Meta.fields, "course", "module"]
        read_only_fields = fields


class _PublicReadOnly:
    permission_classes = [AllowAny]
    authentication_classes: list = []


class CourseListView(_PublicReadOnly, generics.ListAPIView):
    serializer_class = CourseListSerializer

    def get_queryset(self):
        return selectors.course_list()


class CourseDetailView(_PublicReadOnly, generics.RetrieveAPIView):
    serializer_class = CourseDetailSerializer
    queryset = Course.objects.none()  # for schema generation; get_object does the read

    def get_object(self) -> Course:
        try:
            return selectors.course_get(slug=self.kwargs["slug"])
        except Course.DoesNotExist:
            raise Http404("No course with that slug.") from None


class LessonDetailView(_PublicReadOnly, generics.RetrieveAPIView):
    serializer_class = LessonDetailSerializer
    queryset = Lesson.objects.none()

    def get_object(self) -> Lesson:
        try:
            return selectors.lesson_get(slug=self.kwargs["slug"])
        except Lesson.DoesNotExist:
            raise Http404("No lesson with that slug.") from None
