"""Invitations in the admin: read-only (sending, resending and revoking go through the
pages, which mail and audit); the token's hash is never shown."""

from django.contrib import admin

from invitations.models import Invitation


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ["email", "target_key", "status", "sent_at", "expires_at", "invited_by"]
    list_filter = ["status"]
    search_fields = ["email"]
    exclude = ["token_hash"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
