"""The audit log in the admin, read only: no add, change or delete for anyone."""

from __future__ import annotations

from django.contrib import admin

from audit.models import AuditEvent


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    list_display = ("at", "actor_label", "action", "target_type", "target_id", "target_label")
    list_filter = ("action", "target_type")
    search_fields = ("actor_label", "target_label", "target_id")
    date_hierarchy = "at"
    list_select_related = False
    readonly_fields = [f.name for f in AuditEvent._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
