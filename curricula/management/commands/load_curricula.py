"""`manage.py load_curricula [--data-dir DIR]`: make the curriculum tables match the files."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from curricula import services
from curricula.schema import DEFAULT_DATA_DIR, CurriculumDataError


class Command(BaseCommand):
    help = (
        "Validate curricula/data/*.yaml (schema, slug rule, template slugs against the problem "
        "registry) and upsert every course, module, lesson and template link by slug in one "
        "transaction, deleting what the files no longer mention. A second run with unchanged "
        "files reports '0 created, 0 updated, 0 deleted'."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--data-dir",
            type=Path,
            default=DEFAULT_DATA_DIR,
            help="Directory of course files, one <course-slug>.yaml each "
            "(default: the packaged data).",
        )

    def handle(self, *args, data_dir: Path, **options):
        try:
            report = services.curricula_load(data_dir=data_dir)
        except CurriculumDataError as exc:
            raise CommandError(str(exc)) from exc
        for kind, counts in report.kinds.items():
            self.stdout.write(
                f"  {kind}: {counts.created} created, {counts.updated} updated, "
                f"{counts.deleted} deleted"
            )
        self.stdout.write(
            self.style.SUCCESS(f"Loaded curricula from {report.data_dir}: {report.summary()}")
        )
