"""`manage.py load_hardware [--data-dir DIR] [--prune]`: copy the YAML data into the database."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from hardware_db import catalog, services
from hardware_db.schema import DataFileError


class Command(BaseCommand):
    help = (
        "Validate hardware_db/data/*.yaml and upsert every record by slug in one transaction. "
        "Safe to run repeatedly: an unchanged data set reports '0 created, 0 updated'."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--data-dir",
            type=Path,
            default=catalog.DEFAULT_DATA_DIR,
            help="Directory holding accelerators/links/servers/models.yaml "
            "(default: the packaged data).",
        )
        parser.add_argument(
            "--prune",
            action="store_true",
            help="Delete rows whose slug no longer appears in the files (default: report only).",
        )

    def handle(self, *args, data_dir: Path, prune: bool, **options):
        try:
            report = services.hardware_load(data_dir=data_dir, prune=prune)
        except DataFileError as exc:
            raise CommandError(str(exc)) from exc
        verbosity = options.get("verbosity", 1)
        for kind, kind_report in report.kinds.items():
            if verbosity >= 2 or kind_report.created or kind_report.updated:
                self.stdout.write(
                    f"  {kind}: {len(kind_report.created)} created, "
                    f"{len(kind_report.updated)} updated, {kind_report.unchanged} unchanged"
                )
            if verbosity >= 2:
                for slug in kind_report.created:
                    self.stdout.write(f"    + {slug}")
                for slug in kind_report.updated:
                    self.stdout.write(f"    ~ {slug}")
            if kind_report.pruned:
                self.stdout.write(f"  {kind}: pruned {', '.join(kind_report.pruned)}")
            if kind_report.stale:
                self.stderr.write(
                    f"  {kind}: in the database but not in the files (use --prune to delete): "
                    + ", ".join(kind_report.stale)
                )
        self.stdout.write(
            self.style.SUCCESS(f"Loaded hardware data from {report.data_dir}: {report.summary()}")
        )
