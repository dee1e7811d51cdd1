"""Single sign-on as a person does it, against the live provider (tests/accounts/idp/):
Burn-in's start page sends the browser to the provider, the employee signs in there,
the provider sends the browser back to Burn-in's callback with a code, and Burn-in
exchanges the code for tokens and checks them, over real HTTP both ways.

The browser is two clients: Django's test client for Burn-in (http://testserver) and a
requests session for the provider (its own cookies), joined by the redirects."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import requests

from orgs.services import member_add, organization_create
from orgs.sso import ProviderSettings, identity_provider_save
from tests.accounts.idp.serve import CLIENTS, PASSWORD

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Provider:
    """The running identity provider."""

    url: str
    process: subprocess.Popen

    @property
    def issuer(self) -> str:
        return f"{self.url}/o"


def start_provider() -> Provider:
    database = Path(tempfile.mkdtemp(prefix="burnin-idp-")) / "idp.sqlite3"
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.accounts.idp.serve", str(database)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if line.startswith("READY "):
            return Provider(f"http://127.0.0.1:{int(line.split()[1])}", process)
        if not line and process.poll() is not None:
            break
    process.kill()
    raise RuntimeError(f"the identity provider did not start: {process.stdout.read()}")


def stop_provider(provider: Provider) -> None:
    provider.process.terminate()
    try:
        provider.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        provider.process.kill()


def register(
    provider: Provider,
    *,
    slug: str = "acme",
    client: str = "good",
    domains=("acme.example",),
    required: bool = False,
    issuer: str | None = None,
):
    """An organisation of Burn-in with the provider's client registered, as staff would
    on its single sign-on page."""
    organization = organization_create(slug=slug, name=f"{slug.title()} Corp")
    client_id, secret = CLIENTS[client]
    identity_provider_save(
        actor=None,
        organization=organization,
        values=ProviderSettings(
            issuer=issuer or provider.issuer,
            client_id=client_id,
            client_secret=secret,
            domains=tuple(domains),
            required=required,
        ),
    )
    return organization


def member(organization, user, role: str = "member"):
    return member_add(organization=organization, user=user, role=role)


@dataclass
class SignOn:
    """One sign-on's steps, each kept for the test to read."""

    start: object  # Burn-in's answer to the POST that starts it (302 to the provider)
    authorize_url: str
    provider_answer: requests.Response  # the provider's redirect back (302)
    finish: object  # Burn-in's answer to the callback


def sign_on(
    client, provider: Provider, employee: str, *, slug: str = "acme", next_url="", query=""
):
    """Start at Burn-in, sign in at the provider as `employee`, come back with the code."""
    query = "&".join(q for q in (f"next={next_url}" if next_url else "", query) if q)
    start_url = f"/accounts/oidc/{slug}/login/" + (f"?{query}" if query else "")
    start = client.post(start_url)
    assert start.status_code == 302, start.content[:500]
    authorize_url = start["Location"]
    browser = requests.Session()
    signed_in = browser.post(
        f"{provider.url}/login/",
        data={"username": employee, "password": PASSWORD},
        allow_redirects=False,
        timeout=10,
    )
    assert signed_in.status_code == 302, signed_in.text
    answer = browser.get(authorize_url, allow_redirects=False, timeout=10)
    assert answer.status_code == 302, answer.text[:500]
    back = urlsplit(answer.headers["Location"])
    assert back.netloc == "testserver", back
    finish = client.get(f"{back.path}?{back.query}")
    return SignOn(start, authorize_url, answer, finish)


def query_of(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
