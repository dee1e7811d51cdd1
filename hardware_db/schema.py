"""Pydantic schemas for the hardware data files, and the one place that reads them.

The YAML files are the source of truth and are edited by hand, so every rule that a
careless edit could break (GB written where GiB was meant, a sparse headline pasted into
the dense column, a bidirectional figure stored as per-direction) is checked here rather
than trusted. Both the pure catalog and the Django loader go through `load_dataset`, so
the two can never disagree about what a valid file is.

Errors are reported as ONE `DataFileError` naming file, record and field, because the
person reading it is editing a YAML file and needs to know exactly where to look.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    ValidationError,
    field_validator,
    model_validator,
)

SCHEMA_VERSION = 1

FILES = {
    "accelerators": "accelerators.yaml",
    "links": "links.yaml",
    "servers": "servers.yaml",
    "models": "models.yaml",
}

# SI prefixes are powers of ten and IEC prefixes powers of two; mixing them up is the most
# common way to be 7% wrong about memory, so only these exact spellings are accepted.
UNIT_BYTES: dict[str, int] = {
    "B": 1,
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "TB": 10**12,
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
    "TiB": 2**40,
}

Precision = Literal["fp64", "tf32", "bf16", "fp16", "fp8", "int8", "fp4"]
Slug = Annotated[str, Field(pattern=r"^[a-z0-9]+(?:[.-][a-z0-9]+)*$", max_length=64)]
PositiveInt = Annotated[StrictInt, Field(gt=0)]
# FLOP/s are written as plain integers in YAML (989_400_000_000_000): PyYAML reads
# "989.4e12" as a string, so a strict type turns that slip into an error instead of data.
FlopRate = Annotated[StrictFloat, Field(gt=0)]
NonEmptyStr = Annotated[str, Field(min_length=1)]

_LABEL_RE = re.compile(r"^\s*(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>[A-Za-z]+)\b")

# The sparse map promises 2:4 structured-sparsity figures, which are twice the dense rate.
# Vendors print both to about four significant figures (989.4 dense, 1,979 sparse), so "2x"
# allows 0.1% of the sparse figure; anything further off needs a reason in
# sparse_ratio_notes. No 2:4 figure can be far above 2x: a ratio past SPARSE_MAX_RATIO is
# another sparsity pattern (AWS's "up to" 4:16 headline is 3.84x) and is refused outright.
SPARSE_RATIO = 2
SPARSE_RATIO_REL_TOL = 1e-3
SPARSE_MAX_RATIO = 2.05

# A rack is at most about 52U; a bigger number is most likely a height in mm typed as U.
MAX_RACK_UNITS = 52


def sparse_is_twice_dense(sparse: float, dense: float) -> bool:
    """True when `sparse` is 2x `dense` up to the vendors' rounding (SPARSE_RATIO_REL_TOL)."""
    return abs(sparse - SPARSE_RATIO * dense) <= SPARSE_RATIO_REL_TOL * sparse


class FieldProblem(ValueError):
    """A consistency failure that belongs to a specific field.

    Model-level validators have no location of their own; carrying the field name on the
    exception lets the error formatter point at the field the editor has to change.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def parse_capacity_label(label: str) -> tuple[Decimal, str, int]:
    """Read the leading "<number> <unit>" of a vendor memory label.

    Returns (number, unit, bytes). Raises ValueError for anything whose unit is not one of
    UNIT_BYTES, so "80 Gb HBM3" (bits) or "80 G HBM3" cannot slip through as gigabytes.
    """
    match = _LABEL_RE.match(label)
    if not match:
        raise ValueError(f"cannot read a '<number> <unit>' capacity from {label!r}")
    unit = match["unit"]
    if unit not in UNIT_BYTES:
        allowed = "/".join(UNIT_BYTES)
        raise ValueError(f"unknown unit {unit!r} in {label!r} (allowed: {allowed})")
    number = Decimal(match["num"])
    size = number * UNIT_BYTES[unit]
    if size != size.to_integral_value():
        raise ValueError(f"{label!r} is not a whole number of bytes")
    return number, unit, int(size)


def _as_source_list(value: Any) -> Any:
    if isinstance(value, str):
        return [value]
    return value


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    slug: Slug
    source: Annotated[list[NonEmptyStr], Field(min_length=1)]
    as_of: datetime.date
    notes: str = ""

    @field_validator("source", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return _as_source_list(value)

    @field_validator("as_of", mode="before")
    @classmethod
    def _plain_date(cls, value: Any) -> Any:
        # A datetime is a date subclass; a timestamp here means someone pasted the wrong thing.
        if isinstance(value, datetime.datetime):
            raise ValueError("as_of must be a date (YYYY-MM-DD), not a timestamp")
        return value


class AcceleratorRecord(_Record):
    vendor: NonEmptyStr
    name: NonEmptyStr
    form_factor: NonEmptyStr
    memory_label: NonEmptyStr
    memory_bytes: PositiveInt
    memory_reported_bytes: PositiveInt | None = None
    mem_bw_bytes_per_s: PositiveInt
    dense_flop_per_s: dict[Precision, FlopRate] = Field(min_length=1)
    sparse_flop_per_s: dict[Precision, FlopRate] = Field(default_factory=dict)
    # precision -> why its sparse figure is not 2x dense; required for exactly those.
    sparse_ratio_notes: dict[Precision, NonEmptyStr] = Field(default_factory=dict)
    tdp_watts: PositiveInt | None
    scale_up_link: Slug | None = None
    scale_up_bw_bytes_per_s_per_direction: PositiveInt | None = None
    scale_up_bw_bytes_per_s_bidirectional: PositiveInt | None = None
    host_link: Slug | None = None

    @field_validator("memory_label")
    @classmethod
    def _label_has_known_unit(cls, value: str) -> str:
        parse_capacity_label(value)
        return value

    @model_validator(mode="after")
    def _consistent(self) -> AcceleratorRecord:
        _, unit, size = parse_capacity_label(self.memory_label)
        if self.memory_bytes != size:
            raise FieldProblem(
                "memory_bytes",
                f"{self.memory_bytes} does not match label {self.memory_label!r} "
                f"({size} bytes, {unit} = {UNIT_BYTES[unit]} B)",
            )
        self._check_sparse()
        _check_bidirectional(
            self.scale_up_bw_bytes_per_s_per_direction,
            self.scale_up_bw_bytes_per_s_bidirectional,
            "scale_up_bw_bytes_per_s_bidirectional",
        )
        has_bw = (
            self.scale_up_bw_bytes_per_s_per_direction is not None
            or self.scale_up_bw_bytes_per_s_bidirectional is not None
        )
        if has_bw and self.scale_up_link is None:
            raise FieldProblem("scale_up_link", "a scale-up bandwidth is given but no link")
        return self

    def _check_sparse(self) -> None:
        """Every sparse figure is a 2:4 figure: 2x its dense counterpart, or explained."""
        for precision, sparse in self.sparse_flop_per_s.items():
            field = f"sparse_flop_per_s.{precision}"
            dense = self.dense_flop_per_s.get(precision)
            if dense is None:
                raise FieldProblem(field, "a sparse figure needs the dense figure beside it")
            if sparse < dense:
                raise FieldProblem(
                    field, f"sparse {sparse:g} is below dense {dense:g}; the columns look swapped"
                )
            ratio = sparse / dense
            if ratio > SPARSE_MAX_RATIO:
                raise FieldProblem(
                    field,
                    f"sparse {sparse:g} is {ratio:.2f}x dense {dense:g}; 2:4 sparsity gives 2x, so "
                    "this is another sparsity pattern or precision and does not belong here",
                )
            explained = precision in self.sparse_ratio_notes
            if not explained and not sparse_is_twice_dense(sparse, dense):
                raise FieldProblem(
                    field,
                    f"sparse {sparse:g} is {ratio:.4f}x dense {dense:g}, not 2x; fix the figure "
                    f"or say why in sparse_ratio_notes.{precision}",
                )
        for precision in self.sparse_ratio_notes:
            sparse = self.sparse_flop_per_s.get(precision)
            dense = self.dense_flop_per_s.get(precision)
            if sparse is None or dense is None or sparse_is_twice_dense(sparse, dense):
                raise FieldProblem(
                    f"sparse_ratio_notes.{precision}",
                    "explains a sparse/dense ratio that is not there (no sparse figure, or "
                    "it is 2x dense); remove the note",
                )


class LinkRecord(_Record):
    name: NonEmptyStr
    kind: Literal["scale-up", "scale-out", "host"]
    line_rate_bits_per_s: PositiveInt | None = None
    bw_bytes_per_s_per_direction: PositiveInt
    bw_bytes_per_s_bidirectional: PositiveInt

    @model_validator(mode="after")
    def _consistent(self) -> LinkRecord:
        _check_bidirectional(
            self.bw_bytes_per_s_per_direction,
            self.bw_bytes_per_s_bidirectional,
            "bw_bytes_per_s_bidirectional",
        )
        if (
            self.line_rate_bits_per_s is not None
            and self.bw_bytes_per_s_per_direction * 8 > self.line_rate_bits_per_s
        ):
            raise FieldProblem(
                "bw_bytes_per_s_per_direction",
                "exceeds line_rate_bits_per_s / 8; was a bit rate stored as bytes?",
            )
        return self


class ServerRecord(_Record):
    name: NonEmptyStr
    vendor: NonEmptyStr
    accelerator: Slug
    n_accelerators: PositiveInt
    nic_count: Annotated[StrictInt, Field(ge=0)]
    nic_link: Slug | None = None
    nic_description: NonEmptyStr
    cpu: NonEmptyStr
    system_power_watts: PositiveInt | None
    # Height in rack units (1U = 44.45 mm); required, null only with a reason in notes.
    rack_units: Annotated[StrictInt, Field(ge=1, le=MAX_RACK_UNITS)] | None

    @model_validator(mode="after")
    def _consistent(self) -> ServerRecord:
        if self.nic_count > 0 and self.nic_link is None:
            raise FieldProblem("nic_link", "nic_count > 0 needs the link slug of those NICs")
        if self.system_power_watts is None and not self.notes.strip():
            raise FieldProblem(
                "notes", "system_power_watts is null: say in notes why no figure is given"
            )
        if self.rack_units is None and not self.notes.strip():
            raise FieldProblem("notes", "rack_units is null: say in notes why no height is given")
        return self


class ModelRecord(_Record):
    name: NonEmptyStr
    arch_type: Literal["dense", "moe"]
    n_layers: PositiveInt
    hidden_size: PositiveInt
    n_heads: PositiveInt
    n_kv_heads: PositiveInt
    head_dim: PositiveInt
    intermediate_size: PositiveInt
    vocab_size: PositiveInt
    max_context: PositiveInt
    total_params: PositiveInt
    active_params: PositiveInt
    tied_embeddings: StrictBool
    sliding_window: PositiveInt | None = None
    n_experts: PositiveInt | None = None
    experts_per_token: PositiveInt | None = None
    n_shared_experts: Annotated[StrictInt, Field(ge=0)] | None = None
    moe_intermediate_size: PositiveInt | None = None
    first_k_dense: Annotated[StrictInt, Field(ge=0)] | None = None
    q_lora_rank: PositiveInt | None = None
    kv_lora_rank: PositiveInt | None = None
    qk_rope_head_dim: PositiveInt | None = None
    qk_nope_head_dim: PositiveInt | None = None
    v_head_dim: PositiveInt | None = None

    @model_validator(mode="after")
    def _consistent(self) -> ModelRecord:
        if self.active_params > self.total_params:
            raise FieldProblem("active_params", "active_params exceeds total_params")
        if self.n_kv_heads > self.n_heads or self.n_heads % self.n_kv_heads:
            raise FieldProblem("n_kv_heads", "n_heads must be a multiple of n_kv_heads")
        if self.sliding_window is not None and self.sliding_window > self.max_context:
            raise FieldProblem("sliding_window", "sliding_window exceeds max_context")
        if self.arch_type == "dense":
            if self.active_params != self.total_params:
                raise FieldProblem("active_params", "a dense model has active == total")
            for name in ("n_experts", "experts_per_token", "n_shared_experts"):
                if getattr(self, name) is not None:
                    raise FieldProblem(name, "only MoE models have experts")
        else:
            if self.n_experts is None or self.experts_per_token is None:
                field = "n_experts" if self.n_experts is None else "experts_per_token"
                raise FieldProblem(field, "an MoE model needs n_experts and experts_per_token")
            if self.experts_per_token > self.n_experts:
                raise FieldProblem("experts_per_token", "more experts per token than experts")
            if self.active_params == self.total_params:
                raise FieldProblem("active_params", "an MoE model activates a subset")
        mla_fields = ("kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim")
        if self.kv_lora_rank is not None:
            for name in mla_fields:
                if getattr(self, name) is None:
                    raise FieldProblem(name, "MLA (kv_lora_rank set) needs all MLA head dims")
            # By convention head_dim carries the no-RoPE query/key dim (= value dim) for MLA
            # models, so code that only knows head_dim still gets a meaningful number.
            if self.head_dim != self.qk_nope_head_dim:
                raise FieldProblem("head_dim", "for MLA, head_dim must equal qk_nope_head_dim")
        else:
            for name in mla_fields:
                if getattr(self, name) is not None:
                    raise FieldProblem(name, "MLA head dims need kv_lora_rank")
            # Every non-MLA model in scope projects hidden -> heads * head_dim exactly; a
            # mismatch almost always means n_heads or head_dim was copied from another model.
            if self.n_heads * self.head_dim != self.hidden_size:
                raise FieldProblem(
                    "head_dim",
                    f"n_heads * head_dim = {self.n_heads * self.head_dim} "
                    f"!= hidden_size {self.hidden_size}",
                )
        return self


def _check_bidirectional(per_direction: int | None, bidirectional: int | None, field: str) -> None:
    if (
        per_direction is not None
        and bidirectional is not None
        and per_direction * 2 != bidirectional
    ):
        raise FieldProblem(
            field, f"{bidirectional} != 2 x per-direction {per_direction}; keep both exact"
        )


RECORD_MODELS: dict[str, type[_Record]] = {
    "accelerators": AcceleratorRecord,
    "links": LinkRecord,
    "servers": ServerRecord,
    "models": ModelRecord,
}


class DataFileError(ValueError):
    """One bad spot in one data file, phrased for the person editing that file."""

    def __init__(
        self, file: str, problem: str, *, record: str | None = None, field: str | None = None
    ) -> None:
        self.file = file
        self.record = record
        self.field = field
        self.problem = problem
        parts = [file]
        if record is not None:
            parts.append(f"record {record}")
        if field is not None:
            parts.append(f"field '{field}'")
        parts.append(problem)
        super().__init__(": ".join(parts))


@dataclass(frozen=True)
class Dataset:
    """Validated records of all four files, in file order."""

    accelerators: tuple[AcceleratorRecord, ...]
    links: tuple[LinkRecord, ...]
    servers: tuple[ServerRecord, ...]
    models: tuple[ModelRecord, ...]


def _describe(error: dict[str, Any]) -> tuple[str | None, str]:
    """Turn one pydantic error into (field path, short problem)."""
    ctx_error = (error.get("ctx") or {}).get("error")
    # "[key]" marks a bad mapping key; the key itself is already the previous element.
    loc = [str(part) for part in error["loc"] if part != "[key]"]
    if isinstance(ctx_error, FieldProblem):
        return ".".join([*loc, ctx_error.field]) if loc else ctx_error.field, ctx_error.message
    field = ".".join(loc) if loc else None
    kind = error["type"]
    if kind == "missing":
        return field, "missing"
    if kind == "extra_forbidden":
        return field, "unexpected field (not in the schema; check the spelling)"
    if isinstance(ctx_error, ValueError):
        return field, str(ctx_error)
    message = error["msg"]
    return field, message[0].lower() + message[1:] if message else kind


def _record_label(raw: Any, index: int) -> str:
    slug = raw.get("slug") if isinstance(raw, dict) else None
    if isinstance(slug, str) and slug:
        return f"'{slug}'"
    return f"#{index}"


_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_file(path: Path, kind: str) -> tuple[_Record, ...]:
    """Read and validate one data file; raise DataFileError at the first problem."""
    name = path.name
    model = RECORD_MODELS[kind]
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataFileError(name, f"file not found in {path.parent}") from None
    try:
        # libyaml's loader is ~10x faster than the pure-Python one; same safe subset.
        document = yaml.load(text, Loader=_SafeLoader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        raise DataFileError(name, f"not valid YAML: {exc}") from None
    if not isinstance(document, dict):
        raise DataFileError(name, "expected a mapping with schema_version and records")
    unknown = sorted(set(document) - {"schema_version", "records"})
    if unknown:
        raise DataFileError(name, "unexpected top-level key", field=str(unknown[0]))
    if "schema_version" not in document:
        raise DataFileError(name, "missing", field="schema_version")
    version = document["schema_version"]
    if version != SCHEMA_VERSION or isinstance(version, bool):
        raise DataFileError(
            name,
            f"{version!r} is not supported (expected {SCHEMA_VERSION})",
            field="schema_version",
        )
    raw_records = document.get("records")
    if not isinstance(raw_records, list) or not raw_records:
        raise DataFileError(name, "must be a non-empty list", field="records")

    records: list[_Record] = []
    seen: set[str] = set()
    for index, raw in enumerate(raw_records):
        label = _record_label(raw, index)
        if not isinstance(raw, dict):
            raise DataFileError(name, "must be a mapping", record=label)
        try:
            record = model.model_validate(raw)
        except ValidationError as exc:
            field, problem = _describe(exc.errors()[0])
            raise DataFileError(name, problem, record=label, field=field) from None
        if record.slug in seen:
            raise DataFileError(name, "duplicate slug", record=label, field="slug")
        seen.add(record.slug)
        records.append(record)
    return tuple(records)


def load_dataset(data_dir: Path) -> Dataset:
    """Validate all four files and the slugs they use to point at each other."""
    data_dir = Path(data_dir)
    loaded = {kind: load_file(data_dir / filename, kind) for kind, filename in FILES.items()}
    dataset = Dataset(**loaded)  # type: ignore[arg-type]

    links = {link.slug for link in dataset.links}
    accelerators = {acc.slug for acc in dataset.accelerators}
    for acc in dataset.accelerators:
        for field in ("scale_up_link", "host_link"):
            target = getattr(acc, field)
            if target is not None and target not in links:
                raise DataFileError(
                    FILES["accelerators"],
                    f"unknown link slug {target!r} (not in {FILES['links']})",
                    record=f"'{acc.slug}'",
                    field=field,
                )
    for server in dataset.servers:
        if server.accelerator not in accelerators:
            raise DataFileError(
                FILES["servers"],
                f"unknown accelerator slug {server.accelerator!r}",
                record=f"'{server.slug}'",
                field="accelerator",
            )
        if server.nic_link is not None and server.nic_link not in links:
            raise DataFileError(
                FILES["servers"],
                f"unknown link slug {server.nic_link!r}",
                record=f"'{server.slug}'",
                field="nic_link",
            )
    return dataset
