"""Read-only, Django-free view of the hardware data files.

Problem generators run inside and outside Django (management commands, workers, plain
scripts, pure unit tests), so this module deliberately imports nothing from Django and
never touches the database: the YAML files are the source of truth and the database is a
copy of them for the API and the admin.

Files are parsed and validated once per data directory and cached; call `reload()` after
editing them (the `load_hardware` command does).

    from hardware_db import catalog
    catalog.accelerator("h100-sxm").dense_flops["bf16"]   # 989.4e12
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from hardware_db import schema

DEFAULT_DATA_DIR = Path(__file__).resolve().parent / "data"

_data_dir: Path = DEFAULT_DATA_DIR

DataFileError = schema.DataFileError

__all__ = [
    "DEFAULT_DATA_DIR",
    "Accelerator",
    "DataFileError",
    "Link",
    "ModelArch",
    "Server",
    "accelerator",
    "accelerators",
    "current_data_dir",
    "link",
    "links",
    "model",
    "models",
    "reload",
    "server",
    "servers",
    "use_data_dir",
]


@dataclass(frozen=True)
class Accelerator:
    slug: str
    vendor: str
    name: str
    form_factor: str
    memory_label: str
    memory_bytes: int
    memory_reported_bytes: int | None
    mem_bw_bytes_per_s: int
    dense_flops: Mapping[str, float]
    sparse_flops: Mapping[str, float]
    tdp_watts: int | None
    scale_up_link: str | None
    scale_up_bw_bytes_per_s_per_direction: int | None
    source: tuple[str, ...]
    as_of: datetime.date
    notes: str
    # Beyond the agreed interface; defaults keep positional construction working.
    scale_up_bw_bytes_per_s_bidirectional: int | None = None
    host_link: str | None = None
    # precision -> why its sparse figure is not 2x dense (the schema requires one for each).
    sparse_ratio_notes: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def usable_gib(self) -> float:
        """Capacity in GiB that a sizing calculation should assume.

        When the driver-reported total is known it is the honest answer (H100 "80 GB"
        reports 81,559 MiB = 79.65 GiB). Otherwise the label's number is read as GiB:
        vendors print HBM sizes that track the usable GiB (A100 "80GB" reports exactly
        80 GiB; AMD and AWS label the same figures GiB outright), so reading "80 GB" as
        80e9 bytes would understate the memory by about 7%.
        """
        if self.memory_reported_bytes is not None:
            return self.memory_reported_bytes / 2**30
        number, _, _ = schema.parse_capacity_label(self.memory_label)
        return float(number)

    @property
    def usable_bytes(self) -> float:
        """`usable_gib` in bytes, for callers that want to stay in bytes."""
        return self.usable_gib * 2**30

    @property
    def short_name(self) -> str:
        """The part as engineers name it: the catalog name without its parenthetical
        ("B200", not "B200 (HGX B200, per GPU)"), which qualifies the record, not the part."""
        return _without_note(self.name)

    @property
    def prose_name(self) -> str:
        """Vendor and short name, for statements: "NVIDIA B200", "Google TPU v6e"."""
        return f"{self.vendor} {self.short_name}"


@dataclass(frozen=True)
class Link:
    slug: str
    name: str
    kind: str
    line_rate_bits_per_s: int | None
    bw_bytes_per_s_per_direction: int
    bw_bytes_per_s_bidirectional: int
    source: tuple[str, ...]
    as_of: datetime.date
    notes: str

    @property
    def short_name(self) -> str:
        """The link as engineers name it ("InfiniBand NDR", "NVLink 4"), without the
        catalog's parenthetical about lanes or links per GPU."""
        return _without_note(self.name)


def _without_note(name: str) -> str:
    return re.sub(r"\s*\([^)]*\)", "", name).strip()


@dataclass(frozen=True)
class Server:
    slug: str
    name: str
    vendor: str
    accelerator: str
    n_accelerators: int
    nic_count: int
    nic_link: str | None
    nic_description: str
    cpu: str
    system_power_watts: int | None
    source: tuple[str, ...]
    as_of: datetime.date
    notes: str
    # Beyond the agreed interface; the default keeps positional construction working.
    # Height in rack units (U); None where the vendor publishes none (notes say why).
    rack_units: int | None = None


@dataclass(frozen=True)
class ModelArch:
    slug: str
    name: str
    arch_type: str
    n_layers: int
    hidden_size: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    intermediate_size: int
    vocab_size: int
    max_context: int
    total_params: int
    active_params: int
    tied_embeddings: bool
    sliding_window: int | None
    n_experts: int | None
    experts_per_token: int | None
    kv_lora_rank: int | None
    qk_rope_head_dim: int | None
    source: tuple[str, ...]
    as_of: datetime.date
    notes: str
    # Beyond the agreed interface (MoE/MLA detail); defaults keep positional use working.
    n_shared_experts: int | None = None
    moe_intermediate_size: int | None = None
    first_k_dense: int | None = None
    q_lora_rank: int | None = None
    qk_nope_head_dim: int | None = None
    v_head_dim: int | None = None

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank is not None

    def kv_bytes_per_token(self, bytes_per_element: float) -> float:
        """KV-cache bytes one token adds across all layers.

        MLA caches one compressed latent (kv_lora_rank) plus the shared RoPE key per layer
        instead of per-head K and V (DeepSeek-V2 paper, sec. 2.1), so it must not use the
        2 * n_kv * head_dim formula; doing so would overstate DeepSeek-V3's cache ~57x.
        """
        if self.kv_lora_rank is not None:
            rope = self.qk_rope_head_dim or 0
            return self.n_layers * (self.kv_lora_rank + rope) * bytes_per_element
        return 2 * self.n_layers * self.n_kv_heads * self.head_dim * bytes_per_element


@dataclass(frozen=True)
class _Catalog:
    accelerators: tuple[Accelerator, ...]
    links: tuple[Link, ...]
    servers: tuple[Server, ...]
    models: tuple[ModelArch, ...]
    by_slug: Mapping[str, Mapping[str, object]] = field(default_factory=dict)


def _freeze_rates(rates: Mapping[str, float]) -> Mapping[str, float]:
    return MappingProxyType({key: float(value) for key, value in rates.items()})


def _from_record(cls: type, rec: schema._Record, **renamed: object):
    """A frozen catalog entry from a validated record: same-named fields are copied, and
    the few that differ (frozen maps, tuples) are given explicitly."""
    names = [f.name for f in dataclasses.fields(cls) if f.name not in renamed]
    values = {name: getattr(rec, name) for name in names}
    return cls(**values, **renamed)


def _accelerator(rec: schema.AcceleratorRecord) -> Accelerator:
    return _from_record(
        Accelerator,
        rec,
        dense_flops=_freeze_rates(rec.dense_flop_per_s),
        sparse_flops=_freeze_rates(rec.sparse_flop_per_s),
        sparse_ratio_notes=MappingProxyType(dict(rec.sparse_ratio_notes)),
        source=tuple(rec.source),
    )


def _link(rec: schema.LinkRecord) -> Link:
    return _from_record(Link, rec, source=tuple(rec.source))


def _server(rec: schema.ServerRecord) -> Server:
    return _from_record(Server, rec, source=tuple(rec.source))


def _model(rec: schema.ModelRecord) -> ModelArch:
    return _from_record(ModelArch, rec, source=tuple(rec.source))


@functools.cache
def _load(data_dir: Path) -> _Catalog:
    dataset = schema.load_dataset(data_dir)
    groups = {
        "accelerators": tuple(_accelerator(r) for r in dataset.accelerators),
        "links": tuple(_link(r) for r in dataset.links),
        "servers": tuple(_server(r) for r in dataset.servers),
        "models": tuple(_model(r) for r in dataset.models),
    }
    by_slug = {
        kind: MappingProxyType({item.slug: item for item in items})
        for kind, items in groups.items()
    }
    return _Catalog(**groups, by_slug=MappingProxyType(by_slug))


def _catalog(data_dir: Path | str | None) -> _Catalog:
    return _load(Path(data_dir).resolve() if data_dir is not None else _data_dir)


def _lookup(kind: str, slug: str, data_dir: Path | str | None):
    table = _catalog(data_dir).by_slug[kind]
    try:
        return table[slug]
    except KeyError:
        known = ", ".join(sorted(table))
        raise KeyError(f"unknown {kind[:-1]} slug {slug!r}; known: {known}") from None


def accelerators(data_dir: Path | str | None = None) -> tuple[Accelerator, ...]:
    return _catalog(data_dir).accelerators


def accelerator(slug: str, data_dir: Path | str | None = None) -> Accelerator:
    return _lookup("accelerators", slug, data_dir)


def links(data_dir: Path | str | None = None) -> tuple[Link, ...]:
    return _catalog(data_dir).links


def link(slug: str, data_dir: Path | str | None = None) -> Link:
    return _lookup("links", slug, data_dir)


def servers(data_dir: Path | str | None = None) -> tuple[Server, ...]:
    return _catalog(data_dir).servers


def server(slug: str, data_dir: Path | str | None = None) -> Server:
    return _lookup("servers", slug, data_dir)


def models(data_dir: Path | str | None = None) -> tuple[ModelArch, ...]:
    return _catalog(data_dir).models


def model(slug: str, data_dir: Path | str | None = None) -> ModelArch:
    return _lookup("models", slug, data_dir)


def reload() -> None:
    """Forget every parsed file so the next call re-reads (and re-validates) from disk."""
    _load.cache_clear()


def current_data_dir() -> Path:
    return _data_dir


def use_data_dir(path: Path | str | None) -> Path:
    """Point the module-level default at another directory (None restores the packaged data).

    Exists for tests and for trying out edited files without touching the packaged ones.
    Returns the previous directory so callers can restore it.
    """
    global _data_dir
    previous = _data_dir
    _data_dir = Path(path).resolve() if path is not None else DEFAULT_DATA_DIR
    reload()
    return previous
