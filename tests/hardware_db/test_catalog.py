"""The pure read API: no Django, no database."""

import dataclasses
import datetime
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hardware_db import catalog
from tests.hardware_db.conftest import record


def test_h100_sxm_spot_checks():
    h100 = catalog.accelerator("h100-sxm")
    assert h100.memory_label == "80 GB HBM3"
    assert h100.memory_bytes == 80_000_000_000
    assert h100.mem_bw_bytes_per_s == 3_350_000_000_000
    assert h100.dense_flops["bf16"] == 989.4e12
    assert h100.sparse_flops["bf16"] == 1979e12
    assert h100.scale_up_link == "nvlink-4"
    assert h100.scale_up_bw_bytes_per_s_per_direction == 450_000_000_000


def test_llama_spot_checks():
    llama70 = catalog.model("llama-3.1-70b")
    assert (llama70.n_layers, llama70.n_kv_heads, llama70.head_dim) == (80, 8, 128)
    assert catalog.model("llama-3.1-8b").total_params == 8_030_261_248


def test_required_records_present():
    accelerators = {a.slug for a in catalog.accelerators()}
    assert {
        "a100-sxm-80gb", "h100-sxm", "h100-nvl", "h100-pcie", "h200", "b200", "gb200", "l40s",
        "mi250x", "mi300x", "mi325x", "mi355x", "gaudi3", "tpu-v5e", "tpu-v5p", "tpu-v6e",
        "trainium2", "inferentia2",
    } <= accelerators  # fmt: skip
    links = {link.slug for link in catalog.links()}
    assert {
        "nvlink-3", "nvlink-4", "nvlink-5", "infinity-fabric-mi300x", "pcie-gen4-x16",
        "pcie-gen5-x16", "infiniband-hdr", "infiniband-ndr", "infiniband-xdr", "roce-200gbe",
        "roce-400gbe", "roce-800gbe",
    } <= links  # fmt: skip
    servers = {s.slug: s for s in catalog.servers()}
    assert {"dgx-a100", "dgx-h100", "dgx-b200"} <= set(servers)
    accelerators_in_servers = {s.accelerator for s in servers.values()}
    assert {"mi300x", "l40s"} <= accelerators_in_servers
    models = {m.slug for m in catalog.models()}
    assert {
        "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "llama-2-7b", "llama-2-70b",
        "mistral-7b", "mixtral-8x7b", "qwen2.5-72b", "deepseek-v3", "gpt-3-175b",
    } <= models  # fmt: skip


def test_returns_frozen_dataclasses_in_file_order():
    accs = catalog.accelerators()
    assert isinstance(accs, tuple)
    assert accs[0].slug == "a100-sxm-80gb"
    for item in (*accs, *catalog.links(), *catalog.servers(), *catalog.models()):
        assert dataclasses.is_dataclass(item)
        with pytest.raises(dataclasses.FrozenInstanceError):
            item.slug = "changed"  # type: ignore[misc]
    with pytest.raises(TypeError):
        accs[0].dense_flops["bf16"] = 1.0  # type: ignore[index]
    assert isinstance(accs[0].as_of, datetime.date)
    assert isinstance(accs[0].source, tuple)


def test_results_are_cached():
    assert catalog.accelerators() is catalog.accelerators()


def test_unknown_slug_raises_key_error():
    with pytest.raises(KeyError, match="h100-sxm"):
        catalog.accelerator("h101")
    with pytest.raises(KeyError):
        catalog.model("gpt-5")


def test_reload_picks_up_edits(data_dir: Path, edit):
    catalog.use_data_dir(data_dir)
    assert catalog.accelerator("h100-sxm").tdp_watts == 700

    def lower_tdp(doc):
        record(doc, "h100-sxm")["tdp_watts"] = 650

    edit("accelerators.yaml", lower_tdp)
    assert catalog.accelerator("h100-sxm").tdp_watts == 700, "cached until reload()"
    catalog.reload()
    assert catalog.accelerator("h100-sxm").tdp_watts == 650


def test_explicit_data_dir_argument(data_dir: Path, edit):
    edit("models.yaml", lambda doc: record(doc, "gpt-3-175b").update(notes="edited"))
    assert catalog.model("gpt-3-175b", data_dir=data_dir).notes == "edited"
    assert catalog.model("gpt-3-175b").notes != "edited"


def test_use_data_dir_returns_previous_and_none_restores(data_dir: Path):
    previous = catalog.use_data_dir(data_dir)
    assert previous == catalog.DEFAULT_DATA_DIR
    assert catalog.current_data_dir() == data_dir.resolve()
    catalog.use_data_dir(None)
    assert catalog.current_data_dir() == catalog.DEFAULT_DATA_DIR


def test_invalid_file_raises_data_file_error(data_dir: Path, edit):
    edit("links.yaml", lambda doc: record(doc, "nvlink-4").pop("source"))
    catalog.use_data_dir(data_dir)
    with pytest.raises(catalog.DataFileError, match="links.yaml: record 'nvlink-4'"):
        catalog.links()


def test_usable_gib_prefers_driver_report_then_label_number():
    assert catalog.accelerator("h100-sxm").usable_gib == pytest.approx(79.647, abs=1e-3)
    assert catalog.accelerator("a100-sxm-80gb").usable_gib == 80.0
    assert catalog.accelerator("mi300x").usable_gib == 192.0
    assert catalog.accelerator("trainium2").usable_gib == 96.0
    assert catalog.accelerator("trainium2").memory_bytes == 96 * 2**30


def test_kv_bytes_per_token():
    assert catalog.model("llama-3.1-8b").kv_bytes_per_token(2) == 131_072
    assert catalog.model("llama-3.1-70b").kv_bytes_per_token(2) == 327_680
    assert catalog.model("llama-3.1-405b").kv_bytes_per_token(2) == 516_096
    assert catalog.model("llama-2-7b").kv_bytes_per_token(2) == 524_288
    assert catalog.model("gpt-3-175b").kv_bytes_per_token(2) == 4_718_592
    # MLA: 61 x (512 + 64) x 2 bytes, not 2 x 61 x 128 x 128 x 2.
    assert catalog.model("deepseek-v3").kv_bytes_per_token(2) == 70_272
    assert catalog.model("llama-3.1-8b").kv_bytes_per_token(1) == 65_536


def test_catalog_works_without_django():
    """Generators may run outside Django; importing and reading must not pull it in."""
    code = (
        "import sys; from hardware_db import catalog; catalog.accelerators(); "
        "sys.exit(1 if any(m == 'django' or m.startswith('django.') for m in sys.modules) else 0)"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    root = Path(catalog.__file__).resolve().parent.parent
    # Fixed argv built from constants above; no untrusted input reaches the subprocess.
    result = subprocess.run(  # noqa: S603
        [sys.executable, "-c", code], cwd=root, env=env, check=False
    )
    assert result.returncode == 0
