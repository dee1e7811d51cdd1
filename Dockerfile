# One image for web, worker and beat; docker-compose.yml picks the command.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app

RUN apt-get update && apt-get install -y --no-install-recommends libpq5 curl \
    && rm -rf /var/lib/apt/lists/*

COPY pyproject.toml ./
COPY config config
COPY api_common api_common
COPY accounts accounts
COPY assess assess
COPY problems problems
COPY curricula curricula
COPY hardware_db hardware_db
COPY frontend frontend
COPY certify certify
COPY orgs orgs
COPY lti lti
COPY audit audit
COPY invitations invitations
COPY privacy privacy
COPY capstone capstone
COPY authoring authoring
COPY manage.py ./
# Editable: the code runs from /app; pyproject.toml is the one list of pinned packages.
RUN pip install -e .

# Hashed, compressed static files for whitenoise's manifest storage (used when DEBUG=0).
# The placeholder secret exists only in this build step; the real one comes at run time.
RUN DEBUG=0 SECRET_KEY=collectstatic-build-step-only EMAIL_URL=console:// python manage.py collectstatic --noinput

RUN useradd --create-home burnin
# The metrics volume (docker-compose.yml) starts as a copy of this directory, owned by the
# user the processes run as.
RUN mkdir /metrics && chown burnin /metrics
USER burnin
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--config", "python:config.gunicorn", "--bind", "0.0.0.0:8000", "--workers", "3", "--no-control-socket"]
