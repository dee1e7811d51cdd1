from django.contrib import admin

from certify.models import Certificate, Track


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
