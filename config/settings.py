"""Settings come from the environment; every value has an embedded default.

The defaults give the embedded shape used by `make run` and `make test`: SQLite in the
project folder, a per-process memory cache, mail printed to the console and Celery tasks
run in-process. The production shape (docker-compose.yml) sets DATABASE_URL, CACHE_URL,
CELERY_BROKER_URL, SECRET_KEY, EMAIL_URL, DEBUG=0 and ALLOWED_HOSTS.
"""

import os
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url

from assess.schedule import BEAT_SCHEDULE as ASSESS_BEAT_SCHEDULE
from capstone.schedule import BEAT_SCHEDULE as CAPSTONE_BEAT_SCHEDULE
from certify.schedule import BEAT_SCHEDULE as CERTIFY_BEAT_SCHEDULE
from config.account_settings import *  # noqa: F403 - ACCOUNT_*, SOCIALACCOUNT_*, SIGNUP_OPEN
from config.logging import logging_config
from config.mail import email_settings
from config.metrics_dir import configure_process as configure_metrics_process
from lti.schedule import BEAT_SCHEDULE as LTI_BEAT_SCHEDULE

BASE_DIR = Path(__file__).resolve().parent.parent

_DEV_SECRET = "dev-only-insecure-secret-key-change-me-in-production-0123456789"  # noqa: S105


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)
# Secrets come from the environment only. The embedded key signs nothing that matters
# (a development server on SQLite); with DEBUG off a missing, empty or embedded key stops
# the process at start-up rather than signing sessions with a key published in git.
SECRET_KEY = os.environ.get("SECRET_KEY", "").strip() or _DEV_SECRET
if not DEBUG and SECRET_KEY == _DEV_SECRET:
    raise RuntimeError("DEBUG=0 needs a real SECRET_KEY in the environment")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_standardized_errors",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "csp",
    # Before allauth: its page and mail templates are overridden by ours.
    "accounts",
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.openid_connect",
    "hardware_db",
    "problems",
    "curricula",
    "assess",
    "authoring",
    "capstone",
    "orgs",
    "certify",
    "audit",
    "invitations",
    "privacy",
    "lti_tool",
    "lti",
    "frontend",
]

MIDDLEWARE = [
    # Outermost: times the whole request and counts its queries (config/metrics.py).
    "config.metrics_middleware.MetricsMiddleware",
    # One log line per request, and the request id every line meanwhile carries.
    "config.request_log.RequestLogMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Before the session: it rewrites the cookies and framing headers set further in.
    "lti.middleware.LtiFrameMiddleware",
    # Inside LtiFrameMiddleware: the policy is written first, and a launched session's
    # pages then have its frame-ancestors replaced by the LMS's origins.
    "csp.middleware.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # A body over DATA_UPLOAD_MAX_MEMORY_SIZE is a 413 before anything parses it: first
    # of those that read bodies (api_common/request_size.py).
    "api_common.request_size.RefuseLargeBodyMiddleware",
    # A NUL in a page's path, query or form is a 400 (PostgreSQL text cannot hold one).
    "frontend.middleware.RefuseNulMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # SQLite gains nothing from persistent connections; keep it simple.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    # Concurrent writers: write transactions take the lock when they begin (BEGIN
    # IMMEDIATE) and wait up to 20 s for it, instead of failing "database is locked" when
    # a read lock cannot be upgraded; WAL lets readers run beside the one writer.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        **DATABASES["default"].get("OPTIONS", {}),
    }
elif DATABASES["default"]["ENGINE"].endswith("postgresql"):
    # Django's backend, but a kept connection is checked before reuse (CONN_HEALTH_CHECKS)
    # by looking at its socket instead of a `SELECT 1` round trip on every request
    # (config/postgresql/base.py says why, and what it measured).
    DATABASES["default"]["ENGINE"] = "config.postgresql"
    # Parameters travel apart from the SQL (psycopg's server-side binding), and a
    # statement a connection has run `DATABASE_PREPARE_THRESHOLD` times (default 5) is
    # prepared, so PostgreSQL stops parsing and planning the statements every request
    # repeats (the answer path's reads and writes, token checks). Django turns
    # preparation off unless OPTIONS asks (its psycopg backend sets prepare_threshold to
    # None), and binding alone prepares nothing: the server's log showed every statement
    # parsed and planned on every run. Behind a pooler in transaction mode (PgBouncer's)
    # set DATABASE_PREPARE_THRESHOLD=off, or DATABASE_SERVER_SIDE_BINDING=0 for
    # psycopg's client-side binding as well.
    options = DATABASES["default"].setdefault("OPTIONS", {})
    options["server_side_binding"] = env_bool("DATABASE_SERVER_SIDE_BINDING", True)
    threshold = os.environ.get("DATABASE_PREPARE_THRESHOLD", "5").strip().lower()
    options["prepare_threshold"] = None if threshold in {"off", "none", ""} else int(threshold)
    # PostgreSQL compiles a statement whose estimated cost passes jit_above_cost (100,000)
    # with LLVM: 20 ms spent on every run of a page's aggregate that executes in 200 ms
    # (the course progress page at 5,743 learners, issue 43), never paid back by queries
    # this short. DATABASE_JIT=1 leaves the server's setting alone.
    if not env_bool("DATABASE_JIT", False):
        options["options"] = "-c jit=off"
    # A server that is down or restarting fails a request fast (a 503, api_common/unavailable.py)
    # instead of holding a worker: the connect gives up after this many seconds, and a
    # kept connection is checked before reuse (CONN_HEALTH_CHECKS, above).
    DATABASES["default"]["OPTIONS"]["connect_timeout"] = int(
        os.environ.get("DATABASE_CONNECT_TIMEOUT", "5")
    )


def cache_from_url(url: str) -> dict:
    """CACHE_URL → a CACHES entry: redis:// rediss:// unix:// (Redis), locmem:// or dummy://;
    unset, a memory cache per process (the embedded default)."""
    scheme = urlsplit(url).scheme.lower() if url else "locmem"
    if scheme in {"redis", "rediss", "unix"}:
        # A down or hung cache degrades (config/cache.py) within these timeouts.
        timeout = float(os.environ.get("CACHE_SOCKET_TIMEOUT", "1.0"))
        return {
            "BACKEND": "config.cache.TolerantRedisCache",
            "LOCATION": url,
            "OPTIONS": {"socket_timeout": timeout, "socket_connect_timeout": timeout},
        }
    if scheme == "locmem":
        return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "burnin"}
    if scheme == "dummy":
        return {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}
    raise RuntimeError(f"CACHE_URL has an unknown scheme {scheme!r}; use redis:// or locmem://")


# The sign-in throttles count here: with several web processes, use a shared cache.
CACHES = {"default": cache_from_url(os.environ.get("CACHE_URL", ""))}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    # Refuses nothing: Django tells it of every saved password change, and it revokes the
    # user's API tokens (accounts/passwords.py), whichever road changed the password.
    {"NAME": "accounts.passwords.RevokeTokensOnPasswordChange"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# Files browsers ask for at the site's root (/favicon.ico), served by WhiteNoise.
WHITENOISE_ROOT = BASE_DIR / "frontend" / "root"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# The public address of the service, for links in mail (certificate reminders).
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000")

LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "dashboard"  # a signed-in learner starts from their own progress
LOGOUT_REDIRECT_URL = "home"

# Mail (sign-up confirmations, password resets): EMAIL_URL, e.g. smtp+tls://user:password@mail.example.com:587,
# read by dj-email-url (config/mail.py). Required with DEBUG=0; with DEBUG=1 mail is
# printed to the console unless EMAIL_URL says otherwise.
_email_url = os.environ.get("EMAIL_URL", "")
if not _email_url and not DEBUG:
    raise RuntimeError(
        "DEBUG=0 needs EMAIL_URL in the environment "
        "(e.g. smtp+tls://user:password@mail.example.com:587) to send password resets"
    )
_email = email_settings(_email_url or "console://")
EMAIL_BACKEND = _email["EMAIL_BACKEND"]
EMAIL_HOST = _email["EMAIL_HOST"] or "localhost"
EMAIL_PORT = _email["EMAIL_PORT"] or 25
EMAIL_HOST_USER = _email["EMAIL_HOST_USER"] or ""
EMAIL_HOST_PASSWORD = _email["EMAIL_HOST_PASSWORD"] or ""
EMAIL_USE_TLS = _email["EMAIL_USE_TLS"]
EMAIL_USE_SSL = _email["EMAIL_USE_SSL"]
EMAIL_TIMEOUT = _email["EMAIL_TIMEOUT"]
if _email["EMAIL_FILE_PATH"]:
    EMAIL_FILE_PATH = _email["EMAIL_FILE_PATH"]


def _mail_domain() -> str:
    for host in ALLOWED_HOSTS:
        host = host.lstrip(".")
        if host and "*" not in host and not host.startswith("[") and host != "127.0.0.1":
            return host
    return "localhost"


DEFAULT_FROM_EMAIL = (
    os.environ.get("DEFAULT_FROM_EMAIL")
    or _email.get("DEFAULT_FROM_EMAIL")
    or f"Burn-in <noreply@{_mail_domain()}>"
)
SERVER_EMAIL = os.environ.get("SERVER_EMAIL") or _email.get("SERVER_EMAIL") or DEFAULT_FROM_EMAIL

# API tokens expire this long after they were issued (days; api_common/authentication.py).
API_TOKEN_TTL = timedelta(days=float(os.environ.get("API_TOKEN_TTL", "30")))
# An invitation's link works this long after it was (last) mailed (days; invitations/).
INVITATION_TTL = timedelta(days=float(os.environ.get("INVITATION_TTL", "7")))

REST_FRAMEWORK = {
    # drf-standardized-errors' AutoSchema, with nested error paths as sent (config/api_errors).
    "DEFAULT_SCHEMA_CLASS": "api_common.errors.AutoSchema",
    # Token first: an unauthenticated request is then a 401 with WWW-Authenticate, and a
    # signed-in user without the right is a 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api_common.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "api_common.pagination.Pagination",
    # DRF's JSON renderer, letting go of what only rendering needed (api_common/
    # renderers.py); the browsable API as DRF has it.
    "DEFAULT_RENDERER_CLASSES": [
        "api_common.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    # One error format for every endpoint (api_common/errors.py).
    "EXCEPTION_HANDLER": "drf_standardized_errors.handler.exception_handler",
    # `Accept: application/json; version=1`; no version means the newest (docs/api.md,
    # "Versions and compatibility").
    "DEFAULT_VERSIONING_CLASS": "rest_framework.versioning.AcceptHeaderVersioning",
    "DEFAULT_VERSION": "1",
    "ALLOWED_VERSIONS": ["1"],
    # Request bodies are JSON only; unreadable or too deeply nested JSON is a 400, never a
    # 500 (api_common/parsers.py).
    "DEFAULT_PARSER_CLASSES": ["api_common.parsers.JSONParser"],
    # Sign-in throttles (api_common/throttles.py): every POST to the token endpoint, the
    # sign-in pages, the password reset, change and re-authentication counts, per account
    # (the username or email typed) and per client IP; sign-ups per client IP.
    "DEFAULT_THROTTLE_RATES": {
        "sign_in_username": os.environ.get("THROTTLE_SIGN_IN_USERNAME", "10/15m"),
        "sign_in_ip": os.environ.get("THROTTLE_SIGN_IN_IP", "50/15m"),
        "password_reset_email": os.environ.get("THROTTLE_PASSWORD_RESET_EMAIL", "5/15m"),
        "sign_up_ip": os.environ.get("THROTTLE_SIGN_UP_IP", "10/h"),
        # The capstone's live preview, per user (api_common.throttles.MemoPreviewThrottle).
        "memo_preview": os.environ.get("THROTTLE_MEMO_PREVIEW", "30/m"),
        # Sending or resending invitations, per user (each POST mails up to 200).
        "invitation_send": os.environ.get("THROTTLE_INVITATION_SEND", "30/h"),
    },
    # Proxies in front that append to X-Forwarded-For; 0 trusts REMOTE_ADDR only.
    "NUM_PROXIES": int(os.environ.get("NUM_PROXIES", "0")),
}
# The per-account sign-in throttles count by account whichever identifier was typed; this
# names who they ask (api_common imports no app, so the settings tell it).
THROTTLE_ACCOUNT_LOOKUP = "accounts.selectors.account_id_for"

DRF_STANDARDIZED_ERRORS = {
    "EXCEPTION_HANDLER_CLASS": "api_common.errors.ApiExceptionHandler",
    "EXCEPTION_FORMATTER_CLASS": "api_common.errors.ApiExceptionFormatter",
    # Unhandled exceptions are 500s in the same format, also while debugging, so a client
    # never has to parse an HTML page.
    "ENABLE_IN_DEBUG_FOR_UNHANDLED_EXCEPTIONS": True,
    # The 401 body with our `token_expired` code beside the library's two, and the 413
    # of a body over DATA_UPLOAD_MAX_MEMORY_SIZE (api_common/request_size.py), which any
    # operation may answer.
    "ALLOWED_ERROR_STATUS_CODES": ["400", "401", "403", "404", "405", "406", "413", "415"]
    + ["429", "500"],
    "ERROR_SCHEMAS": {
        401: "api_common.errors.ErrorResponse401Serializer",
        413: "api_common.errors.ErrorResponse413Serializer",
    },
}

_ERRORS = "drf_standardized_errors.openapi_serializers"
SPECTACULAR_SETTINGS = {
    "TITLE": "Burn-in API",
    "DESCRIPTION": (
        "Problems, hardware, curricula and assessments for AI-infrastructure engineers.\n\n"
        "**Authentication.** `POST /api/auth/token/` with a username and password gives a "
        "token; send it as `Authorization: Token <token>`. Without it a protected operation "
        "answers 401; a signed-in user without the right answers 403 (or 404 where even the "
        "object's existence is private, such as another learner's attempt).\n\n"
        "**Versions.** This is version 1. Ask for it with "
        "`Accept: application/json; version=1`; without a version the newest is served, and "
        "an unknown one is 406. Within a version fields and operations are only added, "
        "never removed or changed in meaning.\n\n"
        "**Errors.** Every error body is `{type, errors: [{code, detail, attr}]}`; `attr` "
        "names the request field at fault (nested fields joined by `.`), or is null. A "
        "request body over 2.5 MB is refused with 413, code `request_too_large`, unused."
        "\n\n"
        "**Lists** are paginated: `{count, next, previous, results}`, with `?page=` and "
        "`?page_size=` (at most 200)."
    ),
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    # No online validator badge: it would load an image from validator.swagger.io, which
    # the content security policy refuses.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Request and response components apart, so read-only fields stay out of requests.
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "LessonStatusEnum": "curricula.models.Lesson.Status",
        "LinkKindEnum": "hardware_db.models.Link.Kind",
        "QuizStatusEnum": "assess.models.Quiz.Status",
        "AuthoredTemplateStatusEnum": "authoring.models.AuthoredTemplate.Status",
        "PartKindEnum": ["numeric", "integer", "choice"],
        "ValidationErrorEnum": f"{_ERRORS}.ValidationErrorEnum.choices",
        "ClientErrorEnum": f"{_ERRORS}.ClientErrorEnum.choices",
        "ServerErrorEnum": f"{_ERRORS}.ServerErrorEnum.choices",
        "ErrorCode401Enum": "api_common.errors.ErrorCode401.choices",
        "ErrorCode403Enum": f"{_ERRORS}.ErrorCode403Enum.choices",
        "ErrorCode404Enum": f"{_ERRORS}.ErrorCode404Enum.choices",
        "ErrorCode405Enum": f"{_ERRORS}.ErrorCode405Enum.choices",
        "ErrorCode406Enum": f"{_ERRORS}.ErrorCode406Enum.choices",
        "ErrorCode415Enum": f"{_ERRORS}.ErrorCode415Enum.choices",
        "ErrorCode429Enum": f"{_ERRORS}.ErrorCode429Enum.choices",
        "ErrorCode500Enum": f"{_ERRORS}.ErrorCode500Enum.choices",
    },
    # drf-standardized-errors' copy of drf-spectacular's enum hook (it leaves the
    # per-operation error components alone).
    "POSTPROCESSING_HOOKS": ["drf_standardized_errors.openapi_hooks.postprocess_schema_enums"],
}

# Celery: with no broker configured, tasks run in-process (the embedded default).
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", CELERY_BROKER_URL or None)
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
# Draw exams' and homework's variants ahead of their starts (assess.services.drawn_variants)
# in a worker: on with a broker; in-process it would make a publish wait for the drawing.
PREDRAW_VARIANTS = env_bool("PREDRAW_VARIANTS", bool(CELERY_BROKER_URL))
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = TIME_ZONE
# Memo reviews are slow and run on their own queue, so a burst of them never delays the
# minute-by-minute beat tasks (docker-compose runs a worker for each queue).
# A task interrupted by a lost broker connection is cancelled and redelivered (the
# Celery 6 default, said now): every task here is idempotent.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
CELERY_TASK_ROUTES = {"capstone.tasks.review_memo_version": {"queue": "reviews"}}
# Redis redelivers a message whose worker died before acknowledging it (acks_late) once
# this many seconds have passed since it was delivered. It must exceed the longest task
# (a review takes well under a second) and bounds how long a killed worker's review waits:
# a running worker looks for expired messages about every 100 s (kombu 5), and a starting
# one once, so a whole worker's death costs the timeout plus up to ~100 s. A killed pool
# process costs nothing of the kind: its task is rejected and requeued at once.
# A publish happens in a request, after its commit (config.celery.try_delay): a broker
# that is down or hung must cost the request seconds, not minutes. kombu's Redis sockets
# wait forever by default, so a Redis that accepts connections and never answers (a
# stopped process, a dropped route) held the request for good; now every connect and
# command gives up after BROKER_SOCKET_TIMEOUT and a publish is tried twice, so the worst
# case is about 2 x (timeout + timeout) and the row stays pending for its beat requeue.
# Workers read with BRPOP on their event loop (1 s polls), untouched by the timeout.
BROKER_SOCKET_TIMEOUT = float(os.environ.get("CELERY_BROKER_SOCKET_TIMEOUT", "1.5"))
# /readyz: seconds each of its checks (database, cache, broker) may take.
READINESS_TIMEOUT = float(os.environ.get("READINESS_TIMEOUT", "2"))

# Who may read /metrics (frontend/views/metrics.py): a client address in one of these
# networks (comma-separated CIDRs; loopback by default), or any client sending
# `Authorization: Bearer <METRICS_TOKEN>` when that is set. Everyone else: 403.
METRICS_ALLOWED_NETWORKS = [
    n.strip()
    for n in os.environ.get("METRICS_ALLOWED_NETWORKS", "127.0.0.1/32,::1/128").split(",")
    if n.strip()
]
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "")
# METRICS_DIR (a directory all the service's processes share, e.g. a compose volume):
# gunicorn workers and Celery children record into files there, merged by /metrics.
configure_metrics_process()
CELERY_BROKER_CONNECTION_TIMEOUT = BROKER_SOCKET_TIMEOUT
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "600")),
    "socket_timeout": BROKER_SOCKET_TIMEOUT,
    "socket_connect_timeout": BROKER_SOCKET_TIMEOUT,
}
# Each app's schedule is a plain dict module (no Django imports), safe to read from settings.
CELERY_BEAT_SCHEDULE = {
    **ASSESS_BEAT_SCHEDULE,
    **CAPSTONE_BEAT_SCHEDULE,
    **CERTIFY_BEAT_SCHEDULE,
    **LTI_BEAT_SCHEDULE,
}

# Content security policy (django-csp), on every response in every mode: scripts, styles
# and everything else only from this origin, so an injected <script>, on* attribute or
# style attribute does nothing. Every script is a static file (the exam countdown, the
# deep-linking auto-submit, the Swagger page's set-up via SpectacularSwaggerSplitView),
# htmx is configured by a meta tag and adds no <style> of its own. img-src allows data:
# for the Swagger UI's icons (data: SVGs in its CSS). frame-ancestors 'none' agrees with
# X-Frame-Options: DENY; LTI responses and a launched session's pages name the LMS's
# origins instead (lti.framing, lti.middleware), and the deep-linking response may post
# to the LMS's return URL (form-action, lti.views). Nothing is silenced: no unsafe-inline,
# no unsafe-eval, no nonce (nothing needs one).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# Security headers, in every mode (Django's SecurityMiddleware); each can be changed from
# the environment, and the defaults are the strict ones.
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = os.environ.get("SECURE_REFERRER_POLICY", "same-origin")
# COOP applies to top-level pages only, so it does not touch the LMS's iframe.
SECURE_CROSS_ORIGIN_OPENER_POLICY = os.environ.get(
    "SECURE_CROSS_ORIGIN_OPENER_POLICY", "same-origin"
)
X_FRAME_OPTIONS = "DENY"

# Production hardening, on whenever DEBUG is off (checked by `manage.py check --deploy`).
if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)

# Structured logs (config/logging.py): one JSON object per line, or readable console
# lines (the default while DEBUG is on, as under `make run`).
LOG_FORMAT = os.environ.get("LOG_FORMAT", "") or ("console" if DEBUG else "json")
LOGGING = logging_config(LOG_FORMAT, os.environ.get("LOG_LEVEL", "INFO"))

# LTI 1.3 tool (lti/, on django-lti's `lti_tool` models). Seconds throughout.
LTI_CLOCK_LEEWAY_SECONDS = 60  # allowed clock skew for exp and iat
LTI_LOGIN_TIMEOUT_SECONDS = 600  # a login's state and nonce wait this long for the launch
LTI_KEYSET_CACHE_SECONDS = 3600  # platform key sets are cached this long
LTI_KEYSET_REFETCH_SECONDS = 60  # at most one refetch per key-set URL for an unknown kid
LTI_HTTP_TIMEOUT_SECONDS = 5
