"""Hardware catalog with sources, side-by-side comparison, roofline with its ridge."""

import pytest

from hardware_db import catalog

pytestmark = pytest.mark.django_db


def test_catalog_shows_every_accelerator_with_its_sources(client):
    html = client.get("/hardware/").content.decode()
    for acc in catalog.accelerators():
        assert acc.name in html
    assert 'href="https://www.nvidia.com/en-us/data-center/h100/"' in html
    assert "as of" in html


def test_compare_two_accelerators_side_by_side(client):
    html = client.get("/hardware/compare/?a=h100-sxm&b=mi300x").content.decode()
    assert "NVIDIA H100 SXM5 80GB" in html and "AMD Instinct MI300X" in html
    assert "3.35 TB/s" in html and "5.3 TB/s" in html
    assert "1.58×" in html  # 5.3 / 3.35
    assert '<option value="mi300x" selected>' in html


def test_compare_defaults_and_rejects_unknown_slugs(client):
    assert "Memory bandwidth" in client.get("/hardware/compare/").content.decode()
    html = client.get("/hardware/compare/?a=h100-sxm&b=nope").content.decode()
    assert "Select a valid choice" in html and "Memory bandwidth" not in html


def test_roofline_marks_the_ridge(client):
    html = client.get("/hardware/roofline/?accelerator=h100-sxm&precision=bf16").content.decode()
    assert 'class="chart roofline"' in html
    assert 'data-intensity="295.343"' in html  # 989.4e12 / 3.35e12
    assert "295.3 FLOP/byte" in html


def test_roofline_refuses_a_precision_the_part_does_not_publish(client):
    html = client.get(
        "/hardware/roofline/?accelerator=a100-sxm-80gb&precision=fp8"
    ).content.decode()
    assert "No published FP8 peak" in html and "<svg" not in html
