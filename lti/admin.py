"""Admin: read-mostly views of what lti records; writes belong to the services (a
resend is the instructor's action, on the quiz's LMS grades page or the API)."""

from django import forms
from django.contrib import admin, messages
from django.urls import reverse
from django.utils import timezone
from lti_tool.models import LtiDeployment

from lti import dynamic_registration
from lti.models import (
    DeploymentCourse,
    DeploymentQuiz,
    LineItem,
    RegistrationInvite,
    ResourceLinkQuiz,
    ScoreSync,
)


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


class InviteForm(forms.ModelForm):
    days = forms.IntegerField(
        min_value=1,
        max_value=dynamic_registration.MAX_DAYS,
        initial=dynamic_registration.DEFAULT_DAYS,
        help_text="How long the URL stays usable.",
    )

    class Meta:
        model = RegistrationInvite
        fields = ["label", "courses"]


@admin.register(RegistrationInvite)
class RegistrationInviteAdmin(admin.ModelAdmin):
    """Where staff mint a one-time LTI Dynamic Registration URL for an LMS administrator:
    the courses it lists become the new deployment's authorised courses. The URL is shown
    once, after saving; only its hash is kept. Revoke one that is no longer wanted."""

    list_display = ["label", "created_by", "created_at", "expires_at", "state"]
    filter_horizontal = ["courses"]
    readonly_fields = ["created_by", "expires_at", "used_at", "revoked_at", "registration"]
    actions = ["revoke"]

    def get_form(self, request, obj=None, **kwargs):
        if obj is None:
            kwargs["form"] = InviteForm
        return super().get_form(request, obj, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["label", "courses", "days"]
        return ["label", "courses", *self.readonly_fields]

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return []
        return ["label", "courses", *self.readonly_fields]  # what a URL grants is fixed

    def has_change_permission(self, request, obj=None) -> bool:
        return obj is None or super().has_change_permission(request, obj)

    def save_model(self, request, obj, form, change):
        if change:
            return
        token = dynamic_registration.invite_prepare(
            obj, user=request.user, days=form.cleaned_data["days"]
        )
        obj.save()
        url = request.build_absolute_uri(reverse("lti-register", args=[token]))
        messages.warning(
            request,
            f"The registration URL, shown only now: {url} (paste it into the LMS's dynamic "
            "registration field; it works once).",
        )

    @admin.display(description="State")
    def state(self, obj) -> str:
        if obj.used_at:
            return "used"
        if obj.revoked_at:
            return "revoked"
        return "expired" if obj.expires_at <= timezone.now() else "usable"

    @admin.action(description="Revoke the selected registration URLs")
    def revoke(self, request, queryset):
        for invite in queryset:
            dynamic_registration.invite_revoke(user=request.user, invite=invite)
