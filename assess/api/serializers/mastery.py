"""Mastery as a learner reads it, and a quiz's item analysis as its instructors read it."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers


class SkillMasterySerializer(serializers.Serializer):
    skill = serializers.CharField()
    p_mastery = serializers.FloatField(help_text="BKT estimate that the skill is known.")
    mastered = serializers.BooleanField(help_text="p_mastery >= 0.95.")
    evidence = serializers.IntegerField(help_text="Answers that updated this estimate.")


class LessonMasterySerializer(serializers.Serializer):
    course = serializers.SlugField()
    lesson = serializers.SlugField()
    title = serializers.CharField()
    skills_total = serializers.IntegerField(source="summary.skills")
    skills_mastered = serializers.IntegerField(source="summary.mastered")
    share_mastered = serializers.FloatField(source="summary.share")
    mastered = serializers.BooleanField(
        source="summary.complete", help_text="Every skill of the lesson is mastered."
    )
    weakest_skill = serializers.CharField(
        source="summary.weakest", help_text="The skill with the lowest estimate."
    )
    weakest_p_mastery = serializers.FloatField(source="summary.weakest_p")
    evidence = serializers.IntegerField(help_text="Answers behind the lesson's skills.")
    skills = SkillMasterySerializer(many=True)


class MasterySerializer(serializers.Serializer):
    """Skills are global (knowledge carries across courses); lessons are those of the
    courses the learner is enrolled in."""

    skills = SkillMasterySerializer(many=True)
    lessons = LessonMasterySerializer(many=True)


class MisconceptionCountSerializer(serializers.Serializer):
    code = serializers.CharField()
    count = serializers.IntegerField()


class ItemStatsSerializer(serializers.Serializer):
    template = serializers.CharField(help_text="The problem template's slug.")
    responses = serializers.IntegerField()
    proportion_correct = serializers.FloatField(
        allow_null=True, help_text="Of the responses; null without any."
    )
    questions = serializers.IntegerField(
        help_text="Questions in finished attempts: the discrimination sample."
    )
    discrimination = serializers.FloatField(
        allow_null=True,
        help_text="Point-biserial correlation of item correctness with attempt score; null "
        "when the sample cannot say.",
    )
    misconceptions = serializers.SerializerMethodField()
    median_time_spent_ms = serializers.FloatField(allow_null=True)

    @extend_schema_field(MisconceptionCountSerializer(many=True))
    def get_misconceptions(self, item) -> list[dict]:
        return [{"code": code, "count": count} for code, count in item.misconceptions]
