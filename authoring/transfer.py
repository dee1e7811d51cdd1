"""A course's authored templates to and from a folder of YAML files, one per template.

Import is all or nothing: every file is read and validated first (problems named per
file), then stored in one transaction. A file whose slug the course already has becomes
that template's next version when its document differs from the latest; a slug held
by another course or a built-in template is refused. Export writes each template's
latest version as `<slug>.yaml`, without the `version` key the service numbers itself,
so exporting and importing again stores nothing new.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from django.db import transaction

from api_common.service_errors import InvalidInput
from authoring.models import AuthoredTemplate
from authoring.selectors import latest_version
from authoring.services import create_unchecked, save_unchecked
from curricula.models import Course
from problems.authored.loader import TEMPLATE_SUFFIXES, read_file
from problems.authored.rules import AuthoringError


def _document(spec: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in spec.items() if k != "version"}


def _read_dir(folder: Path) -> list[tuple[Path, Any]]:
    files = sorted(p for p in folder.iterdir() if p.suffix in TEMPLATE_SUFFIXES)
    out, errors = [], []
    for path in files:
        try:
            out.append((path, read_file(path)))
        except AuthoringError as err:
            errors += [f"{path.name}: {line}" for line in err.problems]
    if errors:
        raise InvalidInput("; ".join(errors))
    return out


@transaction.atomic
def import_dir(folder: str | Path, course: Course) -> list[str]:
    """Store the folder's templates in the course; one line per template on what happened."""
    done: list[str] = []
    for path, data in _read_dir(Path(folder)):
        slug = data.get("slug") if isinstance(data, dict) else None
        row = AuthoredTemplate.objects.filter(slug=slug).first() if slug else None
        try:
            if row is None:
                create_unchecked(course=course, data=data)
                done.append(f"{slug}: created (v1)")
            elif row.course_id != course.pk:
                raise InvalidInput(f"slug: {slug!r} belongs to another course", field="slug")
            elif _document(latest_version(row).spec) == _document(data):
                done.append(f"{slug}: unchanged")
            else:
                version = save_unchecked(template=row, data=data)
                done.append(f"{slug}: saved v{version.number}")
        except InvalidInput as err:
            raise InvalidInput(f"{path.name}: {err}", field=err.field) from None
    return done


def export_dir(course: Course, folder: str | Path) -> list[Path]:
    """Each of the course's templates, latest version, as <slug>.yaml in the folder."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for row in AuthoredTemplate.objects.filter(course=course).order_by("slug"):
        path = folder / f"{row.slug}.yaml"
        text = yaml.safe_dump(_document(latest_version(row).spec), sort_keys=False)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
