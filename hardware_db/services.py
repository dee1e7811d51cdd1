"""Writes to the hardware tables. Only `load_hardware` should call into here.

Everything is validated before anything is written, and the whole load runs in one
transaction: a half-loaded catalogue (new accelerators pointing at links that failed to load)
would be worse than the old one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import models, transaction

from hardware_db import catalog, schema
from hardware_db.models import Accelerator, Link, ModelArchitecture, Server

KINDS = ("links", "accelerators", "servers", "models")


@dataclass
class KindReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: int = 0
    stale: list[str] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)


@dataclass
class LoadReport:
    data_dir: Path
    kinds: dict[str, KindReport] = field(default_factory=lambda: {k: KindReport() for k in KINDS})

    @property
    def created(self) -> int:
        return sum(len(r.created) for r in self.kinds.values())

    @property
    def updated(self) -> int:
        return sum(len(r.updated) for r in self.kinds.values())

    @property
    def unchanged(self) -> int:
        return sum(r.unchanged for r in self.kinds.values())

    @property
    def changed(self) -> bool:
        return bool(self.created or self.updated or any(r.pruned for r in self.kinds.values()))

    def summary(self) -> str:
        return f"{self.created} created, {self.updated} updated, {self.unchanged} unchanged"


def _common(rec: schema._Record, position: int) -> dict[str, Any]:
    return {
        "source": list(rec.source),
        "as_of": rec.as_of,
        "notes": rec.notes,
        "position": position,
    }


def _link_values(rec: schema.LinkRecord, position: int, _: dict) -> dict[str, Any]:
    return {
        **_common(rec, position),
        "name": rec.name,
        "kind": rec.kind,
        "line_rate_bits_per_s": rec.line_rate_bits_per_s,
        "bw_bytes_per_s_per_direction": rec.bw_bytes_per_s_per_direction,
        "bw_bytes_per_s_bidirectional": rec.bw_bytes_per_s_bidirectional,
    }


def _rates(rates: dict[str, float]) -> dict[str, float]:
    # Always floats, so a value that round-trips through JSON compares equal on the next load.
    return {key: float(value) for key, value in rates.items()}


def _accelerator_values(rec: schema.AcceleratorRecord, position: int, refs: dict) -> dict:
    links = refs["links"]
    return {
        **_common(rec, position),
        "vendor": rec.vendor,
        "name": rec.name,
        "form_factor": rec.form_factor,
        "memory_label": rec.memory_label,
        "memory_bytes": rec.memory_bytes,
        "memory_reported_bytes": rec.memory_reported_bytes,
        "mem_bw_bytes_per_s": rec.mem_bw_bytes_per_s,
        "dense_flops": _rates(rec.dense_flop_per_s),
        "sparse_flops": _rates(rec.sparse_flop_per_s),
        "tdp_watts": rec.tdp_watts,
        "scale_up_link": links.get(rec.scale_up_link) if rec.scale_up_link else None,
        "scale_up_bw_bytes_per_s_per_direction": rec.scale_up_bw_bytes_per_s_per_direction,
        "scale_up_bw_bytes_per_s_bidirectional": rec.scale_up_bw_bytes_per_s_bidirectional,
        "host_link": links.get(rec.host_link) if rec.host_link else None,
    }


def _server_values(rec: schema.ServerRecord, position: int, refs: dict) -> dict:
    return {
        **_common(rec, position),
        "name": rec.name,
        "vendor": rec.vendor,
        "accelerator": refs["accelerators"][rec.accelerator],
        "n_accelerators": rec.n_accelerators,
        "nic_count": rec.nic_count,
        "nic_link": refs["links"].get(rec.nic_link) if rec.nic_link else None,
        "nic_description": rec.nic_description,
        "cpu": rec.cpu,
        "system_power_watts": rec.system_power_watts,
        "rack_units": rec.rack_units,
    }


def _model_values(rec: schema.ModelRecord, position: int, _: dict) -> dict:
    figures = {name: getattr(rec, name) for name in ModelArchitecture.DATA_FIELDS}
    return {**_common(rec, position), **figures}


def _upsert(
    model: type[models.Model],
    records: Iterable[schema._Record],
    values_for: Callable[[Any, int, dict], dict[str, Any]],
    refs: dict,
    report: KindReport,
) -> dict[str, models.Model]:
    """Create or update rows by slug; save only rows whose values actually changed."""
    existing = {obj.slug: obj for obj in model.objects.all()}
    by_slug: dict[str, models.Model] = {}
    for position, rec in enumerate(records):
        values = values_for(rec, position, refs)
        obj = existing.get(rec.slug)
        if obj is None:
            obj = model.objects.create(slug=rec.slug, **values)
            report.created.append(rec.slug)
        else:
            changed = [name for name, value in values.items() if getattr(obj, name) != value]
            if changed:
                for name in changed:
                    setattr(obj, name, values[name])
                obj.save(update_fields=changed)
                report.updated.append(rec.slug)
            else:
                report.unchanged += 1
        by_slug[rec.slug] = obj
    report.stale = sorted(set(existing) - set(by_slug))
    return by_slug


def hardware_load(*, data_dir: Path | str | None = None, prune: bool = False) -> LoadReport:
    """Validate every data file, then upsert all records by slug in one transaction.

    Raises schema.DataFileError (before touching the database) if any file is invalid.
    Rows whose slug disappeared from the files are reported as stale and left in place
    unless `prune` is set, because other apps may still reference them.
    """
    data_dir = Path(data_dir) if data_dir is not None else catalog.DEFAULT_DATA_DIR
    dataset = schema.load_dataset(data_dir)
    report = LoadReport(data_dir=data_dir)
    with transaction.atomic():
        refs: dict[str, dict[str, models.Model]] = {}
        # Order matters: later kinds point at earlier ones. Pruning runs in reverse so that
        # PROTECT foreign keys never block a delete of something that is itself going away.
        plan = [
            ("links", Link, dataset.links, _link_values),
            ("accelerators", Accelerator, dataset.accelerators, _accelerator_values),
            ("servers", Server, dataset.servers, _server_values),
            ("models", ModelArchitecture, dataset.models, _model_values),
        ]
        for kind, model, records, values_for in plan:
            refs[kind] = _upsert(model, records, values_for, refs, report.kinds[kind])
        if prune:
            for kind, model, _records, _values in reversed(plan):
                stale = report.kinds[kind].stale
                if stale:
                    model.objects.filter(slug__in=stale).delete()
                    report.kinds[kind].pruned, report.kinds[kind].stale = stale, []
    catalog.reload()
    return report
