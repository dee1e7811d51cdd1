"""prices.yaml: every price sourced and dated, per-GPU = instance / GPUs, slugs real,
and a bad file refused with one message naming file, record and field."""

from __future__ import annotations

import datetime

import pytest

from hardware_db import catalog, prices
from hardware_db.schema import DataFileError
from tests.hardware_db.conftest import record


@pytest.fixture(autouse=True)
def _fresh_prices():
    prices.reload()
    yield
    prices.reload()


def _error(data_dir) -> str:
    with pytest.raises(DataFileError) as excinfo:
        prices.load_prices(data_dir / prices.PRICES_FILE)
    return str(excinfo.value)


def test_every_price_has_a_source_and_a_date():
    for p in prices.prices():
        assert p.source and all(s.startswith("https://") for s in p.source), p.slug
        assert isinstance(p.as_of, datetime.date) and p.as_of.year >= 2025, p.slug


def test_per_gpu_price_is_instance_price_over_gpus():
    for p in prices.prices():
        assert p.usd_per_gpu_hour == pytest.approx(
            p.instance_usd_per_hour / p.gpus_per_instance, abs=5e-4
        )


def test_accelerator_slugs_exist_in_the_catalog():
    known = {a.slug for a in catalog.accelerators()}
    assert {p.accelerator for p in prices.prices()} <= known


def test_the_capstone_parts_are_priced():
    for slug in ("h100-sxm", "h200", "a100-sxm-80gb", "l40s", "b200"):
        assert prices.price_for(slug).usd_per_gpu_hour > 0


def test_reference_price_is_the_first_record_of_the_accelerator():
    # Hand-checked from the file: AWS p5.48xlarge 55.04 USD/h for 8 GPUs = 6.88 per GPU.
    p = prices.price_for("h100-sxm")
    assert (p.provider, p.instance_type, p.usd_per_gpu_hour) == ("AWS", "p5.48xlarge", 6.88)
    assert [q.provider for q in prices.prices_for("h100-sxm")] == ["AWS", "Lambda"]
    assert p.usd_per_gpu_month == pytest.approx(6.88 * 730)


def test_unpriced_accelerator_is_a_clear_key_error():
    with pytest.raises(KeyError, match="no price for accelerator 'tpu-v5e'"):
        prices.price_for("tpu-v5e")


def test_pasted_instance_price_in_the_per_gpu_column_is_refused(data_dir, edit):
    edit("prices.yaml", lambda doc: record(doc, "aws-p5-48xlarge").update(usd_per_gpu_hour=55.04))
    message = _error(data_dir)
    assert message.startswith(
        "prices.yaml: record 'aws-p5-48xlarge': field 'usd_per_gpu_hour': 55.04 is not "
    )
    assert "55.04 / 8 = 6.88" in message


def test_missing_date_is_refused(data_dir, edit):
    edit("prices.yaml", lambda doc: record(doc, "aws-g6e-xlarge").pop("as_of"))
    assert _error(data_dir) == "prices.yaml: record 'aws-g6e-xlarge': field 'as_of': missing"


def test_missing_source_is_refused(data_dir, edit):
    edit("prices.yaml", lambda doc: record(doc, "lambda-8x-b200").update(source=[]))
    assert _error(data_dir).startswith("prices.yaml: record 'lambda-8x-b200': field 'source'")


def test_source_must_be_a_url(data_dir, edit):
    edit("prices.yaml", lambda doc: record(doc, "lambda-8x-b200").update(source=["Lambda site"]))
    assert _error(data_dir) == (
        "prices.yaml: record 'lambda-8x-b200': field 'source': "
        "every source must be a URL (http or https)"
    )


def test_unknown_accelerator_is_refused(data_dir, edit):
    edit("prices.yaml", lambda doc: record(doc, "aws-p5-48xlarge").update(accelerator="h900"))
    assert _error(data_dir) == (
        "prices.yaml: record 'aws-p5-48xlarge': field 'accelerator': "
        "unknown accelerator slug 'h900' (not in accelerators.yaml)"
    )


def test_price_as_text_is_refused(data_dir, edit):
    edit(
        "prices.yaml",
        lambda doc: record(doc, "aws-p5-48xlarge").update(instance_usd_per_hour="55.04 USD"),
    )
    assert "field 'instance_usd_per_hour'" in _error(data_dir)


def test_duplicate_slug_is_refused(data_dir, edit):
    def dup(doc):
        doc["records"].append(dict(doc["records"][0]))

    edit("prices.yaml", dup)
    assert _error(data_dir) == "prices.yaml: record 'aws-p5-48xlarge': field 'slug': duplicate slug"


def test_prices_follow_the_catalog_data_dir(data_dir, edit):
    edit(
        "prices.yaml",
        lambda doc: record(doc, "aws-p5-48xlarge").update(
            instance_usd_per_hour=80.0, usd_per_gpu_hour=10.0
        ),
    )
    catalog.use_data_dir(data_dir)
    prices.reload()
    assert prices.price_for("h100-sxm").usd_per_gpu_hour == 10.0
