"""The OpenAPI schema of the assess routes generates with no warning, validates, and tells
a client author the truth: request models hold only what the server reads, with the
bounds it enforces; every status an operation can answer is listed, with its error
body; lists are documented as pages; every operation says what it does and who may."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from tests.openapi import project

ASSESS = ("/api/auth/", "/api/quizzes/", "/api/attempts/", "/api/me/", "/api/lessons/{slug}/p")
ASSESS += ("/api/courses/{slug}/enrol",)


def operation(method: str, path: str) -> dict:
    return project().operation(method, path)


def schemas() -> dict:
    return project().document["components"]["schemas"]


def component(ref_holder: dict) -> dict:
    return schemas()[ref_holder["$ref"].rsplit("/", 1)[1]]


def body_schema(op: dict, status: str) -> dict:
    return op["responses"][status]["content"]["application/json"]["schema"]


def assess_operations():
    for path, ops in project().document["paths"].items():
        if path.startswith(ASSESS):
            for method, op in ops.items():
                if method in ("get", "post", "put", "patch", "delete"):
                    yield method, path, op


@pytest.mark.django_db
def test_schema_has_no_warnings(tmp_path):
    out = tmp_path / "schema.yaml"
    stderr = StringIO()
    call_command(
        "spectacular",
        "--urlconf",
        "tests.assess.urls",
        "--fail-on-warn",
        "--validate",
        "--file",
        str(out),
        stderr=stderr,
    )
    assert stderr.getvalue() == ""
    text = out.read_text()
    for path in (
        "/api/quizzes/{id}/attempts/",
        "/api/attempts/{id}/responses/",
        "/api/auth/token/",
    ):
        assert path in text


def test_the_version_is_declared():
    info = project().document["info"]
    assert info["version"] == "1"
    assert "version=1" in info["description"]


# ------------------------------------------------------------------------- requests


def test_the_token_request_holds_username_and_password_only():
    op = operation("post", "/api/auth/token/")
    assert list(op["requestBody"]["content"]) == ["application/json"]
    request = component(op["requestBody"]["content"]["application/json"]["schema"])
    assert set(request["properties"]) == {"username", "password"}
    assert set(request["required"]) == {"username", "password"}
    assert request["properties"]["username"]["minLength"] == 1
    assert set(component(body_schema(op, "200"))["properties"]) == {"token", "expires_at"}


def test_request_bodies_are_json_only():
    for method, path, op in assess_operations():
        if "requestBody" in op:
            assert list(op["requestBody"]["content"]) == ["application/json"], (method, path)


def test_read_only_fields_stay_out_of_requests():
    slot = schemas()["SlotRequest"]
    assert set(slot["properties"]) == {"points", "templates"}
    assert slot["required"] == ["templates"]
    assert slot["properties"]["templates"]["minItems"] == 1
    assert set(schemas()["Slot"]["required"]) == {"order", "points", "templates"}


def test_what_the_server_refuses_blank_or_empty_the_schema_refuses_too():
    answer = schemas()["ResponseInputRequest"]["properties"]
    assert answer["idempotency_key"]["minLength"] == 1
    assert answer["idempotency_key"]["maxLength"] == 100
    assert answer["part"]["minLength"] == 1
    assert "minLength" not in answer["answer"]  # a blank answer is read, and refused as such
    assert answer["question"]["minimum"] == 1
    quiz = schemas()["QuizCreateRequest"]["properties"]
    assert (quiz["slots"]["minItems"], quiz["slots"]["maxItems"]) == (1, 100)
    assert (quiz["title"]["minLength"], quiz["title"]["maxLength"]) == (1, 200)
    assert quiz["time_limit_minutes"]["maximum"] == 10080
    assert schemas()["EnrolmentInputRequest"]["properties"]["username"]["minLength"] == 1
    assert schemas()["RevealInputRequest"]["properties"]["part"]["minLength"] == 1


def test_quiz_creation_says_an_instructor_must_name_a_course():
    op = operation("post", "/api/quizzes/")
    assert "an instructor must name a `course`" in op["description"]
    assert "staff" in schemas()["QuizCreateRequest"]["properties"]["course"]["description"]


def test_what_can_be_null_is_nullable():
    quiz = schemas()["Quiz"]["properties"]
    for name in ("course", "time_limit_minutes", "attempts_allowed", "tries_per_part"):
        assert quiz[name]["nullable"] is True, name
    review = schemas()["ReviewQuestion"]["properties"]
    assert review["solution_html"]["nullable"] and review["solution_markdown"]["nullable"]
    for name in ("statement_html", "statement_markdown"):
        assert (
            "nullable" not in review[name]
            and "nullable" not in schemas()["Question"]["properties"][name]
        )


# ------------------------------------------------------------------------ responses


STATUSES = {
    ("post", "/api/auth/token/"): {"200", "400", "429"},
    ("get", "/api/quizzes/"): {"200", "401", "404"},
    ("post", "/api/quizzes/"): {"201", "400", "401", "403"},
    ("get", "/api/quizzes/{id}/"): {"200", "401", "404"},
    ("post", "/api/quizzes/{id}/attempts/"): {"200", "201", "401", "403", "404", "409"},
    ("post", "/api/attempts/{id}/responses/"): {"200", "201", "400", "401", "404", "409", "422"},
    ("post", "/api/attempts/{id}/finish/"): {"200", "401", "404", "409"},
    ("post", "/api/attempts/{id}/questions/{qid}/reveal/"): {"200", "400", "401", "404", "409"},
    ("post", "/api/attempts/{id}/questions/{qid}/new-variant/"): {"201", "401", "404", "409"},
    ("post", "/api/courses/{slug}/enrol/"): {"200", "201", "401", "403", "404"},
    ("post", "/api/courses/{slug}/enrolments/"): {"200", "201", "400", "401", "404"},
    ("delete", "/api/courses/{slug}/enrolments/{username}/"): {"204", "401", "404"},
    ("post", "/api/lessons/{slug}/practice/"): {"201", "401", "403", "404", "409"},
    ("get", "/api/quizzes/{id}/extensions/"): {"200", "401", "404"},
    ("put", "/api/quizzes/{id}/extensions/{learner_id}/"): {"200", "400", "401", "403", "404"},
    ("delete", "/api/quizzes/{id}/extensions/{learner_id}/"): {"204", "401", "403", "404"},
    ("post", "/api/quizzes/{id}/publish/"): {"200", "401", "403", "404", "409"},
    ("post", "/api/quizzes/{id}/unpublish/"): {"200", "401", "403", "404", "409"},
    ("post", "/api/quizzes/{id}/close/"): {"200", "401", "403", "404", "409"},
}


@pytest.mark.parametrize(("method", "path"), list(STATUSES), ids=lambda x: str(x))
def test_each_operation_documents_the_statuses_it_answers(method, path):
    documented = set(operation(method, path)["responses"])
    assert STATUSES[(method, path)] <= documented
    assert {"405", "406", "500"} <= documented
    assert "422" not in documented or path.endswith("/responses/")
    assert "429" not in documented or path == "/api/auth/token/"


def test_403_only_where_a_rule_can_refuse_a_signed_in_user():
    with_403 = {(m, p) for m, p, op in assess_operations() if "403" in op["responses"]}
    assert with_403 == {
        ("post", "/api/quizzes/"),
        ("post", "/api/courses/{slug}/enrol/"),
        ("post", "/api/lessons/{slug}/practice/"),
        # an instructor scoped to an LMS course reads the quiz but may not change it
        ("post", "/api/quizzes/{id}/publish/"),
        ("post", "/api/quizzes/{id}/unpublish/"),
        ("post", "/api/quizzes/{id}/close/"),
        # ... nor add or remove the course's learners (their LMS manages them)
        ("post", "/api/courses/{slug}/enrolments/"),
        ("delete", "/api/courses/{slug}/enrolments/{username}/"),
        # nobody extends themselves (assess.selectors.duties)
        ("put", "/api/quizzes/{id}/extensions/{learner_id}/"),
        ("delete", "/api/quizzes/{id}/extensions/{learner_id}/"),
        # an account made by sign-up starts no exam before confirming its address
        ("post", "/api/quizzes/{id}/attempts/"),
    }


def test_a_quiz_says_its_status_and_a_new_one_may_be_a_draft():
    quiz = schemas()["Quiz"]
    assert "status" in quiz["required"]
    status = quiz["properties"]["status"]["allOf"][0]
    assert component(status)["enum"] == ["draft", "published", "closed"]
    new = schemas()["QuizCreateRequest"]
    assert "status" not in new.get("required", [])
    assert component(new["properties"]["status"]["allOf"][0])["enum"] == ["draft", "published"]
    assert new["properties"]["status"]["default"] == "published"
    unpublish = operation("post", "/api/quizzes/{id}/unpublish/")
    assert "409 once any attempt exists" in unpublish["description"]
    assert "requestBody" not in unpublish
    for name in ("publish", "unpublish", "close"):
        op = operation("post", f"/api/quizzes/{{id}}/{name}/")
        assert body_schema(op, "200")["$ref"].endswith("/Quiz")
        conflict = component(body_schema(op, "409"))
        assert component(conflict["properties"]["errors"]["items"])["properties"]["code"]


def test_the_token_endpoint_is_throttled_and_needs_no_credentials():
    op = operation("post", "/api/auth/token/")
    assert "401" not in op["responses"]
    assert "Retry-After" in op["responses"]["429"]["headers"]
    assert "authorization" in str(schemas()["AuthTokenCreateNonFieldErrorsErrorComponent"])


def test_an_unreadable_answer_is_a_documented_400_with_valid_false():
    op = operation("post", "/api/attempts/{id}/responses/")
    shapes = component(body_schema(op, "400"))["oneOf"]
    [validation] = [component(s) for s in shapes if "Validation" in s["$ref"]]
    assert validation["properties"]["valid"]["type"] == "boolean"
    answer = schemas()["AttemptsResponsesCreateAnswerErrorComponent"]["properties"]
    assert "unreadable_answer" in answer["code"]["enum"]
    example = op["responses"]["400"]["content"]["application/json"]["examples"]
    assert example["UnreadableAnswer"]["value"]["valid"] is False


def test_nested_attrs_are_patterns_the_real_paths_match():
    points = schemas()["QuizzesCreateSlotsINDEXPointsErrorComponent"]["properties"]["attr"]
    assert points["pattern"] == r"^slots\.[0-9]+\.points$"
    assert "discriminator" not in schemas()["QuizzesCreateError"]
    slots = schemas()["QuizzesCreateSlotsErrorComponent"]["properties"]["code"]["enum"]
    assert {"empty", "max_length", "invalid"} <= set(slots)


def test_409_and_422_bodies_name_their_codes():
    conflict = component(body_schema(operation("post", "/api/attempts/{id}/finish/"), "409"))
    reused = component(body_schema(operation("post", "/api/attempts/{id}/responses/"), "422"))
    assert set(conflict["required"]) == {"type", "errors"}
    error409 = component(conflict["properties"]["errors"]["items"])
    error422 = component(reused["properties"]["errors"]["items"])
    assert component(error409["properties"]["code"])["enum"] == ["conflict"]
    assert component(error422["properties"]["code"])["enum"] == ["idempotency_key_reused"]


@pytest.mark.parametrize(
    ("path", "item"),
    [
        ("/api/quizzes/", "Quiz"),
        ("/api/quizzes/{id}/attempts/", "AttemptSummary"),
        ("/api/quizzes/{id}/items/", "ItemStats"),
        ("/api/courses/{slug}/enrolments/", "Enrolment"),
        ("/api/quizzes/{id}/extensions/", "Extension"),
    ],
)
def test_lists_are_documented_as_pages(path, item):
    op = operation("get", path)
    page = component(body_schema(op, "200"))
    assert set(page["required"]) == {"count", "next", "previous", "results"}
    assert page["properties"]["results"]["items"]["$ref"].endswith(f"/{item}")
    assert {"page", "page_size"} <= {p["name"] for p in op["parameters"]}


# ----------------------------------------------------------------------- descriptions


def test_every_operation_is_described():
    for method, path, op in assess_operations():
        assert len(op.get("description", "")) > 80, (method, path)
        assert op.get("summary"), (method, path)


def test_the_idempotency_key_and_the_feedback_modes_are_explained():
    key = schemas()["ResponseInputRequest"]["properties"]["idempotency_key"]["description"]
    for phrase in ("unique per answer", "200", "422", "life of the attempt", "100"):
        assert phrase in key, phrase
    submit = operation("post", "/api/attempts/{id}/responses/")["description"]
    for phrase in ("Immediate feedback", "Deferred feedback", "tries_per_part", "409"):
        assert phrase in submit, phrase
    feedback = schemas()["QuizCreateRequest"]["properties"]["feedback"]["description"]
    assert "after_attempt" in feedback and "after_close" in feedback


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("post", "/api/auth/token/"),
        ("post", "/api/attempts/{id}/responses/"),
        ("post", "/api/quizzes/"),
        ("post", "/api/attempts/{id}/questions/{qid}/reveal/"),
        ("post", "/api/courses/{slug}/enrolments/"),
        ("put", "/api/quizzes/{id}/extensions/{learner_id}/"),
    ],
)
def test_main_request_bodies_have_examples(method, path):
    examples = operation(method, path)["requestBody"]["content"]["application/json"]["examples"]
    assert examples


def test_an_extension_request_documents_its_bounds_and_the_fields_the_service_checks():
    body = schemas()["ExtensionInputRequest"]["properties"]
    assert set(body) == {"extra_time_minutes", "closes_at"}
    minutes = body["extra_time_minutes"]
    assert (minutes["minimum"], minutes["maximum"], minutes["nullable"]) == (1, 10080, True)
    assert body["closes_at"]["nullable"] is True
    errors = schemas()["QuizzesExtensionsUpdateError"]["discriminator"]["mapping"]
    assert {"learner", "extra_time_minutes", "closes_at"} <= set(errors)
    assert schemas()["Quiz"]["properties"]["closes_at_for_you"]["nullable"] is True
    description = operation("put", "/api/quizzes/{id}/extensions/{learner_id}/")["description"]
    for phrase in ("`learner`", "`extra_time_minutes`", "`closes_at`", "404", "409"):
        assert phrase in description, phrase
