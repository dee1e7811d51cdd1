"""Certification track files (certify/data/<slug>.yaml): their shape, checked before load.

A track names lessons (their skills must be mastered), a certification exam (pools of
templates per question, time limit, pass mark, cooldown) and whether an approved
capstone memo is required. Pure: lesson slugs are checked against the database by the
loader, template slugs against the problem registry here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
    field_validator,
    model_validator,
)

from problems.engine import registry

DEFAULT_DATA_DIR = Path(__file__).resolve().parent / "data"

Slug = Annotated[str, Field(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$", max_length=100)]
Text = Annotated[str, Field(min_length=1, max_length=2000)]


class TrackDataError(ValueError):
    """One bad spot in one track file, phrased for the person editing it."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _distinct(values: list[str]) -> list[str]:
    if len(set(values)) != len(values):
        raise ValueError("lists an item twice")
    return values


class ExamQuestion(_Strict):
    points: Annotated[StrictInt, Field(ge=1, le=20)]
    templates: Annotated[list[Slug], Field(min_length=1)]

    @field_validator("templates")
    @classmethod
    def _known(cls, value: list[str]) -> list[str]:
        for slug in _distinct(value):
            try:
                registry.get(slug)
            except KeyError:
                raise ValueError(f"unknown template {slug!r}") from None
        return value


class ExamRecord(_Strict):
    time_limit_minutes: Annotated[StrictInt, Field(ge=5, le=480)]
    pass_mark: Annotated[float, Field(gt=0, le=1)]
    cooldown_days: Annotated[StrictInt, Field(ge=0, le=365)]
    questions: Annotated[list[ExamQuestion], Field(min_length=1, max_length=40)]


class TrackRecord(_Strict):
    slug: Slug
    title: Annotated[str, Field(min_length=1, max_length=200)]
    rotation: Annotated[str, Field(min_length=1, max_length=200)]
    order: Annotated[StrictInt, Field(ge=0)]
    summary: Text
    lessons: Annotated[list[Slug], Field(min_length=1)]
    mastery_threshold: Annotated[float, Field(gt=0, lt=1)]
    requires_memo: StrictBool
    validity_days: Annotated[StrictInt, Field(ge=1, le=1095)] = 365
    reminder_days: Annotated[StrictInt, Field(ge=0, le=365)] = 30
    exam: ExamRecord

    @field_validator("lessons")
    @classmethod
    def _lessons_distinct(cls, value: list[str]) -> list[str]:
        return _distinct(value)

    @model_validator(mode="after")
    def _reminder_inside_validity(self) -> TrackRecord:
        # A window as long as the validity would mail the reminder the hour the
        # certificate is issued.
        if self.reminder_days >= self.validity_days:
            raise ValueError("reminder_days must be shorter than validity_days")
        return self


def load_track_files(data_dir: Path | str | None = None) -> list[TrackRecord]:
    """Every track file of the directory, validated, in `order`; TrackDataError names
    the file and the field at fault."""
    directory = Path(data_dir) if data_dir is not None else DEFAULT_DATA_DIR
    records: list[TrackRecord] = []
    for path in sorted(directory.glob("*.yaml")):
        try:
            document = yaml.safe_load(path.read_text(encoding="utf-8"))
            record = TrackRecord.model_validate(document)
        except yaml.YAMLError as exc:
            raise TrackDataError(f"{path.name}: not YAML: {exc}") from exc
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "(file)"
            raise TrackDataError(f"{path.name}: field '{where}': {first['msg']}") from exc
        if record.slug != path.stem:
            raise TrackDataError(f"{path.name}: slug {record.slug!r} must match the file name")
        records.append(record)
    slugs = [r.slug for r in records]
    if len(set(slugs)) != len(slugs):
        raise TrackDataError("two track files share a slug")
    return sorted(records, key=lambda r: (r.order, r.slug))
