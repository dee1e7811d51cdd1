"""The hardware API explains itself in the schema: every operation, parameter and field
is described, the enum filters and their 400 are documented, and the list examples are
real records that still match the data."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from hardware_db import api_examples, services
from tests.openapi import JSON, project

RESOURCES = ("accelerators", "links", "servers", "models")
PATHS = [f"/api/hardware/{r}/" for r in RESOURCES] + [f"/api/hardware/{r}/x/" for r in RESOURCES]


def test_every_hardware_operation_is_in_the_schema():
    templates = {p for p in project().document["paths"] if p.startswith("/api/hardware/")}
    assert templates == {project().template(p) for p in PATHS}


@pytest.mark.parametrize("path", PATHS)
def test_operation_parameters_and_fields_are_described(path):
    assert project().description_gaps("get", path) == []


@pytest.mark.parametrize("resource", RESOURCES)
def test_descriptions_say_what_a_figure_counts(resource):
    description = project().operation("get", f"/api/hardware/{resource}/")["description"]
    assert "Units are in the field names" in description


def test_the_figures_that_are_easy_to_misread_are_explained():
    schema = project()
    accelerator = schema.component("Accelerator")["properties"]
    assert "2:4" in accelerator["sparse_flops"]["description"]
    assert "sizing" in accelerator["dense_flops"]["description"]
    assert "literally" in accelerator["memory_bytes"]["description"]
    assert "driver" in accelerator["memory_reported_bytes"]["description"]
    assert "2^30" in accelerator["usable_gib"]["description"]
    link = schema.component("Link")["properties"]
    assert "one way" in link["bw_bytes_per_s_per_direction"]["description"]
    assert "2 x" in link["bw_bytes_per_s_bidirectional"]["description"]
    for name in ("source", "as_of", "notes"):
        assert schema.component("Server")["properties"][name]["description"]


@pytest.mark.parametrize(
    ("resource", "name", "values"),
    [
        ("links", "kind", {"scale-up", "scale-out", "host"}),
        ("models", "arch_type", {"dense", "moe"}),
    ],
)
def test_enum_filters_and_their_400_are_documented(resource, name, values):
    schema = project()
    operation = schema.operation("get", f"/api/hardware/{resource}/")
    (param,) = [p for p in operation["parameters"] if p["name"] == name]
    assert set(param["schema"]["enum"]) == values
    bad = {
        "type": "validation_error",
        "errors": [{"code": "invalid_choice", "detail": "no", "attr": name}],
    }
    assert schema.problems("get", f"/api/hardware/{resource}/", 400, JSON, bad) == []
    wrong_attr = {**bad, "errors": [{**bad["errors"][0], "attr": "elsewhere"}]}
    assert schema.problems("get", f"/api/hardware/{resource}/", 400, JSON, wrong_attr)


@pytest.mark.parametrize("resource", RESOURCES)
def test_list_example_fits_the_schema(resource):
    schema = project()
    (example,) = schema.examples("get", f"/api/hardware/{resource}/").values()
    assert schema.problems("get", f"/api/hardware/{resource}/", 200, JSON, example) == []
    assert example["results"] == [api_examples.EXAMPLES[resource]]


@pytest.mark.django_db
@pytest.mark.parametrize("resource", RESOURCES)
def test_list_example_is_a_real_record(resource):
    services.hardware_load()
    example = api_examples.EXAMPLES[resource]
    served = APIClient().get(f"/api/hardware/{resource}/{example['slug']}/").json()
    abridged = ("source", "notes")
    assert {k: v for k, v in example.items() if k not in abridged} == {
        k: v for k, v in served.items() if k not in abridged
    }
    assert served["notes"].startswith(example["notes"])
    for text in example["source"]:
        assert any(full.startswith(text) for full in served["source"])
