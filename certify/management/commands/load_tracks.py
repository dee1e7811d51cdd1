"""`manage.py load_tracks [--data-dir DIR]`: make the certification tracks match the files."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from certify.schema import DEFAULT_DATA_DIR, TrackDataError
from certify.services.tracks import tracks_load


class Command(BaseCommand):
    help = (
        "Validate certify/data/*.yaml (lessons, exam template pools) and upsert each track "
        "and its certification exam. Run after load_curricula. A second run with unchanged "
        "files reports every track unchanged."
    )

    def add_arguments(self, parser):
        parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)

    def handle(self, *args, data_dir: Path, **options):
        try:
            report = tracks_load(data_dir=data_dir)
        except TrackDataError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(self.style.SUCCESS(f"Loaded tracks: {report.summary()}"))
