"""Admin: read-mostly views of quizzes and attempts; writes belong to the services."""

from django.contrib import admin
from rest_framework.authtoken.admin import TokenAdmin
from rest_framework.authtoken.models import TokenProxy

from accounts.tokens import tokens_revoke_for_user
from assess.models import (
    Attempt,
    CourseRole,
    Enrolment,
    Extension,
    MasteryEvent,
    Question,
    Quiz,
    Response,
    Reveal,
    SkillMastery,
    Slot,
)


class SlotInline(admin.TabularInline):
    model = Slot
    extra = 0


@admin.register(Quiz)
class QuizAdmin(admin.ModelAdmin):
    list_display = [
        "title",
        "status",
        "mode",
        "course",
        "feedback",
        "counting_attempt",
        "opens_at",
        "closes_at",
        "adaptive",
    ]
    list_filter = ["status", "mode", "feedback", "adaptive"]
    search_fields = ["title"]
    # extended_until is kept by the extension services (not editable); closes_at may be
    # edited here: Quiz.closed_for_all_at is taken from both on reading, so it follows.
    readonly_fields = ["extended_until"]
    inlines = [SlotInline]

    def get_readonly_fields(self, request, obj=None):
        """A quiz's status moves only through assess.services.quizzes (publish,
        unpublish, close), which refuse unpublishing once anyone has an attempt; the admin
        sets it when adding a quiz, never after."""
        fields = list(super().get_readonly_fields(request, obj))
        return [*fields, "status"] if obj is not None else fields


@admin.register(Extension)
class ExtensionAdmin(admin.ModelAdmin):
    """Read-only: grants and revokes go through assess.services.extensions, which keep
    the quiz's extended_until and the learner's open attempt in step."""

    list_display = ["quiz", "learner", "extra_time", "closes_at", "granted_by", "updated_at"]
    list_filter = ["quiz"]
    search_fields = ["learner__username", "quiz__title"]
    raw_id_fields = ["quiz", "learner", "granted_by"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Attempt)
class AttemptAdmin(admin.ModelAdmin):
    list_display = ["id", "quiz", "learner", "number", "status", "started_at", "score"]
    list_filter = ["status", "quiz__mode"]
    raw_id_fields = ["quiz", "learner"]
    readonly_fields = ["score", "points", "finished_at", "mastery_applied_at"]


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    list_display = ["id", "attempt", "order", "template_slug", "variant_number", "active"]
    raw_id_fields = ["attempt", "slot"]
    search_fields = ["template_slug"]


@admin.register(Response)
class ResponseAdmin(admin.ModelAdmin):
    list_display = ["id", "question", "part", "raw", "correct", "score", "misconception"]
    raw_id_fields = ["attempt", "question"]
    list_filter = ["correct", "evidence", "misconception"]


@admin.register(Reveal)
class RevealAdmin(admin.ModelAdmin):
    list_display = ["id", "question", "part", "created_at"]
    raw_id_fields = ["question"]


@admin.register(Enrolment)
class EnrolmentAdmin(admin.ModelAdmin):
    list_display = ["user", "course", "source", "created_at"]
    list_filter = ["course", "source"]
    search_fields = ["user__username"]
    raw_id_fields = ["user"]


@admin.register(SkillMastery)
class SkillMasteryAdmin(admin.ModelAdmin):
    list_display = ["learner", "skill", "p_mastery", "responses", "updated_at"]
    search_fields = ["skill", "learner__username"]
    raw_id_fields = ["learner"]


@admin.register(MasteryEvent)
class MasteryEventAdmin(admin.ModelAdmin):
    list_display = ["learner", "skill", "p_before", "p_after", "created_at"]
    raw_id_fields = ["learner", "response"]


@admin.register(CourseRole)
class CourseRoleAdmin(admin.ModelAdmin):
    # An empty LMS context: course-wide; set: scoped to that LMS course's learners.
    list_display = ["user", "course", "role", "lti_context"]
    list_filter = ["role", "course"]
    raw_id_fields = ["user", "lti_context"]


# ------------------------------------------------------------------------ API tokens
# DRF's token admin, whose plain delete would revoke without a trace: revoking is the
# audited action below (accounts.tokens), and delete is off.
admin.site.unregister(TokenProxy)


@admin.register(TokenProxy)
class AuditedTokenAdmin(TokenAdmin):
    actions = ["revoke_tokens"]

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.action(description="Revoke the selected API tokens (audited)")
    def revoke_tokens(self, request, queryset):
        users = [token.user for token in queryset.select_related("user")]
        n = sum(tokens_revoke_for_user(actor=request.user, user=user) for user in users)
        self.message_user(request, f"{n} token(s) revoked.")
