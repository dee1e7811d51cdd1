"""Read-only REST endpoints under /api/hardware/ (database): shapes, filters, pages."""

import pytest
from rest_framework.test import APIClient

from hardware_db import services

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.hardware_db.urls")]


@pytest.fixture
def api() -> APIClient:
    services.hardware_load()
    return APIClient()


RESOURCES = ("accelerators", "links", "servers", "models")
NOT_FOUND = {"type": "client_error", "errors": [{"code": "not_found", "attr": None}]}


def rows(api, url: str, **params) -> list[dict]:
    """The records of a list that fits on one page (the catalogue is far below 200)."""
    body = api.get(url, {"page_size": 200, **params}).json()
    assert body["count"] == len(body["results"]) and body["next"] is None
    return body["results"]


def without_detail(body: dict) -> dict:
    """An error body with the human `detail` texts left out, to compare the rest."""
    return {
        **body,
        "errors": [{k: v for k, v in e.items() if k != "detail"} for e in body["errors"]],
    }


@pytest.mark.parametrize("kind", RESOURCES)
def test_list_includes_sources(api, kind):
    response = api.get(f"/api/hardware/{kind}/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"count", "next", "previous", "results"}
    assert body["results"] and body["count"] == len(body["results"])
    for row in body["results"]:
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
    assert server["rack_units"] == 8
    cloud = api.get("/api/hardware/servers/azure-nd-mi300x-v5/").json()
    assert cloud["rack_units"] is None and "rack_units is null because" in cloud["notes"]
    nvl = api.get("/api/hardware/accelerators/h100-nvl/").json()
    assert nvl["memory_reported_bytes"] == 95_830 * 2**20
    assert round(nvl["usable_gib"], 2) == 93.58
    link = api.get("/api/hardware/links/nvlink-4/").json()
    assert link["bw_bytes_per_s_per_direction"] * 2 == link["bw_bytes_per_s_bidirectional"]


@pytest.mark.parametrize("kind", RESOURCES)
def test_unknown_slug_is_a_json_404(api, kind):
    response = api.get(f"/api/hardware/{kind}/h101/")
    assert response.status_code == 404
    assert without_detail(response.json()) == NOT_FOUND
    assert response.json()["errors"][0]["detail"].endswith("with that slug.")


def test_vendor_filter_is_case_insensitive(api):
    nvidia = rows(api, "/api/hardware/accelerators/", vendor="nvidia")
    assert nvidia and {row["vendor"] for row in nvidia} == {"NVIDIA"}
    assert [r["slug"] for r in nvidia] == [
        r["slug"] for r in rows(api, "/api/hardware/accelerators/", vendor="NVIDIA")
    ]
    amd = rows(api, "/api/hardware/accelerators/", vendor="amd")
    assert {row["slug"] for row in amd} == {"mi250x", "mi300x", "mi325x", "mi355x"}
    servers = rows(api, "/api/hardware/servers/", vendor="NVIDIA")
    assert {row["slug"] for row in servers} == {"dgx-a100", "dgx-h100", "dgx-b200"}
    # A vendor is data, not an enum: an unknown one is an empty page, not an error.
    assert rows(api, "/api/hardware/accelerators/", vendor="nobody") == []
    assert len(rows(api, "/api/hardware/accelerators/", vendor="")) == 18


def test_list_keeps_file_order(api):
    slugs = [row["slug"] for row in rows(api, "/api/hardware/accelerators/")]
    assert slugs[:2] == ["a100-sxm-80gb", "h100-sxm"]


@pytest.mark.parametrize(
    ("resource", "name", "value", "expected"),
    [
        ("links", "kind", "scale-up", {"nvlink-3", "nvlink-4", "nvlink-5"}),
        ("links", "kind", "host", {"pcie-gen4-x16", "pcie-gen5-x16"}),
        ("models", "arch_type", "moe", {"mixtral-8x7b", "deepseek-v3"}),
    ],
)
def test_enum_filters(api, resource, name, value, expected):
    found = rows(api, f"/api/hardware/{resource}/", **{name: value})
    assert {row[name] for row in found} == {value}
    assert expected <= {row["slug"] for row in found}
    if name == "arch_type":
        assert {row["slug"] for row in found} == expected


@pytest.mark.parametrize(
    ("resource", "name", "value"),
    [
        ("links", "kind", "AAA"),
        ("links", "kind", "SCALE-UP"),
        ("links", "kind", ""),
        ("models", "arch_type", "AAA"),
        ("models", "arch_type", "Dense"),
    ],
)
def test_unknown_enum_filter_value_is_400_naming_the_parameter(api, resource, name, value):
    response = api.get(f"/api/hardware/{resource}/", {name: value})
    assert response.status_code == 400
    body = response.json()
    assert without_detail(body) == {
        "type": "validation_error",
        "errors": [{"code": "invalid_choice", "attr": name}],
    }
    assert f'"{value}" is not' in body["errors"][0]["detail"]  # and says what is allowed:
    assert ("scale-out" if name == "kind" else "moe") in body["errors"][0]["detail"]


def test_detail_ignores_list_filters(api):
    # A record is found by its slug alone, whatever a reused list URL carries.
    assert api.get("/api/hardware/accelerators/h100-sxm/", {"vendor": "amd"}).status_code == 200
    assert api.get("/api/hardware/links/nvlink-4/", {"kind": "AAA"}).status_code == 200


def test_pagination(api):
    first = api.get("/api/hardware/accelerators/", {"page_size": 5}).json()
    assert (first["count"], len(first["results"]), first["previous"]) == (18, 5, None)
    assert "page=2" in first["next"] and "page_size=5" in first["next"]
    second = api.get(first["next"]).json()
    assert second["previous"] and "page=3" in second["next"]
    last = api.get("/api/hardware/accelerators/", {"page_size": 5, "page": 4}).json()
    assert (len(last["results"]), last["next"]) == (3, None)
    slugs = [r["slug"] for r in rows(api, "/api/hardware/accelerators/")]
    paged = first["results"] + second["results"]
    assert [r["slug"] for r in paged] == slugs[:10]  # pages follow the file order


@pytest.mark.parametrize("page", ["5", "0", "abc"])
def test_out_of_range_page_is_a_json_404(api, page):
    response = api.get("/api/hardware/accelerators/", {"page_size": 5, "page": page})
    assert response.status_code == 404
    assert without_detail(response.json()) == NOT_FOUND


@pytest.mark.parametrize("kind", RESOURCES)
def test_query_budgets(api, kind, django_assert_max_num_queries):
    # A page is a count and one select with its foreign keys joined; a detail one select.
    with django_assert_max_num_queries(2):
        slug = api.get(f"/api/hardware/{kind}/").json()["results"][0]["slug"]
    with django_assert_max_num_queries(1):
        assert api.get(f"/api/hardware/{kind}/{slug}/").status_code == 200


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
    assert {"vendor", "page", "page_size"} <= params
    ok = paths["/api/hardware/accelerators/"]["get"]["responses"]["200"]
    assert ok["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/PaginatedAcceleratorList"
    }
    links = {p["name"]: p for p in paths["/api/hardware/links/"]["get"]["parameters"]}
    assert set(links["kind"]["schema"]["enum"]) == {"scale-up", "scale-out", "host"}
    models = {p["name"]: p for p in paths["/api/hardware/models/"]["get"]["parameters"]}
    assert set(models["arch_type"]["schema"]["enum"]) == {"dense", "moe"}
