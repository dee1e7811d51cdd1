"""Read-only REST endpoints under /api/hardware/ (database)."""

import pytest
from rest_framework.test import APIClient

from hardware_db import services

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.hardware_db.urls")]


@pytest.fixture
def api() -> APIClient:
    services.hardware_load()
    return APIClient()


@pytest.mark.parametrize("kind", ["accelerators", "links", "servers", "models"])
def test_list_includes_sources(api, kind):
    response = api.get(f"/api/hardware/{kind}/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    rows = response.json()
    assert rows
    for row in rows:
        assert row["source"] and isinstance(row["source"], list)
        assert row["as_of"]


def test_accelerator_detail(api):
    response = api.get("/api/hardware/accelerators/h100-sxm/")
    assert response.status_code == 200
    body = response.json()
    assert body["memory_label"] == "80 GB HBM3"
    assert body["mem_bw_bytes_per_s"] == 3_350_000_000_000
    assert body["dense_flops"]["bf16"] == 989.4e12
    assert body["sparse_flops"]["bf16"] == 1979e12
    assert body["scale_up_link"] == "nvlink-4"
    assert body["usable_gib"] == pytest.approx(79.647, abs=1e-3)
    assert body["as_of"] == "2026-11-29"


def test_model_detail_with_dotted_slug(api):
    response = api.get("/api/hardware/models/llama-3.1-70b/")
    assert response.status_code == 200
    body = response.json()
    assert (body["n_layers"], body["n_kv_heads"], body["head_dim"]) == (80, 8, 128)
    assert body["kv_bytes_per_token_bf16"] == 327_680


def test_server_and_link_detail(api):
    server = api.get("/api/hardware/servers/dgx-h100/").json()
    assert server["accelerator"] == "h100-sxm"
    assert server["nic_link"] == "infiniband-ndr"
    assert server["system_power_watts"] == 10_200
    link = api.get("/api/hardware/links/nvlink-4/").json()
    assert link["bw_bytes_per_s_per_direction"] * 2 == link["bw_bytes_per_s_bidirectional"]


def test_unknown_slug_is_404(api):
    assert api.get("/api/hardware/accelerators/h101/").status_code == 404


def test_vendor_filter_is_case_insensitive(api):
    rows = api.get("/api/hardware/accelerators/", {"vendor": "nvidia"}).json()
    assert rows and {row["vendor"] for row in rows} == {"NVIDIA"}
    assert [r["slug"] for r in rows] == [
        r["slug"] for r in api.get("/api/hardware/accelerators/", {"vendor": "NVIDIA"}).json()
    ]
    amd = api.get("/api/hardware/accelerators/", {"vendor": "amd"}).json()
    assert {row["slug"] for row in amd} == {"mi250x", "mi300x", "mi325x", "mi355x"}
    servers = api.get("/api/hardware/servers/", {"vendor": "NVIDIA"}).json()
    assert {row["slug"] for row in servers} == {"dgx-a100", "dgx-h100", "dgx-b200"}
    assert api.get("/api/hardware/accelerators/", {"vendor": "nobody"}).json() == []


def test_list_keeps_file_order(api):
    slugs = [row["slug"] for row in api.get("/api/hardware/accelerators/").json()]
    assert slugs[:2] == ["a100-sxm-80gb", "h100-sxm"]


def test_endpoints_are_read_only(api):
    assert api.post("/api/hardware/accelerators/", {"slug": "x"}).status_code in {401, 403, 405}
    assert api.delete("/api/hardware/accelerators/h100-sxm/").status_code in {401, 403, 405}


def test_openapi_schema_describes_the_endpoints():
    from drf_spectacular.generators import SchemaGenerator

    from tests.hardware_db import urls

    schema = SchemaGenerator(patterns=urls.urlpatterns).get_schema(request=None, public=True)
    paths = schema["paths"]
    assert "/api/hardware/accelerators/" in paths
    assert "/api/hardware/models/{slug}/" in paths
    params = {p["name"] for p in paths["/api/hardware/accelerators/"]["get"]["parameters"]}
    assert "vendor" in params
