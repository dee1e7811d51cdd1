"""The identity provider's Django settings (a project apart from Burn-in's)."""

import os
import secrets

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa


def _rsa_private_key() -> str:
    """A fresh RS256 signing key for each run of the provider."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


SECRET_KEY = secrets.token_urlsafe(40)
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "oauth2_provider",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]
ROOT_URLCONF = "tests.accounts.idp.urls"
TEMPLATES = [{"BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True}]
DATABASES = {
    "default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.environ["IDP_DATABASE"]}
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
LOGIN_URL = "/login/"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
OAUTH2_PROVIDER = {
    "OIDC_ENABLED": True,
    "OIDC_RSA_PRIVATE_KEY": _rsa_private_key(),
    "OAUTH2_VALIDATOR_CLASS": "tests.accounts.idp.validator.CompanyValidator",
    "SCOPES": {"openid": "OpenID Connect", "profile": "Your name", "email": "Your address"},
    "PKCE_REQUIRED": True,
    # Burn-in's test client answers at http://testserver.
    "ALLOWED_REDIRECT_URI_SCHEMES": ["http", "https"],
}
LOGGING = {"version": 1, "disable_existing_loggers": False}
