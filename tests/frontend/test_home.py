import pytest

pytestmark = pytest.mark.django_db


def test_home_says_what_the_service_is_and_lists_the_catalog(client):
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "AI infrastructure" in html
    assert "H100 SXM" in html and "Llama 3.1 70B" in html
    assert "80 GB HBM3" in html
    assert "3.35 TB/s" in html


def test_healthz_reaches_the_database(client):
    assert client.get("/healthz").json() == {"status": "ok"}


def test_openapi_schema_and_docs_are_served_without_a_cdn(client):
    schema = client.get("/api/schema/")
    assert schema.status_code == 200
    assert b"/api/hardware/accelerators/" in schema.content
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    assert b"cdn.jsdelivr" not in docs.content and b"unpkg.com" not in docs.content
