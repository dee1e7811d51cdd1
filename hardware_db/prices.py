"""Hourly rental prices for the catalog's accelerators: the schema and a cached reader.

The capstone brief prices a fleet at one provider's records (one provider per brief),
and a memo's monthly cost is checked against GPUs x USD per GPU-hour x 730, so a price
is data with a provenance like every other figure here: who charges it, for which
instance, where it was read and when. A price without a date is worse than none (cloud
list prices move several times a year), so the schema refuses it, and it checks the
per-GPU figure against the instance price, the slip a hand edit most easily makes
(pasting the instance price into the per-GPU column).

Kept apart from `schema.py`/`catalog.py` on purpose: prices change far more often than
hardware figures and are not loaded into the database. Pure: no Django.

    from hardware_db import prices
    prices.price_for("h100-sxm").usd_per_gpu_hour   # 6.88 (AWS p5.48xlarge)
"""

from __future__ import annotations

import datetime
import functools
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    ValidationError,
    model_validator,
)

from hardware_db import catalog, schema
from hardware_db.schema import DataFileError

__all__ = [
    "HOURS_PER_MONTH",
    "PRICES_FILE",
    "PriceRecord",
    "load_prices",
    "price_for",
    "prices",
    "prices_for",
    "reload",
]

PRICES_FILE = "prices.yaml"
HOURS_PER_MONTH = 730  # 8,760 hours a year / 12, the convention cloud calculators use
# Providers round the per-GPU figure (3.4309 for 27.44705 / 8); a twentieth of a cent
# absorbs that rounding and still catches a pasted instance price or a wrong GPU count.
PER_GPU_TOLERANCE_USD = 0.0005

Usd = Annotated[float, Field(gt=0, le=10_000, strict=True)]


class PriceRecord(BaseModel):
    """One on-demand list price of one provider's instance."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    slug: schema.Slug
    accelerator: schema.Slug
    provider: schema.NonEmptyStr
    instance_type: schema.NonEmptyStr
    region: schema.NonEmptyStr
    gpus_per_instance: Annotated[StrictInt, Field(ge=1, le=72)]
    instance_usd_per_hour: Usd
    usd_per_gpu_hour: Usd
    source: Annotated[tuple[schema.NonEmptyStr, ...], Field(min_length=1)]
    as_of: datetime.date
    notes: str = ""

    @model_validator(mode="before")
    @classmethod
    def _sources_and_dates(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            if isinstance(data.get("source"), str):
                data["source"] = [data["source"]]
            if isinstance(data.get("as_of"), datetime.datetime):
                raise ValueError("as_of must be a date (YYYY-MM-DD), not a timestamp")
        return data

    @model_validator(mode="after")
    def _per_gpu_is_instance_over_gpus(self) -> PriceRecord:
        expected = self.instance_usd_per_hour / self.gpus_per_instance
        if abs(self.usd_per_gpu_hour - expected) > PER_GPU_TOLERANCE_USD:
            raise schema.FieldProblem(
                "usd_per_gpu_hour",
                f"{self.usd_per_gpu_hour} is not instance_usd_per_hour / gpus_per_instance = "
                f"{self.instance_usd_per_hour} / {self.gpus_per_instance} = {expected:.6g}",
            )
        if any(not s.startswith(("https://", "http://")) for s in self.source):
            raise schema.FieldProblem("source", "every source must be a URL (http or https)")
        return self

    @property
    def usd_per_gpu_month(self) -> float:
        return self.usd_per_gpu_hour * HOURS_PER_MONTH


_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_prices(path: Path | str) -> tuple[PriceRecord, ...]:
    """Read and validate one prices file; raise DataFileError at the first problem.

    Accelerator slugs are checked against the catalog of the same data directory."""
    path = Path(path)
    name = path.name
    try:
        document = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)  # noqa: S506
    except FileNotFoundError:
        raise DataFileError(name, f"file not found in {path.parent}") from None
    except yaml.YAMLError as exc:
        raise DataFileError(name, f"not valid YAML: {exc}") from None
    if not isinstance(document, dict) or set(document) != {"schema_version", "records"}:
        raise DataFileError(name, "expected a mapping with schema_version and records only")
    if document["schema_version"] != schema.SCHEMA_VERSION:
        raise DataFileError(name, "not supported", field="schema_version")
    raw_records = document["records"]
    if not isinstance(raw_records, list) or not raw_records:
        raise DataFileError(name, "must be a non-empty list", field="records")
    known = {a.slug for a in catalog.accelerators(path.parent)}
    out: list[PriceRecord] = []
    seen: set[str] = set()
    for index, raw in enumerate(raw_records):
        label = schema._record_label(raw, index)
        if not isinstance(raw, dict):
            raise DataFileError(name, "must be a mapping", record=label)
        try:
            record = PriceRecord.model_validate(raw)
        except ValidationError as exc:
            field, problem = schema._describe(exc.errors()[0])
            raise DataFileError(name, problem, record=label, field=field) from None
        if record.slug in seen:
            raise DataFileError(name, "duplicate slug", record=label, field="slug")
        if record.accelerator not in known:
            raise DataFileError(
                name,
                f"unknown accelerator slug {record.accelerator!r} (not in accelerators.yaml)",
                record=label,
                field="accelerator",
            )
        seen.add(record.slug)
        out.append(record)
    return tuple(out)


@functools.cache
def _load(path: Path) -> tuple[PriceRecord, ...]:
    return load_prices(path)


def _path(data_dir: Path | str | None) -> Path:
    base = Path(data_dir).resolve() if data_dir is not None else catalog.current_data_dir()
    return base / PRICES_FILE


def prices(data_dir: Path | str | None = None) -> tuple[PriceRecord, ...]:
    """Every price record, in file order (read and validated once, then cached)."""
    return _load(_path(data_dir))


def prices_for(accelerator: str, data_dir: Path | str | None = None) -> tuple[PriceRecord, ...]:
    return tuple(p for p in prices(data_dir) if p.accelerator == accelerator)


def price_for(accelerator: str, data_dir: Path | str | None = None) -> PriceRecord:
    """The reference price of an accelerator: its first record in the file."""
    found = prices_for(accelerator, data_dir)
    if not found:
        priced = ", ".join(sorted({p.accelerator for p in prices(data_dir)}))
        raise KeyError(f"no price for accelerator {accelerator!r}; priced: {priced}")
    return found[0]


def reload() -> None:
    """Forget the parsed file so the next call re-reads it."""
    _load.cache_clear()
