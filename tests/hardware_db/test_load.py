"""`manage.py load_hardware` and services.hardware_load (database)."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from hardware_db import catalog, services
from hardware_db.models import Accelerator, Link, ModelArchitecture, Server
from tests.hardware_db.conftest import record

pytestmark = pytest.mark.django_db


def _run(*args: str) -> str:
    out = StringIO()
    call_command("load_hardware", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_load_creates_every_record(data_dir):
    output = _run("--data-dir", str(data_dir))
    total = sum(len(getattr(catalog, k)()) for k in ("accelerators", "links", "servers", "models"))
    assert f"{total} created, 0 updated" in output
    assert Accelerator.objects.count() == len(catalog.accelerators())
    assert Link.objects.count() == len(catalog.links())
    assert Server.objects.count() == len(catalog.servers())
    assert ModelArchitecture.objects.count() == len(catalog.models())

    h100 = Accelerator.objects.get(slug="h100-sxm")
    assert h100.memory_label == "80 GB HBM3"
    assert h100.mem_bw_bytes_per_s == 3_350_000_000_000
    assert h100.dense_flops["bf16"] == 989.4e12
    assert h100.sparse_flops["bf16"] == 1979e12
    assert h100.scale_up_link.slug == "nvlink-4"
    assert h100.source and h100.as_of is not None
    dgx = Server.objects.get(slug="dgx-h100")
    assert dgx.accelerator == h100
    assert dgx.rack_units == 8
    assert Server.objects.get(slug="azure-nd-mi300x-v5").rack_units is None
    assert {s.slug: s.rack_units for s in Server.objects.all()} == {
        s.slug: s.rack_units for s in catalog.servers()
    }
    assert Accelerator.objects.get(slug="h100-nvl").memory_reported_bytes == 95_830 * 2**20
    assert Accelerator.objects.get(slug="trainium2").sparse_flops == {}


def test_loading_twice_changes_nothing(data_dir):
    _run("--data-dir", str(data_dir))
    snapshot = list(Accelerator.objects.values())
    second = _run("--data-dir", str(data_dir))
    assert "0 created, 0 updated" in second
    assert list(Accelerator.objects.values()) == snapshot


def test_default_data_dir_is_the_packaged_data():
    report = services.hardware_load()
    assert report.data_dir == catalog.DEFAULT_DATA_DIR
    assert report.created > 0
    assert services.hardware_load().summary().startswith("0 created, 0 updated")


def test_changed_record_is_updated(data_dir, edit):
    _run("--data-dir", str(data_dir))
    edit("accelerators.yaml", lambda doc: record(doc, "h100-sxm").update(tdp_watts=650))
    report = services.hardware_load(data_dir=data_dir)
    assert report.kinds["accelerators"].updated == ["h100-sxm"]
    assert (report.created, report.updated) == (0, 1)
    assert Accelerator.objects.get(slug="h100-sxm").tdp_watts == 650


def test_bad_file_fails_with_one_clear_message_and_writes_nothing(data_dir, edit):
    edit("accelerators.yaml", lambda doc: record(doc, "h100-sxm").pop("source"))
    with pytest.raises(CommandError) as excinfo:
        _run("--data-dir", str(data_dir))
    assert str(excinfo.value) == "accelerators.yaml: record 'h100-sxm': field 'source': missing"
    # Validation happens before any write, even for the files that were fine.
    assert Link.objects.count() == 0
    assert Accelerator.objects.count() == 0


@pytest.mark.parametrize(
    ("filename", "slug", "mutate", "expected"),
    [
        (
            "accelerators.yaml",
            "h100-sxm",
            lambda rec: rec.update(memory_label="80 GX HBM3"),
            "accelerators.yaml: record 'h100-sxm': field 'memory_label': unknown unit 'GX'",
        ),
        (
            "accelerators.yaml",
            "b200",
            lambda rec: rec["sparse_flop_per_s"].update(fp8=1_000_000_000_000_000),
            "accelerators.yaml: record 'b200': field 'sparse_flop_per_s.fp8': sparse",
        ),
        (
            "servers.yaml",
            "dgx-b200",
            lambda rec: rec.update(height_u=10),
            "servers.yaml: record 'dgx-b200': field 'height_u': unexpected field",
        ),
    ],
)
def test_bad_file_messages_through_the_command(data_dir, edit, filename, slug, mutate, expected):
    edit(filename, lambda doc: mutate(record(doc, slug)))
    with pytest.raises(CommandError, match="^" + expected.replace("(", r"\(").replace(")", r"\)")):
        _run("--data-dir", str(data_dir))


def test_failed_load_keeps_previous_rows(data_dir, edit):
    _run("--data-dir", str(data_dir))
    edit("models.yaml", lambda doc: record(doc, "llama-3.1-8b").update(head_dim=64))
    with pytest.raises(CommandError):
        _run("--data-dir", str(data_dir))
    assert ModelArchitecture.objects.get(slug="llama-3.1-8b").head_dim == 128


def test_removed_record_is_reported_and_pruned_only_on_request(data_dir, edit):
    _run("--data-dir", str(data_dir))
    edit("models.yaml", lambda doc: doc["records"].remove(record(doc, "gpt-3-175b")))
    report = services.hardware_load(data_dir=data_dir)
    assert report.kinds["models"].stale == ["gpt-3-175b"]
    assert ModelArchitecture.objects.filter(slug="gpt-3-175b").exists()
    report = services.hardware_load(data_dir=data_dir, prune=True)
    assert report.kinds["models"].pruned == ["gpt-3-175b"]
    assert not ModelArchitecture.objects.filter(slug="gpt-3-175b").exists()


def test_load_reloads_the_catalog(data_dir, edit):
    catalog.use_data_dir(data_dir)
    assert catalog.accelerator("l40s").tdp_watts == 350
    edit("accelerators.yaml", lambda doc: record(doc, "l40s").update(tdp_watts=300))
    _run("--data-dir", str(data_dir))
    assert catalog.accelerator("l40s").tdp_watts == 300


def test_database_refuses_a_record_without_sources():
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        Link.objects.create(
            slug="nameless",
            name="x",
            kind="host",
            bw_bytes_per_s_per_direction=1,
            bw_bytes_per_s_bidirectional=2,
            source=[],
            as_of="2026-01-01",
        )


def test_celery_task_wraps_the_service():
    from hardware_db.tasks import hardware_reload

    first = hardware_reload()
    assert first["created"] > 0
    assert hardware_reload() == {"created": 0, "updated": 0, "unchanged": first["created"]}
