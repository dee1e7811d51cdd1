"""`manage.py revoke_tokens USERNAME...`: revoke every API token of these users (each
revocation audited, actor the system)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from accounts.tokens import tokens_revoke_for_user


class Command(BaseCommand):
    help = "Revoke every API token of the named users."

    def add_arguments(self, parser):
        parser.add_argument("usernames", nargs="+")

    def handle(self, *args, usernames, **options):
        users = {u.username: u for u in get_user_model().objects.filter(username__in=usernames)}
        missing = [name for name in usernames if name not in users]
        if missing:
            raise CommandError(f"No such user: {', '.join(missing)}")
        for name in usernames:
            n = tokens_revoke_for_user(actor=None, user=users[name])
            self.stdout.write(f"{name}: {n} token(s) revoked")
