"""Every write operation of the schema, and how to reach it in the world: who sends it,
to which path, with which valid body.

`write_operations()` reads the generated schema, so a new POST, PUT, PATCH or DELETE
appears there at once; test_every_write_operation_has_a_target fails until it has a row
in TARGETS, and test_every_body_field_is_in_the_base_body until its base body carries
each of its fields (so every field gets hostile values).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.db import connection

from tests.badinput.world import NUMERIC_TEMPLATE, World, authored_document
from tests.factories import PASSWORD
from tests.openapi import JSON, OpenApiDocument

WRITE_METHODS = ("post", "put", "patch", "delete")


def write_operations(document: OpenApiDocument) -> dict[tuple[str, str], dict | None]:
    """{(METHOD, path template): its JSON request body schema, or None without a body}."""
    out = {}
    for template, operations in document.document["paths"].items():
        for method, operation in operations.items():
            if method in WRITE_METHODS:
                content = operation.get("requestBody", {}).get("content", {})
                out[(method.upper(), template)] = content.get(JSON, {}).get("schema")
    return out


@dataclass(frozen=True)
class Target:
    """`role`: the world's user who may send it (None: no credentials); `path(world)`;
    `body(world)`: a body the operation accepts (None for an operation without one)."""

    role: str | None
    path: Callable[[World], str]
    body: Callable[[World], dict] | None = None


def _attempt(w: World) -> str:
    return f"/api/attempts/{w.attempt}/"


TARGETS: dict[tuple[str, str], Target] = {
    ("POST", "/api/auth/token/"): Target(
        None, lambda w: "/api/auth/token/", lambda w: {"username": "learner", "password": PASSWORD}
    ),
    ("DELETE", "/api/auth/token/"): Target("learner", lambda w: "/api/auth/token/"),
    ("POST", "/api/attempts/{id}/responses/"): Target(
        "learner",
        lambda w: _attempt(w) + "responses/",
        lambda w: {
            "question": w.question,
            "part": w.part,
            "answer": "1 GB",
            "idempotency_key": "badinput-1",
            "time_spent_ms": 1200,
        },
    ),
    ("POST", "/api/attempts/{id}/questions/{qid}/reveal/"): Target(
        "learner",
        lambda w: f"{_attempt(w)}questions/{w.question_to_reveal}/reveal/",
        lambda w: {"part": w.part},
    ),
    ("POST", "/api/attempts/{id}/questions/{qid}/hints/"): Target(
        "learner",
        lambda w: f"{_attempt(w)}questions/{w.question_to_reveal}/hints/",
        lambda w: {"part": w.part},
    ),
    ("POST", "/api/attempts/{id}/questions/{qid}/new-variant/"): Target(
        "learner", lambda w: f"{_attempt(w)}questions/{w.question_to_reveal}/new-variant/"
    ),
    ("POST", "/api/attempts/{id}/questions/{qid}/drill/actions/"): Target(
        "learner",
        lambda w: f"/api/attempts/{w.drill_attempt}/questions/{w.drill_question}/drill/actions/",
        lambda w: {"action": "squeue", "idempotency_key": "badinput-step"},
    ),
    ("POST", "/api/attempts/{id}/questions/{qid}/drill/submit/"): Target(
        "learner",
        lambda w: f"/api/attempts/{w.drill_attempt}/questions/{w.drill_question}/drill/submit/",
        lambda w: dict(
            zip(("fault", "location", "remedy"), w.drill_answer, strict=True),
            idempotency_key="badinput-diagnosis",
        ),
    ),
    ("POST", "/api/attempts/{id}/finish/"): Target(
        "learner", lambda w: f"/api/attempts/{w.attempt_to_finish}/finish/"
    ),
    ("POST", "/api/certificates/{id}/revoke/"): Target(
        "staff",
        lambda w: f"/api/certificates/{w.certificate}/revoke/",
        lambda w: {"reason": "Left the rotation."},
    ),
    ("POST", "/api/courses/{slug}/enrol/"): Target(
        "staff", lambda w: f"/api/courses/{w.course.slug}/enrol/"
    ),
    ("POST", "/api/courses/{slug}/enrolments/"): Target(
        "instructor",
        lambda w: f"/api/courses/{w.course.slug}/enrolments/",
        lambda w: {"username": "admin"},
    ),
    ("DELETE", "/api/courses/{slug}/enrolments/{username}/"): Target(
        "instructor", lambda w: f"/api/courses/{w.course.slug}/enrolments/other/"
    ),
    ("POST", "/api/lessons/{slug}/practice/"): Target(
        "learner", lambda w: f"/api/lessons/{w.lesson.slug}/practice/"
    ),
    ("POST", "/api/capstone/brief/"): Target("other", lambda w: "/api/capstone/brief/"),
    ("POST", "/api/memos/"): Target(
        "other", lambda w: "/api/memos/", lambda w: {"markdown": "# Capacity plan\n\n8 GPUs."}
    ),
    ("POST", "/api/memos/{id}/versions/"): Target(
        "learner",
        lambda w: f"/api/memos/{w.memo}/versions/",
        lambda w: {"markdown": "# Capacity plan\n\n8 GPUs."},
    ),
    ("POST", "/api/memos/{id}/decision/"): Target(
        "instructor",
        lambda w: f"/api/memos/{w.memo}/decision/",
        lambda w: {
            "decision": "request_changes",
            "comment": "Show the KV cache.",
            "adjustments": [{"criterion": w.criterion, "points": 0, "comment": "Missing."}],
        },
    ),
    ("POST", "/api/quizzes/"): Target(
        "instructor",
        lambda w: "/api/quizzes/",
        lambda w: {
            "title": "Units",
            "mode": "homework",
            "slots": [{"templates": [NUMERIC_TEMPLATE], "points": 2}],
            "course": w.course.slug,
            "lessons": [w.lesson.slug],
            "time_limit_minutes": 30,
            "attempts_allowed": 2,
            "tries_per_part": 3,
            "penalty_per_try": 0.1,
            "hint_penalty": 0.25,
            "feedback": "immediately",
            "opens_at": "2026-01-01T00:00:00Z",
            "closes_at": "2099-01-01T00:00:00Z",
            "pass_mark": 0.5,
            "counting_attempt": "best",
            "status": "draft",
        },
    ),
    ("POST", "/api/quizzes/{id}/attempts/"): Target(
        "learner", lambda w: f"/api/quizzes/{w.quiz}/attempts/"
    ),
    ("POST", "/api/quizzes/{id}/publish/"): Target(
        "instructor", lambda w: f"/api/quizzes/{w.draft_quiz}/publish/"
    ),
    ("POST", "/api/quizzes/{id}/unpublish/"): Target(
        "instructor", lambda w: f"/api/quizzes/{w.quiz}/unpublish/"
    ),
    ("POST", "/api/quizzes/{id}/close/"): Target(
        "instructor", lambda w: f"/api/quizzes/{w.quiz}/close/"
    ),
    ("PUT", "/api/quizzes/{id}/extensions/{learner_id}/"): Target(
        "instructor",
        lambda w: f"/api/quizzes/{w.quiz}/extensions/{w.learner.pk}/",
        lambda w: {"extra_time_minutes": 15, "closes_at": "2099-01-02T00:00:00Z"},
    ),
    ("DELETE", "/api/quizzes/{id}/extensions/{learner_id}/"): Target(
        "instructor", lambda w: f"/api/quizzes/{w.quiz}/extensions/{w.other_learner.pk}/"
    ),
    ("POST", "/api/quizzes/{id}/lms-scores/resend/"): Target(
        "instructor", lambda w: f"/api/quizzes/{w.quiz}/lms-scores/resend/", lambda w: {"ids": [1]}
    ),
    # Authored templates: the course's course-wide instructor writes them.
    ("POST", "/api/courses/{slug}/authored-templates/"): Target(
        "instructor",
        lambda w: f"/api/courses/{w.course.slug}/authored-templates/",
        lambda w: {"document": authored_document("badinput-kv-budget")},
    ),
    ("POST", "/api/courses/{slug}/authored-templates/check/"): Target(
        "instructor",
        lambda w: f"/api/courses/{w.course.slug}/authored-templates/check/",
        lambda w: {"document": authored_document(), "slug": w.authored},
    ),
    ("POST", "/api/courses/{slug}/authored-templates/preview/"): Target(
        "instructor",
        lambda w: f"/api/courses/{w.course.slug}/authored-templates/preview/",
        lambda w: {"document": authored_document(), "slug": w.authored, "seeds": [0]},
    ),
    ("PUT", "/api/authored-templates/{slug}/"): Target(
        "instructor",
        lambda w: f"/api/authored-templates/{w.authored}/",
        lambda w: {"document": authored_document()},
    ),
    ("POST", "/api/authored-templates/{slug}/publish/"): Target(
        "instructor", lambda w: f"/api/authored-templates/{w.authored}/publish/"
    ),
    ("POST", "/api/authored-templates/{slug}/archive/"): Target(
        "instructor", lambda w: f"/api/authored-templates/{w.authored}/archive/"
    ),
    ("POST", "/api/authored-templates/{slug}/regrade/"): Target(
        "instructor",
        lambda w: f"/api/authored-templates/{w.authored}/regrade/",
        lambda w: {"dry_run": True},
    ),
}


def user_of(world: World, role: str | None):
    return None if role is None else getattr(world, role if role != "other" else "other_learner")


# Django's own bookkeeping, which no request of the API writes: left out to keep a
# snapshot cheap (hundreds of permission rows).
_UNWATCHED = {"contenttypes", "admin"}


def snapshot() -> dict[str, str]:
    """A checksum of every table's rows (every model of every app but Django's
    bookkeeping), to compare before and after a refused request: a refusal that wrote
    anything anywhere shows here."""
    out = {}
    with connection.cursor() as cursor:
        for model in apps.get_models(include_auto_created=True):
            meta = model._meta
            if meta.app_label in _UNWATCHED or meta.label == "auth.Permission":
                continue
            table = connection.ops.quote_name(meta.db_table)
            cursor.execute(f"SELECT * FROM {table}")  # noqa: S608 - a model's own table
            rows = sorted(map(repr, cursor.fetchall()))
            out[meta.label] = hashlib.sha256("\n".join(rows).encode()).hexdigest()
    return out


def changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(label for label in before if before[label] != after.get(label))


def error_format_problems(body: Any) -> list[str]:
    """How a 4xx body breaks the API's one error format `{type, errors: [{code, detail,
    attr}]}`, with a non-empty detail."""
    if not isinstance(body, dict) or not isinstance(body.get("errors"), list):
        return [f"not the error format: {body!r:.300}"]
    problems = []
    if body.get("type") not in ("validation_error", "client_error"):
        problems.append(f"type {body.get('type')!r}")
    if not body["errors"]:
        problems.append("no errors listed")
    for error in body["errors"]:
        if not (isinstance(error, dict) and {"code", "detail", "attr"} <= error.keys()):
            problems.append(f"error without code, detail, attr: {error!r:.200}")
        elif not str(error["detail"]).strip():
            problems.append(f"empty detail: {error!r:.200}")
    return problems
