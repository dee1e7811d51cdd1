"""Signal receivers: allauth's sign-up and confirmation, and users saved elsewhere."""

from __future__ import annotations

from allauth.account.models import EmailAddress
from allauth.account.signals import email_confirmed, user_signed_up
from allauth.socialaccount.signals import social_account_added
from django.conf import settings
from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts.services import email_address_adopt, sign_up_confirm, sign_up_record
from orgs.services import member_add
from orgs.sso import identity_provider_for


@receiver(user_signed_up, dispatch_uid="accounts.sign_up")
def on_signed_up(sender, request, user, **kwargs):
    """A self sign-up (not single sign-on, whose signal carries `sociallogin`) is
    recorded: the account practises at once and starts exams once confirmed."""
    if kwargs.get("sociallogin") is not None:
        return
    verified = EmailAddress.objects.filter(user=user, verified=True).exists()
    sign_up_record(user=user, confirmed=verified)


@receiver(email_confirmed, dispatch_uid="accounts.email_confirmed")
def on_email_confirmed(sender, request, email_address, **kwargs):
    sign_up_confirm(user=email_address.user)


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts.adopt_email")
def on_user_saved(sender, instance, created, raw=False, update_fields=None, **kwargs):
    """An account made or edited outside allauth gets its address as allauth's row (a
    save naming only other fields, such as a sign-in's last_login, is skipped)."""
    if raw or (update_fields is not None and "email" not in update_fields):
        return
    email_address_adopt(user=instance)


@receiver(social_account_added, dispatch_uid="accounts.sso_connected")
def on_sso_connected(sender, request, sociallogin, **kwargs):
    """An account joined to an organisation's provider (a signed-in person connecting
    it, or a member found by address) is a member of that organisation: the provider
    vouched for the address within the organisation's domains."""
    provider = identity_provider_for(provider_id=sociallogin.account.provider)
    if provider is not None:
        member_add(organization=provider.organization, user=sociallogin.user)
