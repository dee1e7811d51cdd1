"""Validation of the data files: one clear message naming file, record and field."""

from pathlib import Path

import pytest

from hardware_db import schema
from tests.hardware_db.conftest import record


def _error(data_dir: Path) -> str:
    with pytest.raises(schema.DataFileError) as excinfo:
        schema.load_dataset(data_dir)
    return str(excinfo.value)


def test_packaged_data_is_valid():
    dataset = schema.load_dataset(Path(schema.__file__).parent / "data")
    assert dataset.accelerators and dataset.links and dataset.servers and dataset.models


def test_missing_source(data_dir, edit):
    edit("accelerators.yaml", lambda doc: record(doc, "h100-sxm").pop("source"))
    assert _error(data_dir) == "accelerators.yaml: record 'h100-sxm': field 'source': missing"


def test_empty_source(data_dir, edit):
    edit("links.yaml", lambda doc: record(doc, "nvlink-4").update(source=[]))
    assert _error(data_dir).startswith("links.yaml: record 'nvlink-4': field 'source': ")


def test_missing_as_of(data_dir, edit):
    edit("models.yaml", lambda doc: record(doc, "mistral-7b").pop("as_of"))
    assert _error(data_dir) == "models.yaml: record 'mistral-7b': field 'as_of': missing"


def test_as_of_must_be_a_date(data_dir, edit):
    edit("servers.yaml", lambda doc: record(doc, "dgx-h100").update(as_of="last week"))
    assert _error(data_dir).startswith("servers.yaml: record 'dgx-h100': field 'as_of': ")


def test_unknown_unit_in_memory_label(data_dir, edit):
    edit("accelerators.yaml", lambda doc: record(doc, "h100-sxm").update(memory_label="80 GX HBM3"))
    message = _error(data_dir)
    assert message.startswith("accelerators.yaml: record 'h100-sxm': field 'memory_label': ")
    assert "unknown unit 'GX'" in message


def test_bits_are_not_bytes(data_dir, edit):
    edit("accelerators.yaml", lambda doc: record(doc, "l40s").update(memory_label="48 Gb GDDR6"))
    assert "unknown unit 'Gb'" in _error(data_dir)


def test_memory_bytes_must_match_label(data_dir, edit):
    # 80 GB read as GiB is the classic slip; the label says GB, so bytes must be 80e9.
    edit("accelerators.yaml", lambda doc: record(doc, "h100-sxm").update(memory_bytes=80 * 2**30))
    message = _error(data_dir)
    assert message.startswith("accelerators.yaml: record 'h100-sxm': field 'memory_bytes': ")
    assert "does not match label '80 GB HBM3'" in message


def test_gib_label_means_powers_of_two(data_dir, edit):
    edit(
        "accelerators.yaml",
        lambda doc: record(doc, "trainium2").update(memory_bytes=96_000_000_000),
    )
    assert "field 'memory_bytes'" in _error(data_dir)


def test_sparse_below_dense(data_dir, edit):
    def swap(doc):
        rec = record(doc, "h100-sxm")
        rec["sparse_flop_per_s"]["bf16"] = 494_700_000_000_000

    edit("accelerators.yaml", swap)
    message = _error(data_dir)
    assert message.startswith(
        "accelerators.yaml: record 'h100-sxm': field 'sparse_flop_per_s.bf16': "
    )
    assert "below dense" in message


def test_a_sparser_pattern_is_not_a_2_4_figure(data_dir, edit):
    # The slip issue #11 found: AWS's "up to" 4:16 headline (3.84x dense) stored as 2:4.
    def trainium_headline(doc):
        rec = record(doc, "trainium2")
        rec["sparse_flop_per_s"] = {"bf16": 2_563_000_000_000_000}
        rec["sparse_ratio_notes"] = {"bf16": "AWS quotes one sparse figure."}

    edit("accelerators.yaml", trainium_headline)
    message = _error(data_dir)
    assert message.startswith(
        "accelerators.yaml: record 'trainium2': field 'sparse_flop_per_s.bf16': "
    )
    assert "3.84x dense" in message and "another sparsity pattern" in message


def test_sparse_off_2x_needs_a_reason(data_dir, edit):
    edit(
        "accelerators.yaml",
        lambda doc: record(doc, "h100-sxm")["sparse_flop_per_s"].update(bf16=2_000e12),
    )
    message = _error(data_dir)
    assert message.startswith(
        "accelerators.yaml: record 'h100-sxm': field 'sparse_flop_per_s.bf16': "
    )
    assert "not 2x" in message and "sparse_ratio_notes.bf16" in message


def test_sparse_rounded_to_four_digits_counts_as_2x(data_dir, edit):
    # 989.4 dense against 1,979 sparse (not 1,978.8) is the datasheet's rounding, not a lie.
    assert schema.sparse_is_twice_dense(1979e12, 989.4e12)
    assert not schema.sparse_is_twice_dense(733e12, 362.05e12)
    edit(
        "accelerators.yaml",
        lambda doc: record(doc, "l40s")["sparse_ratio_notes"].pop("fp16"),
    )
    assert "record 'l40s': field 'sparse_flop_per_s.fp16'" in _error(data_dir)


def test_stale_sparse_ratio_note(data_dir, edit):
    edit(
        "accelerators.yaml",
        lambda doc: record(doc, "h100-sxm").update(sparse_ratio_notes={"fp8": "rounded"}),
    )
    assert "record 'h100-sxm': field 'sparse_ratio_notes.fp8': explains a sparse/dense" in (
        _error(data_dir)
    )


def test_sparse_without_dense(data_dir, edit):
    edit(
        "accelerators.yaml",
        lambda doc: record(doc, "a100-sxm-80gb")["sparse_flop_per_s"].update(fp8=1e15),
    )
    assert "field 'sparse_flop_per_s.fp8': a sparse figure needs the dense figure" in (
        _error(data_dir)
    )


def test_rack_units_must_be_stated(data_dir, edit):
    edit("servers.yaml", lambda doc: record(doc, "dgx-h100").pop("rack_units"))
    assert _error(data_dir) == "servers.yaml: record 'dgx-h100': field 'rack_units': missing"


def test_rack_units_null_needs_a_note(data_dir, edit):
    def no_height_no_reason(doc):
        rec = record(doc, "dgx-a100")
        rec.update(rack_units=None, notes="")

    edit("servers.yaml", no_height_no_reason)
    assert _error(data_dir) == (
        "servers.yaml: record 'dgx-a100': field 'notes': "
        "rack_units is null: say in notes why no height is given"
    )


@pytest.mark.parametrize("height", [356, 0, 8.0, "8U"])
def test_rack_units_is_a_whole_number_of_units(data_dir, edit, height):
    # 356 is the DGX H100's height in mm; "8U" and 8.0 are not plain integers.
    edit("servers.yaml", lambda doc: record(doc, "dgx-h100").update(rack_units=height))
    assert _error(data_dir).startswith("servers.yaml: record 'dgx-h100': field 'rack_units': ")


def test_extra_field(data_dir, edit):
    edit("accelerators.yaml", lambda doc: record(doc, "b200").update(colour="green"))
    assert _error(data_dir).startswith(
        "accelerators.yaml: record 'b200': field 'colour': unexpected field"
    )


def test_unknown_precision(data_dir, edit):
    edit(
        "accelerators.yaml",
        lambda doc: record(doc, "b200")["dense_flop_per_s"].update(fp6=1_000_000),
    )
    assert "record 'b200': field 'dense_flop_per_s.fp6'" in _error(data_dir)


def test_flops_written_as_string_are_rejected(data_dir, edit):
    # PyYAML reads 989.4e12 (no sign in the exponent) as a string; it must not slip through.
    edit(
        "accelerators.yaml",
        lambda doc: record(doc, "h100-sxm")["dense_flop_per_s"].update(bf16="989.4e12"),
    )
    assert "record 'h100-sxm': field 'dense_flop_per_s.bf16'" in _error(data_dir)


def test_bidirectional_must_be_twice_per_direction(data_dir, edit):
    edit(
        "links.yaml",
        lambda doc: record(doc, "nvlink-4").update(bw_bytes_per_s_per_direction=900_000_000_000),
    )
    assert _error(data_dir).startswith(
        "links.yaml: record 'nvlink-4': field 'bw_bytes_per_s_bidirectional': "
    )


def test_bytes_cannot_exceed_bit_rate(data_dir, edit):
    def bits_as_bytes(doc):
        rec = record(doc, "roce-400gbe")
        rec["bw_bytes_per_s_per_direction"] = 400_000_000_000
        rec["bw_bytes_per_s_bidirectional"] = 800_000_000_000

    edit("links.yaml", bits_as_bytes)
    assert "field 'bw_bytes_per_s_per_direction'" in _error(data_dir)


def test_active_params_cannot_exceed_total(data_dir, edit):
    edit(
        "models.yaml",
        lambda doc: record(doc, "mixtral-8x7b").update(active_params=50_000_000_000),
    )
    assert _error(data_dir).startswith(
        "models.yaml: record 'mixtral-8x7b': field 'active_params': "
    )


def test_dense_model_active_equals_total(data_dir, edit):
    edit("models.yaml", lambda doc: record(doc, "llama-3.1-8b").update(active_params=1))
    assert "record 'llama-3.1-8b': field 'active_params'" in _error(data_dir)


def test_heads_times_head_dim_must_match_hidden(data_dir, edit):
    edit("models.yaml", lambda doc: record(doc, "llama-3.1-70b").update(head_dim=64))
    assert "record 'llama-3.1-70b': field 'head_dim'" in _error(data_dir)


def test_mla_head_dim_convention(data_dir, edit):
    edit("models.yaml", lambda doc: record(doc, "deepseek-v3").update(head_dim=192))
    assert "record 'deepseek-v3': field 'head_dim'" in _error(data_dir)


def test_record_without_slug_is_named_by_index(data_dir, edit):
    edit("links.yaml", lambda doc: doc["records"][2].pop("slug"))
    assert _error(data_dir) == "links.yaml: record #2: field 'slug': missing"


def test_duplicate_slug(data_dir, edit):
    edit("links.yaml", lambda doc: doc["records"].append(dict(doc["records"][0])))
    assert _error(data_dir) == "links.yaml: record 'nvlink-3': field 'slug': duplicate slug"


def test_dangling_reference(data_dir, edit):
    edit("servers.yaml", lambda doc: record(doc, "dgx-h100").update(accelerator="h100-sxm9"))
    assert _error(data_dir).startswith(
        "servers.yaml: record 'dgx-h100': field 'accelerator': unknown accelerator slug"
    )


def test_null_power_needs_a_note(data_dir, edit):
    edit("servers.yaml", lambda doc: record(doc, "azure-nd-mi300x-v5").update(notes=""))
    assert "record 'azure-nd-mi300x-v5': field 'notes'" in _error(data_dir)


def test_schema_version(data_dir, edit):
    edit("models.yaml", lambda doc: doc.update(schema_version=2))
    assert _error(data_dir).startswith("models.yaml: field 'schema_version': ")


def test_missing_file(data_dir):
    (data_dir / "servers.yaml").unlink()
    assert _error(data_dir).startswith("servers.yaml: file not found")


def test_yaml_syntax_error(data_dir):
    (data_dir / "links.yaml").write_text("schema_version: 1\nrecords: [\n", encoding="utf-8")
    assert _error(data_dir).startswith("links.yaml: not valid YAML")


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("80 GB HBM3", 80 * 10**9),
        ("96 GiB HBM", 96 * 2**30),
        ("80GB HBM2e", 80 * 10**9),
        ("1.5 TB", 1_500_000_000_000),
        ("512 MiB", 512 * 2**20),
        ("2 TiB", 2 * 2**40),
        ("100 B", 100),
    ],
)
def test_parse_capacity_label(label, expected):
    assert schema.parse_capacity_label(label)[2] == expected


@pytest.mark.parametrize("label", ["80 G HBM3", "80 gb", "80 Gb", "HBM3 80 GB", "80 GiBs"])
def test_parse_capacity_label_rejects(label):
    with pytest.raises(ValueError):
        schema.parse_capacity_label(label)
