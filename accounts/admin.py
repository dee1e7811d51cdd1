"""The deletion record in /admin/ (read-only). Staff's actions on people (deactivate,
export, delete) are on the Users list, from privacy/admin.py: they reach every app's
data, which accounts (below assess in the layers) does not."""

from __future__ import annotations

from django.contrib import admin

from accounts.models import Erasure


@admin.register(Erasure)
class ErasureAdmin(admin.ModelAdmin):
    """Read-only: which accounts were deleted, when and by whom (staff or the owner)."""

    list_display = ["user", "erased_at", "by_staff"]
    list_filter = ["by_staff"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
