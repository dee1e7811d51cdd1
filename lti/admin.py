"""Admin: read-mostly views of what lti records; writes belong to the services (a
resend is the instructor's action, on the quiz's LMS grades page or the API)."""

from django.contrib import admin

from lti.models import LineItem, ResourceLinkQuiz, ScoreSync


@admin.register(ResourceLinkQuiz)
class ResourceLinkQuizAdmin(admin.ModelAdmin):
    list_display = ["resource_link", "quiz", "created_at"]
    raw_id_fields = ["resource_link", "quiz"]


@admin.register(LineItem)
class LineItemAdmin(admin.ModelAdmin):
    list_display = ["url", "context", "quiz", "created_at"]
    raw_id_fields = ["context", "quiz"]


@admin.register(ScoreSync)
class ScoreSyncAdmin(admin.ModelAdmin):
    list_display = ["lti_user", "quiz", "context", "state", "permanent", "score_given", "tries"]
    list_filter = ["state", "permanent"]
    raw_id_fields = ["context", "quiz", "lti_user", "learner", "attempt"]
    readonly_fields = [f.name for f in ScoreSync._meta.fields]
