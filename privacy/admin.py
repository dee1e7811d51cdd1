"""Staff's account actions in /admin/ (Users): deactivate and reactivate
(accounts.services.deprovision), export a person's data (one JSON file per person in a
zip, audited), and delete a person's account (anonymised in place,
privacy.erasure) after a confirmation page. Each action goes through the
service that the learner's own pages and the tests use; the admin only chooses whom."""

from __future__ import annotations

import io
import json
import zipfile

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone

from accounts.services.deprovision import account_deactivate, account_reactivate
from api_common.service_errors import InvalidInput
from audit.models import AuditEvent
from audit.services import audit_record
from privacy.erasure import account_anonymise
from privacy.export import personal_data

User = get_user_model()
admin.site.unregister(User)


@admin.register(User)
class AccountAdmin(UserAdmin):
    actions = ["deactivate", "reactivate", "export_data", "anonymise"]
    list_filter = (*UserAdmin.list_filter, ("erasure", admin.EmptyFieldListFilter))

    @admin.action(description="Deactivate: refuse sign-in, revoke tokens, end sessions")
    def deactivate(self, request, queryset):
        done = 0
        for user in queryset:
            try:
                done += account_deactivate(actor=request.user, user=user)
            except InvalidInput as err:
                self.message_user(request, f"{user}: {err}", messages.ERROR)
        self.message_user(request, f"{done} account(s) deactivated.")

    @admin.action(description="Reactivate: let sign-in work again")
    def reactivate(self, request, queryset):
        done = 0
        for user in queryset.filter(erasure__isnull=True):
            done += account_reactivate(actor=request.user, user=user)
        self.message_user(request, f"{done} account(s) reactivated (deleted accounts stay off).")

    @admin.action(description="Download their data (a zip of one JSON file each)")
    def export_data(self, request, queryset):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for user in queryset.order_by("username"):
                data = personal_data(user=user)
                archive.writestr(f"{user.username}.json", json.dumps(data, indent=2))
                audit_record(
                    actor=request.user, action=AuditEvent.Action.ACCOUNT_EXPORT, target=user
                )
        response = HttpResponse(buffer.getvalue(), content_type="application/zip")
        name = f"burn-in-people-{timezone.now():%Y-%m-%d}.zip"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response

    @admin.action(description="Delete their accounts (anonymise in place)…")
    def anonymise(self, request, queryset):
        people = list(queryset.exclude(pk=request.user.pk).filter(erasure__isnull=True))
        if request.POST.get("confirmed") == "yes":
            for user in people:
                account_anonymise(actor=request.user, user=user)
            self.message_user(request, f"{len(people)} account(s) deleted (anonymised).")
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": "Delete these accounts?",
            "people": people,
            "opts": self.model._meta,
            "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/accounts/anonymise_confirm.html", context)
