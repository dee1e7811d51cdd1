from django.contrib import admin

from certify.models import Certificate, ExamDecision, StandardSetting, Track


@admin.register(Track)
class TrackAdmin(admin.ModelAdmin):
    """Tracks come from certify/data (load_tracks); edit the files, not these rows."""

    list_display = ["title", "slug", "mastery_threshold", "requires_memo", "validity_days"]
    readonly_fields = ["slug", "exam"]
    filter_horizontal = ["lessons"]


@admin.register(Certificate)
class CertificateAdmin(admin.ModelAdmin):
    """Issued by the service only; revoke from the team page (the reason is required)."""

    list_display = ["id", "holder", "track", "status", "issued_at", "expires_at"]
    list_filter = ["status", "track"]
    search_fields = ["id", "holder__username"]
    readonly_fields = [f.name for f in Certificate._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(StandardSetting)
class StandardSettingAdmin(admin.ModelAdmin):
    """Set with `manage.py certify standard-set` (staff, from Angoff ratings); read here."""

    list_display = ["track", "version", "cut_theta", "borderline_score", "set_by", "created_at"]
    list_filter = ["track"]
    readonly_fields = [f.name for f in StandardSetting._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(ExamDecision)
class ExamDecisionAdmin(admin.ModelAdmin):
    """Recorded once per finished certification exam; never edited."""

    list_display = ["attempt", "rule", "passed", "theta", "se", "cut", "created_at"]
    list_filter = ["rule", "passed"]
    readonly_fields = [f.name for f in ExamDecision._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
