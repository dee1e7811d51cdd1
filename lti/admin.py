"""Admin: read-mostly views of what lti records; writes belong to the services (a
resend is the instructor's action, on the quiz's LMS grades page or the API)."""

from django.contrib import admin
from lti_tool.models import LtiDeployment

from lti.models import DeploymentCourse, DeploymentQuiz, LineItem, ResourceLinkQuiz, ScoreSync


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


class DeploymentCourseInline(admin.TabularInline):
    model = DeploymentCourse
    extra = 1
    fields = ["course", "created_at"]
    readonly_fields = ["created_at"]
    verbose_name_plural = "Authorised Burn-in courses (launches may open only their quizzes)"


class DeploymentQuizInline(admin.TabularInline):
    model = DeploymentQuiz
    extra = 0
    fields = ["quiz", "created_at"]
    readonly_fields = ["created_at"]
    raw_id_fields = ["quiz"]
    verbose_name_plural = "Quizzes with no course placed by this deployment's deep linking"


@admin.register(LtiDeployment)
class LtiDeploymentAdmin(admin.ModelAdmin):
    """Where staff authorise a deployment for Burn-in courses: a launch from it opens
    only their quizzes (and the course-less ones its deep linking placed), and only such
    a launch grants an LMS-scoped course role or an enrolment. The deployment's own
    fields come from the LMS registration (django-lti)."""

    list_display = ["deployment_id", "registration", "is_active", "authorised_courses"]
    list_filter = ["is_active", "registration"]
    readonly_fields = ["registration", "deployment_id"]
    fields = ["registration", "deployment_id", "is_active"]
    inlines = [DeploymentCourseInline, DeploymentQuizInline]

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("burnin_courses__course")

    @admin.display(description="Authorised courses")
    def authorised_courses(self, obj) -> str:
        return ", ".join(str(row.course) for row in obj.burnin_courses.all()) or "none"

    def has_add_permission(self, request) -> bool:
        return False  # deployments are added with their registration
