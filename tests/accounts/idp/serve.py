"""Run the identity provider: migrate its database, seed its employees and clients, and
serve on 127.0.0.1 (port 0: a free one), printing "READY <port>" once it answers.

    python -m tests.accounts.idp.serve DATABASE_PATH
"""

from __future__ import annotations

import os
import sys
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

PASSWORD = "idp-pass"  # noqa: S105 - the test provider's employees' password
EMPLOYEES = {
    # username: (email, first, last, verified)
    "alice": ("alice@acme.example", "Alice", "Archer", True),
    "bob": ("bob@acme.example", "Bob", "Baker", True),
    "carol": ("carol@acme.example", "Carol", "Cook", False),
    "mallory": ("mallory@elsewhere.example", "Mallory", "Mole", True),
}
# client name (its fault, or "good"): (client id, secret)
CLIENTS = {
    "good": ("burnin-acme", "acme-secret"),
    "wrong-audience": ("burnin-aud", "aud-secret"),
    "expired": ("burnin-expired", "expired-secret"),
    "wrong-issuer": ("burnin-iss", "iss-secret"),
    "foreign-key": ("burnin-forged", "forged-secret"),
}
# Burn-in organisations' slugs the tests register (each its callback address).
PROVIDER_IDS = ("acme", "acme-two")


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


class ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


def seed() -> None:
    from django.contrib.auth.models import Group, User
    from oauth2_provider.models import Application

    from tests.accounts.idp.validator import UNVERIFIED

    unverified, _ = Group.objects.get_or_create(name=UNVERIFIED)
    for username, (email, first, last, verified) in EMPLOYEES.items():
        user = User.objects.create_user(
            username, email=email, password=PASSWORD, first_name=first, last_name=last
        )
        if not verified:
            user.groups.add(unverified)
    callbacks = " ".join(
        f"http://testserver/accounts/oidc/{slug}/login/callback/" for slug in PROVIDER_IDS
    )
    for name, (client_id, secret) in CLIENTS.items():
        Application.objects.create(
            name=name,
            client_id=client_id,
            client_secret=secret,
            client_type=Application.CLIENT_CONFIDENTIAL,
            authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
            redirect_uris=callbacks,
            algorithm=Application.RS256_ALGORITHM,
            skip_authorization=True,
        )


def main() -> None:
    os.environ["IDP_DATABASE"] = sys.argv[1]
    os.environ["DJANGO_SETTINGS_MODULE"] = "tests.accounts.idp.settings"
    import django
    from django.core.management import call_command
    from django.core.wsgi import get_wsgi_application

    django.setup()
    call_command("migrate", verbosity=0, interactive=False)
    seed()
    server = make_server(
        "127.0.0.1",
        0,
        get_wsgi_application(),
        server_class=ThreadingServer,
        handler_class=QuietHandler,
    )
    print(f"READY {server.server_port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
