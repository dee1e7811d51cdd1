"""The catalog records an authored template's parameter may draw, as flat scalar fields.

A parameter declared `{model: [llama-3.1-8b, ...]}` or `{accelerator: [h100-sxm, ...]}`
draws one record of hardware_db's data files (hardware_db/catalog.py, the same Django-free
reader the built-in templates use; the figures and their sources are in
hardware_db/data/*.yaml). An expression reads the record's fields by name
(`model.n_layers`, `gpu.memory_bytes`). Only scalars are exposed: numbers, text and
flags; the per-precision FLOP/s maps are flattened to one field per precision
(`gpu.dense_flops_bf16`); sources, dates and notes are not fields. So no expression can
reach an object, a method or a mapping through a record.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from fractions import Fraction
from functools import cache
from typing import Any

from hardware_db import catalog

# kind (the key in a param's declaration) -> every record of that kind
KINDS: dict[str, Callable[[], tuple[Any, ...]]] = {
    "model": catalog.models,
    "accelerator": catalog.accelerators,
}
_LEFT_OUT = frozenset({"source", "as_of", "notes", "sparse_ratio_notes"})
_FIELD = re.compile(r"[^a-z0-9_]+")


def _scalar(value: Any) -> Any:
    """A field value as an expression reads it: exact numbers as Fractions (a float by its
    shortest decimal), text and flags as they are, None for "not known"."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(repr(value))
    raise TypeError(type(value).__name__)


def _fields(record: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in dataclasses.fields(record):
        if f.name in _LEFT_OUT:
            continue
        value = getattr(record, f.name)
        if isinstance(value, Mapping):
            for key, item in value.items():
                out[f"{f.name}_{_FIELD.sub('_', str(key).lower())}"] = _scalar(item)
        elif value is None or isinstance(value, bool | int | float | str):
            out[f.name] = _scalar(value)
    return out


@cache
def records(kind: str) -> dict[str, Mapping[str, Any]]:
    """slug -> the record's scalar fields, for one kind. Cached for the process: the data
    files are read once, as the catalog itself does."""
    return {rec.slug: _fields(rec) for rec in KINDS[kind]()}


def record(kind: str, slug: str) -> Mapping[str, Any]:
    return records(kind)[slug]


def field_names(kind: str) -> frozenset[str]:
    """Every field any record of the kind has (a record may lack a figure: None)."""
    return frozenset(name for fields in records(kind).values() for name in fields)


def clear() -> None:
    """Forget the cached records (after hardware_db.catalog.reload())."""
    records.cache_clear()
