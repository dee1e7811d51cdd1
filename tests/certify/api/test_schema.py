"""The certification operations are in the project's schema with every status they
answer, explained for a client author; the public verification needs no credentials."""

from __future__ import annotations

import pytest

from tests.openapi import project

STATUSES = {
    ("get", "/api/tracks/"): {"200", "401"},
    ("get", "/api/tracks/{slug}/progress/"): {"200", "401", "404"},
    ("get", "/api/certificates/"): {"200", "401"},
    ("get", "/api/certificates/{id}/verify/"): {"200", "404"},
    ("post", "/api/certificates/{id}/revoke/"): {"200", "400", "401", "403", "404", "409"},
    ("get", "/api/teams/"): {"200", "401"},
    ("get", "/api/teams/{id}/readiness/"): {"200", "401", "404"},
    ("get", "/api/certifications/check/"): {"200", "400", "401", "404"},
}


@pytest.mark.parametrize(("method", "path"), list(STATUSES), ids=lambda x: str(x))
def test_each_operation_documents_its_statuses_and_explains_itself(method, path):
    op = project().operation(method, path)
    assert STATUSES[(method, path)] <= set(op["responses"])
    assert "403" not in op["responses"] or path.endswith("/revoke/")
    assert "409" not in op["responses"] or path.endswith("/revoke/")
    assert len(op["description"]) > 80 and op["summary"]
    assert project().description_gaps(method, path) == []


def test_verification_is_public_and_the_rest_need_a_token():
    paths = project().document["paths"]
    assert "security" not in paths["/api/certificates/{id}/verify/"]["get"]
    assert "401" not in paths["/api/certificates/{id}/verify/"]["get"]["responses"]
    for method, path in STATUSES:
        if not path.endswith("/verify/"):
            assert {"tokenAuth": []} in paths[path][method]["security"], path


def test_the_check_documents_both_query_parameters_and_their_400():
    op = project().operation("get", "/api/certifications/check/")
    params = {p["name"]: p for p in op["parameters"] if p["in"] == "query"}
    assert set(params) == {"user", "track"}
    assert all(p["required"] and p["description"] for p in params.values())
    assert "on-call" in op["description"] and "404" in op["description"]
    errors = project().component("CertificationsCheckRetrieveError")["oneOf"]
    named = {project().component(e["$ref"])["properties"]["attr"]["enum"][0] for e in errors}
    assert named == {"user", "track"}


def test_nullable_fields_are_nullable():
    check = project().component("Check")["properties"]
    assert check["until"]["nullable"] is True
    progress = project().component("Progress")["properties"]
    assert progress["certificate"]["nullable"] is True
    public = project().component("PublicCertificate")["properties"]
    assert public["revoked_at"]["nullable"] is True
    assert not {"evidence", "revoke_reason", "revoked_by"} & set(public)
    cell = project().component("ReadinessCell")["properties"]
    assert cell["certificate_id"]["nullable"] is True
